import type { TPreferences } from '../contexts/preferences.ts';

type TPresetPalette = {
  light: { primary: string; secondary: string };
  dark: { primary: string; secondary: string };
};

/** Colours chosen for at least 4.5:1 contrast against the text drawn on them. */
export const PRESETS: Record<TPreferences['presetColor'], TPresetPalette> = {
  default: {
    light: { primary: '#1d5fcc', secondary: '#5b3fb8' },
    dark: { primary: '#8ab4f8', secondary: '#c4b5fd' },
  },
  teal: {
    light: { primary: '#00706b', secondary: '#1d5fcc' },
    dark: { primary: '#5fd4cc', secondary: '#8ab4f8' },
  },
  violet: {
    light: { primary: '#6236c4', secondary: '#00706b' },
    dark: { primary: '#c4b5fd', secondary: '#5fd4cc' },
  },
  amber: {
    light: { primary: '#9a4a00', secondary: '#1d5fcc' },
    dark: { primary: '#fbbf66', secondary: '#8ab4f8' },
  },
  crimson: {
    light: { primary: '#b3223a', secondary: '#1d5fcc' },
    dark: { primary: '#f9a3b1', secondary: '#8ab4f8' },
  },
};
