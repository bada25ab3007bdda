import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './identity.ts';

/** A recurring scan: days of week (0 = sun … 6 = sat), a local start time and window end, in an IANA zone. */
export const scanSchedules = pgTable(
  'scan_schedules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull().default(''),
    /** user_target_id values; checked against the targets table when the schedule is saved and when it runs. */
    targetIds: text('target_ids').array().notNull(),
    days: integer('days').array().notNull(),
    /** 'HH:MM' local wall time. */
    startTime: text('start_time').notNull(),
    endTime: text('end_time').notNull(),
    tz: text('tz').notNull(),
    scanType: text('scan_type').notNull().default('full'),
    /** { targets: [{ target_type, user_target_id }], classes, subclasses } — the scan to create. */
    scanConfig: jsonb('scan_config').notNull().default({}),
    enabled: boolean('enabled').notNull().default(true),
    /** The next due instant (UTC); null while disabled. The scheduler claims rows where this is due. */
    nextRunAt: timestamp('next_run_at', { withTimezone: true }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('scan_schedules_user_idx').on(t.userId),
    index('scan_schedules_next_run_idx').on(t.nextRunAt),
  ],
);

/** One row per (schedule, due instant): the unique key is what makes each run happen exactly once. */
export const scanScheduleRuns = pgTable(
  'scan_schedule_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    scheduleId: uuid('schedule_id')
      .notNull()
      .references(() => scanSchedules.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    /** started | failed | missed */
    status: text('status').notNull(),
    scanId: text('scan_id'),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('scan_schedule_runs_schedule_due_key').on(t.scheduleId, t.dueAt),
    index('scan_schedule_runs_user_idx').on(t.userId),
  ],
);
