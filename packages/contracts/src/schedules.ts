import { z } from 'zod';
import { isTimeZone } from './auth.ts';
import { ZScanConfig, ZScanType } from './scans.ts';
import { ZTargetRef } from './targets.ts';

/** Spec 3: mon = 1 … sat = 6, sun = 0 and back; '*' maps to mon. */
export const SCHEDULE_DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export const ZScheduleDay = z.union([z.enum([...SCHEDULE_DAY_NAMES, '*']), z.number().int().min(0).max(6)]);
export type TScheduleDay = z.infer<typeof ZScheduleDay>;

/** A local time of day, HH:MM (24-hour): the schedule window's start and end. */
export const LOCAL_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
const ZLocalTime = z.string().regex(LOCAL_TIME_PATTERN, 'Use HH:MM (24-hour).');
const ZScheduleTz = z
  .string()
  .max(64)
  .refine((tz) => isTimeZone(tz), 'Unknown time zone.');

const scheduleFields = {
  name: z.string().trim().max(120),
  targets: z.array(ZTargetRef).min(1, 'Choose at least one target.').max(20),
  days: z.array(ZScheduleDay).min(1, 'Choose at least one day.').max(7),
  start_time: ZLocalTime,
  end_time: ZLocalTime,
  tz: ZScheduleTz,
  scan_type: ZScanType,
  custom_scan_config: ZScanConfig,
  enabled: z.boolean(),
};

/**
 * Body of POST /users/create_scan_schedule. Only targets is required: days, start_time and
 * end_time default to the spec's window (sat 02:00–06:00, the night from Friday to Saturday) and
 * tz to the user's time zone. See docs/schedules.md.
 */
export const ZCreateScheduleBody = z.strictObject({
  name: scheduleFields.name.optional(),
  targets: scheduleFields.targets,
  days: scheduleFields.days.optional(),
  start_time: scheduleFields.start_time.optional(),
  end_time: scheduleFields.end_time.optional(),
  tz: scheduleFields.tz.optional(),
  scan_type: scheduleFields.scan_type.optional(),
  custom_scan_config: scheduleFields.custom_scan_config.optional(),
  enabled: scheduleFields.enabled.optional(),
});
export type TCreateScheduleBody = z.infer<typeof ZCreateScheduleBody>;

/** Body of PATCH /users/update_scan_schedule: the id plus any fields to change. */
export const ZUpdateScheduleBody = z.strictObject({
  scan_schedule_id: z.uuid('Unknown schedule.'),
  name: scheduleFields.name.optional(),
  targets: scheduleFields.targets.optional(),
  days: scheduleFields.days.optional(),
  start_time: scheduleFields.start_time.optional(),
  end_time: scheduleFields.end_time.optional(),
  tz: scheduleFields.tz.optional(),
  scan_type: scheduleFields.scan_type.optional(),
  custom_scan_config: scheduleFields.custom_scan_config.optional(),
  enabled: scheduleFields.enabled.optional(),
});
export type TUpdateScheduleBody = z.infer<typeof ZUpdateScheduleBody>;

export const ZDeleteScheduleQuery = z.strictObject({ scan_schedule_id: z.uuid('Unknown schedule.') });

const ZBoolQuery = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .or(z.boolean());

export const ZScheduleOverviewQuery = z.strictObject({
  by_end_of_month: ZBoolQuery.optional().default(false),
  days_ahead: z.coerce.number().int().min(1).max(366).optional().default(30),
});
export type TScheduleOverviewQuery = z.infer<typeof ZScheduleOverviewQuery>;

export const ZScanSchedule = z.object({
  scan_schedule_id: z.string(),
  name: z.string(),
  targets: z.array(z.object({ target_type: z.string(), user_target_id: z.string() })),
  days: z.array(z.enum(SCHEDULE_DAY_NAMES)),
  days_numbers: z.array(z.number().int()),
  start_time: z.string(),
  end_time: z.string(),
  tz: z.string(),
  scan_type: z.enum(['full', 'custom']),
  custom_scan_config: z.object({ classes: z.array(z.string()), subclasses: z.array(z.string()) }),
  enabled: z.boolean(),
  next_run_at: z.string().nullable(),
  last_run_at: z.string().nullable(),
  created_at: z.string(),
});
export type TScanSchedule = z.infer<typeof ZScanSchedule>;

export const ZScheduleList = z.object({ results: z.array(ZScanSchedule), count: z.number().int() });

export const ZScheduleOverview = z.object({
  tz: z.string(),
  from: z.string(),
  to: z.string(),
  days: z.array(
    z.object({
      date: z.string(),
      runs: z.array(
        z.object({
          scan_schedule_id: z.string(),
          name: z.string(),
          at: z.string(),
          local_time: z.string(),
          targets: z.array(z.object({ target_type: z.string(), user_target_id: z.string() })),
          scan_type: z.enum(['full', 'custom']),
        }),
      ),
    }),
  ),
});
export type TScheduleOverview = z.infer<typeof ZScheduleOverview>;
