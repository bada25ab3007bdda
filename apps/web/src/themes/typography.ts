import type { TypographyVariantsOptions } from '@mui/material/styles';
import type { TPreferences } from '../contexts/preferences.ts';

/** Font stacks only: no web-font download, so the app works offline and self-hosted. */
export const FONT_STACKS: Record<TPreferences['fontFamily'], string> = {
  system: 'system-ui, -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", Arial, sans-serif',
  roboto: 'Roboto, "Helvetica Neue", Helvetica, "Liberation Sans", Arial, sans-serif',
  serif: '"Noto Serif", "DejaVu Serif", Georgia, "Times New Roman", serif',
};

export function buildTypography(font: TPreferences['fontFamily']): TypographyVariantsOptions {
  return {
    fontFamily: FONT_STACKS[font],
    h1: { fontSize: '2.125rem', fontWeight: 700 },
    h2: { fontSize: '1.5rem', fontWeight: 700 },
    h3: { fontSize: '1.25rem', fontWeight: 600 },
    h4: { fontSize: '1.125rem', fontWeight: 600 },
    h5: { fontSize: '1rem', fontWeight: 600 },
    h6: { fontSize: '0.875rem', fontWeight: 600 },
    button: { textTransform: 'none', fontWeight: 600 },
  };
}
