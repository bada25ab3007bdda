import type {
  TCreateScheduleBody,
  TScanConfig,
  TScanSchedule,
  TScheduleOverview,
  TScheduleOverviewQuery,
  TTargetRef,
  TUpdateScheduleBody,
} from '@perimeter/contracts';
import { PLAN_NAMES, type TPlanKey } from '@perimeter/contracts';
import { badRequest, forbidden, notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import {
  DEFAULT_WINDOW,
  localDate,
  localTime,
  nextRunAfter,
  normaliseDays,
  numberToDay,
  overviewEnd,
  runsBetween,
  SCHEDULED_SCANS_PER_WEEK,
} from './schedules-fns.ts';
import * as repo from './schedules-repo.ts';
import type { ScanBridge } from './schedules-scan-port.ts';

export interface StoredScanConfig {
  targets: TTargetRef[];
  classes: TScanConfig['classes'];
  subclasses: TScanConfig['subclasses'];
}

export function storedConfig(row: repo.ScheduleRow): StoredScanConfig {
  const c = (row.scanConfig ?? {}) as Partial<StoredScanConfig>;
  return { targets: c.targets ?? [], classes: c.classes ?? [], subclasses: c.subclasses ?? [] };
}

export function toSchedule(row: repo.ScheduleRow): TScanSchedule {
  const config = storedConfig(row);
  return {
    scan_schedule_id: row.id,
    name: row.name,
    targets: config.targets,
    days: row.days.map(numberToDay),
    days_numbers: row.days,
    start_time: row.startTime,
    end_time: row.endTime,
    tz: row.tz,
    scan_type: row.scanType === 'custom' ? 'custom' : 'full',
    custom_scan_config: { classes: config.classes, subclasses: config.subclasses },
    enabled: row.enabled,
    next_run_at: row.nextRunAt?.toISOString() ?? null,
    last_run_at: row.lastRunAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

function checkCustom(scanType: string, config: { classes: string[]; subclasses: string[] }) {
  if (scanType === 'custom' && config.classes.length === 0 && config.subclasses.length === 0) {
    throw badRequest('A custom scan needs at least one class or subclass.', {
      custom_scan_config: ['Choose at least one class or subclass.'],
    });
  }
}

function checkTargetsOneType(targets: TTargetRef[]) {
  if (new Set(targets.map((t) => t.target_type)).size > 1) {
    throw badRequest('A schedule scans targets of one type.', { targets: ['Use targets of one type.'] });
  }
}

/** Plan limit: scheduled scans per week over all enabled schedules, this one included. */
async function checkWeeklyLimit(ctx: AppContext, userId: string, days: number[], exceptId?: string) {
  const plan = await repo.userPlan(ctx.db, userId);
  const limit = SCHEDULED_SCANS_PER_WEEK[plan] ?? 1;
  const others = (await repo.listSchedules(ctx.db, userId))
    .filter((r) => r.enabled && r.id !== exceptId)
    .reduce((n, r) => n + r.days.length, 0);
  if (others + days.length > limit) {
    const name = PLAN_NAMES[plan as TPlanKey] ?? plan;
    throw forbidden(
      `Plan limit: the ${name} plan allows ${limit} scheduled scan${limit === 1 ? '' : 's'} per week (${others} already scheduled).`,
    );
  }
}

export async function createSchedule(
  ctx: AppContext,
  bridge: ScanBridge,
  userId: string,
  body: TCreateScheduleBody,
  now = new Date(),
): Promise<TScanSchedule> {
  checkTargetsOneType(body.targets);
  const scanType = body.scan_type ?? 'full';
  const custom = body.custom_scan_config ?? { classes: [], subclasses: [] };
  checkCustom(scanType, custom);
  await bridge.assertTargetsOwned(ctx, userId, body.targets);
  const tz = body.tz ?? (await repo.userTimeZone(ctx.db, userId)) ?? 'UTC';
  const days = normaliseDays(body.days ?? DEFAULT_WINDOW.days);
  const startTime = body.start_time ?? DEFAULT_WINDOW.startTime;
  const enabled = body.enabled ?? true;
  if (enabled) await checkWeeklyLimit(ctx, userId, days);
  const row = await repo.insertSchedule(ctx.db, {
    userId,
    name: body.name ?? '',
    targetIds: body.targets.map((t) => t.user_target_id),
    days,
    startTime,
    endTime: body.end_time ?? DEFAULT_WINDOW.endTime,
    tz,
    scanType,
    scanConfig: {
      targets: body.targets,
      classes: scanType === 'custom' ? custom.classes : [],
      subclasses: scanType === 'custom' ? custom.subclasses : [],
    } satisfies StoredScanConfig,
    enabled,
    nextRunAt: enabled ? nextRunAfter({ days, startTime, tz }, now) : null,
  });
  return toSchedule(row);
}

export async function listSchedules(ctx: AppContext, userId: string) {
  const rows = await repo.listSchedules(ctx.db, userId);
  return { results: rows.map(toSchedule), count: rows.length };
}

export async function updateSchedule(
  ctx: AppContext,
  bridge: ScanBridge,
  userId: string,
  body: TUpdateScheduleBody,
  now = new Date(),
): Promise<TScanSchedule> {
  const current = await repo.findSchedule(ctx.db, userId, body.scan_schedule_id);
  if (!current) throw notFound('Schedule not found.');
  const was = storedConfig(current);
  const targets = body.targets ?? was.targets;
  checkTargetsOneType(targets);
  if (body.targets) await bridge.assertTargetsOwned(ctx, userId, body.targets);
  const scanType = body.scan_type ?? (current.scanType === 'custom' ? 'custom' : 'full');
  const custom = body.custom_scan_config ?? { classes: was.classes, subclasses: was.subclasses };
  checkCustom(scanType, custom);
  const days = body.days ? normaliseDays(body.days) : current.days;
  const startTime = body.start_time ?? current.startTime;
  const tz = body.tz ?? current.tz;
  const enabled = body.enabled ?? current.enabled;
  if (enabled) await checkWeeklyLimit(ctx, userId, days, current.id);
  const row = await repo.updateSchedule(ctx.db, userId, current.id, {
    name: body.name ?? current.name,
    targetIds: targets.map((t) => t.user_target_id),
    days,
    startTime,
    endTime: body.end_time ?? current.endTime,
    tz,
    scanType,
    scanConfig: {
      targets,
      classes: scanType === 'custom' ? custom.classes : [],
      subclasses: scanType === 'custom' ? custom.subclasses : [],
    } satisfies StoredScanConfig,
    enabled,
    nextRunAt: enabled ? nextRunAfter({ days, startTime, tz }, now) : null,
  });
  if (!row) throw notFound('Schedule not found.');
  return toSchedule(row);
}

export async function deleteSchedule(ctx: AppContext, userId: string, id: string) {
  if (!(await repo.deleteSchedule(ctx.db, userId, id))) throw notFound('Schedule not found.');
  return { detail: 'Schedule deleted.' };
}

/** Every run of the user's enabled schedules in the window, grouped by local date in the user's zone. */
export async function scheduleOverview(
  ctx: AppContext,
  userId: string,
  query: TScheduleOverviewQuery,
  now = new Date(),
): Promise<TScheduleOverview> {
  const tz = (await repo.userTimeZone(ctx.db, userId)) ?? 'UTC';
  const end = overviewEnd(now, tz, query.days_ahead, query.by_end_of_month);
  const rows = (await repo.listSchedules(ctx.db, userId)).filter((r) => r.enabled);
  const byDate = new Map<string, TScheduleOverview['days'][number]['runs']>();
  for (let t = now.getTime(); t <= end.getTime(); t += 86_400_000) byDate.set(localDate(new Date(t), tz), []);
  byDate.set(localDate(end, tz), byDate.get(localDate(end, tz)) ?? []);
  for (const row of rows) {
    const config = storedConfig(row);
    for (const at of runsBetween({ days: row.days, startTime: row.startTime, tz: row.tz }, now, end)) {
      const date = localDate(at, tz);
      const list = byDate.get(date) ?? [];
      list.push({
        scan_schedule_id: row.id,
        name: row.name,
        at: at.toISOString(),
        local_time: localTime(at, tz),
        targets: config.targets,
        scan_type: row.scanType === 'custom' ? 'custom' : 'full',
      });
      byDate.set(date, list);
    }
  }
  const days = [...byDate.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, runs]) => ({ date, runs: runs.sort((a, b) => a.at.localeCompare(b.at)) }));
  return { tz, from: now.toISOString(), to: end.toISOString(), days };
}
