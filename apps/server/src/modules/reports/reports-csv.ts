import type { TReport } from '@perimeter/contracts';

const csvCell = (v: unknown): string => {
  let s = v === null || v === undefined ? '' : Array.isArray(v) ? v.join(' ') : String(v);
  // Spreadsheet formula injection: a cell must not start with = + - @ (or tab/CR).
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export const CSV_COLUMNS = [
  'scan_subclass',
  'severity',
  'name',
  'host',
  'main_domain',
  'status',
  'resolved',
  'first_seen',
  'last_seen',
  'description',
  'impact',
  'how_to_resolve',
  'curl',
  'references',
] as const;

/**
 * An instant as the account reads it: local date and time of its time zone with the offset, a value
 * spreadsheets still sort and parse ("2026-11-08 05:00:00 +03:00").
 */
export function zonedTimestamp(iso: string | null, timeZone: string): string {
  if (!iso) return '';
  const at = new Date(iso);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const local = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  const offset = Math.round((local - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const mm = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${sign}${hh}:${mm}`;
}

/** One row per finding; UTF-8 with BOM so spreadsheets read Cyrillic; dates in the account's zone. */
export function reportToCsv(report: TReport): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const f of report.findings) {
    lines.push(
      [
        f.scan_subclass,
        f.severity,
        f.name,
        f.host,
        f.main_domain,
        f.status,
        f.resolved,
        zonedTimestamp(f.first_seen, report.time_zone),
        zonedTimestamp(f.last_seen, report.time_zone),
        f.description,
        f.impact,
        f.how_to_resolve,
        f.how_to_reproduce?.curl ?? '',
        f.references,
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
