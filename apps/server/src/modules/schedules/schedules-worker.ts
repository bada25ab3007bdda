import type PgBoss from 'pg-boss';
import type { AppContext } from '../../server/context.ts';
import { registerScheduleWorkers } from './schedules-jobs.ts';
import { scanBridge } from './schedules-scan-adapter.ts';

/** Worker role: scheduled-start jobs and the scheduler loop (safe to run on every worker machine). */
export function startSchedules(ctx: AppContext, boss: PgBoss) {
  return registerScheduleWorkers(ctx, boss, scanBridge);
}
