import { useTranslation } from 'react-i18next';
import { useAuth } from '../../auth/auth-provider.tsx';

/** Dates in the account's time zone (the time-zone page promises it), in the UI language. */
export function useDateFormat(): (iso: string) => string {
  const { i18n } = useTranslation();
  const { user } = useAuth();
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat(i18n.language, {
      dateStyle: 'short',
      timeStyle: 'short',
      ...(user?.tz ? { timeZone: user.tz } : {}),
    });
  } catch {
    fmt = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' });
  }
  return (iso) => fmt.format(new Date(iso));
}
