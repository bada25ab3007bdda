import { z } from 'zod';
import { AppError } from '../../lib/errors.ts';
import { defineJob, type ExecuteSql, ensureQueues, type PgBoss } from '../../lib/queue.ts';
import type { AppContext } from '../../server/context.ts';
import { startScan } from '../scans/scans-service.ts';
import { markRunFailedByScan } from './schedules-repo.ts';
import type { ScanBridge } from './schedules-scan-port.ts';
import { createScheduler, type Scheduler } from './schedules-scheduler.ts';

/**
 * `schedule-start`: starts a scan the scheduler created. Transient failures (database, DNS timeouts
 * surfacing as errors) are retried with backoff; a refusal (plan limit, ownership proof gone) is
 * final and recorded on the schedule run. startScan only moves a `created` scan, so a retried job
 * never starts a scan twice.
 */
export const SCHEDULE_START_QUEUE = 'schedule-start';
export const ZScheduleStartJob = z.object({ scanId: z.uuid(), userId: z.uuid() });
export type TScheduleStartJob = z.infer<typeof ZScheduleStartJob>;
const scheduleStartJob = defineJob(SCHEDULE_START_QUEUE, ZScheduleStartJob, {
  retryLimit: 5,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 600,
});

export async function enqueueScheduledStart(executeSql: ExecuteSql, job: TScheduleStartJob): Promise<void> {
  await scheduleStartJob.enqueue(executeSql, job, { singletonKey: job.scanId });
}

export async function handleScheduledStart(ctx: AppContext, job: TScheduleStartJob): Promise<void> {
  try {
    await startScan(ctx, job.userId, job.scanId);
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 409) return; // already started (a retry)
    if (err instanceof AppError && (err.statusCode === 403 || err.statusCode === 404)) {
      await markRunFailedByScan(ctx.db, job.scanId, err.detail);
      ctx.logger.warn({ scanId: job.scanId, detail: err.detail }, 'scheduled scan refused');
      return;
    }
    throw err;
  }
}

/** The worker role's side of schedules: the start-job worker and the scheduler loop. */
export async function registerScheduleWorkers(
  ctx: AppContext,
  boss: PgBoss,
  bridge: ScanBridge,
  intervalMs = 30_000,
): Promise<Scheduler> {
  await ensureQueues(ctx.database.pool, boss, [scheduleStartJob]);
  const workers = scheduleStartJob.work(boss, ctx.logger, (job) => handleScheduledStart(ctx, job), {
    pollMs: 1000,
  });
  const scheduler = createScheduler(ctx, { bridge });
  scheduler.start(intervalMs);
  ctx.logger.info({ intervalMs }, 'scheduler ready');
  return {
    ...scheduler,
    async stop() {
      await scheduler.stop();
      await workers.stop();
    },
  };
}
