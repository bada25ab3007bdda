/**
 * Pure time arithmetic for scan schedules. Days of week follow the spec: sun = 0, mon = 1 … sat = 6,
 * and '*' maps to mon. Times are local wall times in an IANA zone; DST is handled like Temporal's
 * 'compatible' disambiguation: a time that does not exist (spring forward) moves forward by the gap,
 * a time that exists twice (fall back) means the earlier instant — so every local run happens once.
 */

export const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type TDayName = (typeof DAY_NAMES)[number];

/** The default scan window (spec 9): 02:00–06:00 local, the night from Friday to Saturday. */
export const DEFAULT_WINDOW = { days: [6], startTime: '02:00', endTime: '06:00' } as const;

/**
 * Scheduled scans per week each plan allows, summed over the user's enabled schedules (spec 9:
 * starter "weekly", try_it and business "three per week", enterprise "individual frequency";
 * trial_scan is a single demo scan, so one). The monthly limit is enforced again when a run starts.
 */
export const SCHEDULED_SCANS_PER_WEEK: Record<string, number> = {
  trial_scan: 1,
  try_it: 3,
  starter: 1,
  business: 3,
  enterprise: 7,
};

export function dayToNumber(day: TDayName | '*' | number): number {
  if (typeof day === 'number') return day;
  if (day === '*') return 1;
  return DAY_NAMES.indexOf(day);
}

export function numberToDay(n: number): TDayName {
  const name = DAY_NAMES[n];
  if (!name) throw new RangeError(`day of week out of range: ${n}`);
  return name;
}

/** Sorted, unique day numbers. */
export function normaliseDays(days: ReadonlyArray<TDayName | '*' | number>): number[] {
  return [...new Set(days.map(dayToNumber))].sort((a, b) => a - b);
}

export function parseTime(hhmm: string): { hour: number; minute: number } {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(hhmm);
  if (!m) throw new RangeError(`not a HH:MM time: ${hhmm}`);
  return { hour: Number(m[1]), minute: Number(m[2]) };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock reading of an instant in a zone. */
export function toLocal(instant: Date | number, tz: string): LocalDateTime {
  const parts = formatter(tz).formatToParts(typeof instant === 'number' ? instant : instant.getTime());
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/** The zone's offset from UTC at an instant, in milliseconds (Berlin in summer: +7,200,000). */
export function zoneOffsetMs(instant: number, tz: string): number {
  const l = toLocal(instant, tz);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant a local wall time names, with 'compatible' disambiguation (see the file comment). */
export function localToInstant(
  date: { year: number; month: number; day: number },
  time: { hour: number; minute: number },
  tz: string,
): Date {
  const guess = Date.UTC(date.year, date.month - 1, date.day, time.hour, time.minute);
  const before = zoneOffsetMs(guess - 86_400_000, tz);
  const after = zoneOffsetMs(guess + 86_400_000, tz);
  const matches = (instant: number) => {
    const l = toLocal(instant, tz);
    return (
      l.year === date.year &&
      l.month === date.month &&
      l.day === date.day &&
      l.hour === time.hour &&
      l.minute === time.minute
    );
  };
  const early = guess - before;
  const late = guess - after;
  // Fall back (both match): the earlier instant. Spring forward (neither): the pre-transition offset,
  // which lands the gap's length later on the wall clock.
  if (matches(early) || !matches(late)) return new Date(early);
  return new Date(late);
}

export interface ScheduleTiming {
  days: readonly number[];
  startTime: string;
  tz: string;
}

function addDays(date: { year: number; month: number; day: number }, n: number) {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + n));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    weekday: d.getUTCDay(),
  };
}

/** The first run strictly after `after`, or null when the schedule has no days. */
export function nextRunAfter(s: ScheduleTiming, after: Date): Date | null {
  if (s.days.length === 0) return null;
  const time = parseTime(s.startTime);
  const today = toLocal(after, s.tz);
  for (let i = -1; i <= 8; i++) {
    const d = addDays(today, i);
    if (!s.days.includes(d.weekday)) continue;
    const at = localToInstant(d, time, s.tz);
    if (at.getTime() > after.getTime()) return at;
  }
  return null;
}

/** Every run in (from, to]. */
export function runsBetween(s: ScheduleTiming, from: Date, to: Date): Date[] {
  const out: Date[] = [];
  let cursor = from;
  for (;;) {
    const next = nextRunAfter(s, cursor);
    if (!next || next.getTime() > to.getTime()) return out;
    out.push(next);
    cursor = next;
  }
}

/** The local calendar date (YYYY-MM-DD) of an instant. */
export function localDate(instant: Date, tz: string): string {
  const l = toLocal(instant, tz);
  return `${l.year}-${String(l.month).padStart(2, '0')}-${String(l.day).padStart(2, '0')}`;
}

export function localTime(instant: Date, tz: string): string {
  const l = toLocal(instant, tz);
  return `${String(l.hour).padStart(2, '0')}:${String(l.minute).padStart(2, '0')}`;
}

/**
 * The overview window: `days_ahead` days from now, or — with by_end_of_month — up to the end of the
 * current local month (never more than days_ahead days).
 */
export function overviewEnd(now: Date, tz: string, daysAhead: number, byEndOfMonth: boolean): Date {
  const limit = new Date(now.getTime() + daysAhead * 86_400_000);
  if (!byEndOfMonth) return limit;
  const l = toLocal(now, tz);
  const next = l.month === 12 ? { year: l.year + 1, month: 1 } : { year: l.year, month: l.month + 1 };
  const endOfMonth = localToInstant({ ...next, day: 1 }, { hour: 0, minute: 0 }, tz);
  const end = new Date(endOfMonth.getTime() - 1);
  return end.getTime() < limit.getTime() ? end : limit;
}

/**
 * The run to start when the scheduler finds a schedule due at `dueAt` but only looks at it at `now`
 * (after a restart): start it while the window is still open, otherwise record it as missed.
 */
export function isWithinWindow(dueAt: Date, now: Date, s: { startTime: string; endTime: string }): boolean {
  const start = parseTime(s.startTime);
  const end = parseTime(s.endTime);
  let minutes = end.hour * 60 + end.minute - (start.hour * 60 + start.minute);
  if (minutes <= 0) minutes += 24 * 60;
  return now.getTime() - dueAt.getTime() <= minutes * 60_000;
}
