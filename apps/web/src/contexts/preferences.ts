import { STORAGE_KEYS } from '../config/layout.ts';

export const FONT_FAMILIES = ['system', 'roboto', 'serif'] as const;
export const PRESET_COLORS = ['default', 'teal', 'violet', 'amber', 'crimson'] as const;

/** Saved UI preferences (spec §2 "Shell"). */
export type TPreferences = {
  fontFamily: (typeof FONT_FAMILIES)[number];
  menuOrientation: 'vertical' | 'horizontal';
  miniDrawer: boolean;
  container: boolean;
  mode: 'light' | 'dark';
  presetColor: (typeof PRESET_COLORS)[number];
  themeDirection: 'ltr' | 'rtl';
};

export const DEFAULT_PREFERENCES: TPreferences = {
  fontFamily: 'system',
  menuOrientation: 'vertical',
  miniDrawer: false,
  container: false,
  mode: 'light',
  presetColor: 'default',
  themeDirection: 'ltr',
};

const ALLOWED: { [K in keyof TPreferences]: readonly TPreferences[K][] } = {
  fontFamily: FONT_FAMILIES,
  menuOrientation: ['vertical', 'horizontal'],
  miniDrawer: [true, false],
  container: [true, false],
  mode: ['light', 'dark'],
  presetColor: PRESET_COLORS,
  themeDirection: ['ltr', 'rtl'],
};

/** Every field is checked on its own: one bad value falls back to its default, the rest is kept. */
export function parsePreferences(value: unknown): TPreferences {
  const source = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const result: Record<string, unknown> = { ...DEFAULT_PREFERENCES };
  for (const key of Object.keys(ALLOWED) as (keyof TPreferences)[]) {
    if ((ALLOWED[key] as readonly unknown[]).includes(source[key])) result[key] = source[key];
  }
  return result as TPreferences;
}

export function loadPreferences(storage: Storage = localStorage): TPreferences {
  const raw = storage.getItem(STORAGE_KEYS.preferences);
  if (!raw) return DEFAULT_PREFERENCES;
  try {
    return parsePreferences(JSON.parse(raw));
  } catch {
    return DEFAULT_PREFERENCES;
  }
}

export function savePreferences(prefs: TPreferences, storage: Storage = localStorage): void {
  storage.setItem(STORAGE_KEYS.preferences, JSON.stringify(prefs));
}
