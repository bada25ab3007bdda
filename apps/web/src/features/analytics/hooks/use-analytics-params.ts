import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

export const PERIODS = [7, 30, 90, 180, 365] as const;
export const DEFAULT_PERIOD = 90;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Period (days) and target live in the address, so a chart view can be bookmarked and shared. */
export function useAnalyticsParams() {
  const [search, setSearch] = useSearchParams();
  const rawDays = Number(search.get('days'));
  const days = (PERIODS as readonly number[]).includes(rawDays) ? rawDays : DEFAULT_PERIOD;
  const rawTarget = search.get('target') ?? '';
  const target = UUID.test(rawTarget) ? rawTarget : '';

  const update = useCallback(
    (next: { days?: number; target?: string }) => {
      setSearch(
        (prev) => {
          const out = new URLSearchParams(prev);
          if (next.days !== undefined) {
            if (next.days === DEFAULT_PERIOD) out.delete('days');
            else out.set('days', String(next.days));
          }
          if (next.target !== undefined) {
            if (next.target) out.set('target', next.target);
            else out.delete('target');
          }
          return out;
        },
        { replace: true },
      );
    },
    [setSearch],
  );
  return { days, target, update };
}
