import type { TLanguage } from '@perimeter/contracts';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS } from '../config/layout.ts';

/** Kept here, not imported from contracts at run time, so zod stays out of the initial bundle. */
export const LANGUAGES = ['en', 'ru'] as const satisfies readonly TLanguage[];

type TBundle = { default: Record<string, unknown> };

/**
 * Every language, English included, is loaded as chunks before the first render: the initial
 * bundle does not grow with the translations. A language is `translation.json` plus one file
 * per feature area (`events.json`, `analytics.json`, ...), all merged into one namespace.
 */
const files = import.meta.glob<TBundle>('../locales/*/*.json');

function loadersOf(lng: TLanguage): Array<() => Promise<TBundle>> {
  return Object.entries(files)
    .filter(([file]) => file.startsWith(`../locales/${lng}/`))
    .map(([, load]) => load);
}

function isLanguage(value: string | null): value is TLanguage {
  return value !== null && (LANGUAGES as readonly string[]).includes(value);
}

/** The language kept under `locale` in local storage, English as fallback (spec §1). */
export function currentLanguage(): TLanguage {
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(STORAGE_KEYS.locale);
  return isLanguage(stored) ? stored : 'en';
}

export async function loadLanguage(lng: TLanguage): Promise<void> {
  if (i18n.hasResourceBundle(lng, 'translation')) return;
  const bundles = await Promise.all(loadersOf(lng).map((load) => load()));
  for (const bundle of bundles) i18n.addResourceBundle(lng, 'translation', bundle.default, true, true);
}

export async function changeLanguage(lng: TLanguage): Promise<void> {
  await loadLanguage(lng);
  localStorage.setItem(STORAGE_KEYS.locale, lng);
  document.documentElement.lang = lng;
  await i18n.changeLanguage(lng);
}

export const i18n = i18next.createInstance();
void i18n.use(initReactI18next).init({
  resources: {},
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: LANGUAGES,
  partialBundledLanguages: true,
  interpolation: { escapeValue: false },
  initAsync: false,
});

/** Before the first render: load English (the fallback) and the stored language, then switch. */
export async function initLanguage(): Promise<void> {
  const lng = currentLanguage();
  document.documentElement.lang = lng;
  await Promise.all([loadLanguage('en'), loadLanguage(lng)]);
  await i18n.changeLanguage(lng);
}
