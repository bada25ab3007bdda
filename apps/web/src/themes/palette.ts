import type { PaletteOptions } from '@mui/material/styles';
import type { TPreferences } from '../contexts/preferences.ts';
import { PRESETS } from './presets.ts';

export function buildPalette(
  mode: TPreferences['mode'],
  preset: TPreferences['presetColor'],
): PaletteOptions {
  const colors = PRESETS[preset][mode];
  const isDark = mode === 'dark';
  return {
    mode,
    contrastThreshold: 4.5,
    primary: { main: colors.primary },
    secondary: { main: colors.secondary },
    background: isDark ? { default: '#0f1420', paper: '#171e2e' } : { default: '#f3f6fb', paper: '#ffffff' },
    text: isDark
      ? { primary: '#e6ebf5', secondary: '#aab4c8' }
      : { primary: '#1b2433', secondary: '#4a5568' },
    divider: isDark ? 'rgba(230,235,245,0.14)' : 'rgba(27,36,51,0.12)',
    error: { main: isDark ? '#ff8a80' : '#c62828' },
    warning: { main: isDark ? '#ffcc80' : '#8a5300' },
    success: { main: isDark ? '#81c995' : '#1e7a36' },
    info: { main: isDark ? '#81d4fa' : '#0b6aa2' },
  };
}
