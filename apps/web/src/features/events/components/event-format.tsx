import { Chip } from '@mui/material';
import type { TEvent, TSeverity } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { SEVERITY_COLOR } from '../../../components/ui/severity-color.ts';
import { useDateFormat } from '../../auth/index.ts';

export function SeverityChip({ severity }: { severity: TSeverity }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      color={SEVERITY_COLOR[severity]}
      label={t(`events.severity.${severity}`)}
      data-testid={`severity-${severity}`}
    />
  );
}

export function StatusChip({ event }: { event: TEvent }) {
  const { t } = useTranslation();
  if (event.resolved)
    return <Chip size="small" variant="outlined" color="success" label={t('events.status.resolved')} />;
  return (
    <Chip
      size="small"
      variant="outlined"
      color={event.status === 'fixed' ? 'success' : event.status === 'regressed' ? 'error' : 'default'}
      label={t(`events.status.${event.status}`)}
    />
  );
}

/**
 * The server sends leaked passwords masked; if one ever arrives in clear, mask it here the same way
 * (first and last two characters kept) rather than show it.
 */
export function maskPassword(p: string): string {
  if (p.length === 0 || p.includes('*')) return p;
  if (p.length <= 4) return '*'.repeat(p.length);
  return `${p.slice(0, 2)}${'*'.repeat(Math.max(4, p.length - 4))}${p.slice(-2)}`;
}

/** Dates, numbers and totals in the user's language; dates stay left-to-right inside RTL text. */
export function useFormat() {
  const { i18n } = useTranslation();
  const dateFmt = useDateFormat({ dateStyle: 'short', timeStyle: 'short' });
  const dayFmt = useDateFormat({ dateStyle: 'medium' });
  const shortDayFmt = useDateFormat({ dateStyle: 'short' });
  const formatDay = (fmt: Intl.DateTimeFormat) => (v: string | null) => {
    if (!v) return '—';
    const d = /^\d{4}-\d{2}-\d{2}/.test(v) ? new Date(v) : null;
    return <span dir="ltr">{d && !Number.isNaN(d.getTime()) ? fmt.format(d) : v}</span>;
  };
  const numberFmt = new Intl.NumberFormat(i18n.language);
  return {
    date: (v: string | null) => {
      if (!v) return '—';
      const d = new Date(v);
      return <span dir="ltr">{Number.isNaN(d.getTime()) ? v : dateFmt.format(d)}</span>;
    },
    /** Leak dates may be a day, a month or free text: shown as given when not a full date. */
    day: formatDay(dayFmt),
    /** The day in digits ("24.11.2026"): for tables with many date columns. */
    shortDay: formatDay(shortDayFmt),
    number: (n: number) => numberFmt.format(n),
  };
}
