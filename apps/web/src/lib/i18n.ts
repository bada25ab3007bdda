import type { TLanguage } from '@perimeter/contracts';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS } from '../config/layout.ts';

/** Kept here, not imported from contracts at run time, so zod stays out of the initial bundle. */
export const LANGUAGES = ['en', 'ru'] as const satisfies readonly TLanguage[];

/**
 * Every language, English included, is its own chunk loaded before the first render: the
 * initial bundle does not grow with the translations.
 */
const loaders: Record<TLanguage, () => Promise<{ default: Record<string, unknown> }>> = {
  en: () => import('../locales/en/translation.json'),
  ru: () => import('../locales/ru/translation.json'),
};

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
  const bundle = await loaders[lng]();
  i18n.addResourceBundle(lng, 'translation', bundle.default, true, true);
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
