import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../store/index.ts';

/** The account's time zone when it is a valid IANA name; otherwise the browser's (undefined). */
export function accountTimeZone(tz: string | null | undefined): string | undefined {
  if (!tz) return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return undefined;
  }
}

/**
 * A date format in the user's language and the ACCOUNT's time zone (the time-zone page promises
 * "schedules and reports use this time zone"), not the browser's: every date of the UI goes through it.
 */
export function useDateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const { i18n } = useTranslation();
  const tz = accountTimeZone(useAppSelector((s) => s.auth.user?.tz));
  const key = JSON.stringify(options);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the options object
  return useMemo(
    () => new Intl.DateTimeFormat(i18n.language, { ...options, ...(tz ? { timeZone: tz } : {}) }),
    [i18n.language, tz, key],
  );
}
