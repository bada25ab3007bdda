import type {
  TCreateScheduleBody,
  TScanClass,
  TScanSchedule,
  TScanSubclass,
  TTargetRef,
  TTargetType,
} from '@perimeter/contracts';

/**
 * Spec §9: the default scan window is 02:00–06:00 local time on the night from Friday to
 * Saturday, i.e. Saturday (6 in the spec's mapping sun = 0, mon = 1 … sat = 6) from 02:00 to 06:00.
 */
export const DEFAULT_WINDOW = { days: [6], start_time: '02:00', end_time: '06:00' } as const;

/** Monday first in the form and the calendar; values are the spec's day numbers. */
export const WEEK_ORDER = [1, 2, 3, 4, 5, 6, 0] as const;

export type TScheduleFormValues = {
  name: string;
  targets: TTargetRef[];
  days: number[];
  start_time: string;
  end_time: string;
  tz: string;
  scan_type: 'full' | 'custom';
  classes: TScanClass[];
  subclasses: TScanSubclass[];
  enabled: boolean;
};

export function defaultFormValues(tz: string): TScheduleFormValues {
  return {
    name: '',
    targets: [],
    days: [...DEFAULT_WINDOW.days],
    start_time: DEFAULT_WINDOW.start_time,
    end_time: DEFAULT_WINDOW.end_time,
    tz,
    scan_type: 'full',
    classes: [],
    subclasses: [],
    enabled: true,
  };
}

export function formValuesOf(s: TScanSchedule): TScheduleFormValues {
  return {
    name: s.name,
    targets: s.targets.map((x) => ({
      target_type: x.target_type as TTargetType,
      user_target_id: x.user_target_id,
    })),
    days: [...s.days_numbers],
    start_time: s.start_time,
    end_time: s.end_time,
    tz: s.tz,
    scan_type: s.scan_type,
    classes: s.custom_scan_config.classes as TScanClass[],
    subclasses: s.custom_scan_config.subclasses as TScanSubclass[],
    enabled: s.enabled,
  };
}

/** The request body: days as the spec's numbers (sun = 0 … sat = 6), in week order. */
export function bodyOf(
  v: TScheduleFormValues,
): Required<Omit<TCreateScheduleBody, 'custom_scan_config'>> &
  Pick<TCreateScheduleBody, 'custom_scan_config'> {
  return {
    name: v.name.trim(),
    targets: v.targets,
    days: WEEK_ORDER.filter((d) => v.days.includes(d)),
    start_time: v.start_time,
    end_time: v.end_time,
    tz: v.tz,
    scan_type: v.scan_type,
    custom_scan_config:
      v.scan_type === 'custom' ? { classes: v.classes, subclasses: v.subclasses } : undefined,
    enabled: v.enabled,
  };
}

/** Localised weekday name of a spec day number (0 = Sunday). 2024-01-07 was a Sunday. */
export function weekdayName(day: number, language: string, width: 'short' | 'long'): string {
  return new Intl.DateTimeFormat(language, { weekday: width, timeZone: 'UTC' }).format(
    new Date(Date.UTC(2024, 0, 7 + day)),
  );
}

/** Weekday of a YYYY-MM-DD date as a spec day number. */
export function dayOfDate(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** The overview's dates laid out in Monday-first weeks; null pads the first and last week. */
export function calendarWeeks<T extends { date: string }>(days: readonly T[]): Array<Array<T | null>> {
  if (days.length === 0) return [];
  const lead = WEEK_ORDER.indexOf(dayOfDate(days[0]!.date) as (typeof WEEK_ORDER)[number]);
  const cells: Array<T | null> = [...Array<null>(lead).fill(null), ...days];
  while (cells.length % 7 !== 0) cells.push(null);
  const weeks: Array<Array<T | null>> = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));
  return weeks;
}
