import { z } from 'zod';
import {
  type PgBoss as Boss,
  defineJob,
  ensureQueues,
  type JobWorkers,
  sendOptions,
} from '../../lib/queue.ts';
import type { AppContext } from '../../server/context.ts';
import { expireCorrelations } from './oob-repo.ts';

/**
 * `oob-expire`: deletes correlations past their expiry (PERIMETER_OOB_RETENTION_HOURS) with their
 * interactions, every 15 minutes on one worker. An expired correlation stops accepting call-backs
 * at once (the recorder checks `expires_at`); the job only reclaims the rows.
 */
export const OOB_EXPIRE_QUEUE = 'oob-expire';
const CRON = '*/15 * * * *';
export const oobExpireJob = defineJob(OOB_EXPIRE_QUEUE, z.object({}), {
  retryLimit: 2,
  retryDelay: 60,
  retryBackoff: true,
  expireInSeconds: 600,
  queuePolicy: 'singleton',
});

export async function expireOob(ctx: AppContext): Promise<number> {
  const gone = await expireCorrelations(ctx.db);
  if (gone) ctx.logger.info({ correlations: gone }, 'oob: expired correlations deleted');
  return gone;
}

export async function registerOobJobs(ctx: AppContext, boss: Boss): Promise<JobWorkers> {
  await ensureQueues(ctx.database.pool, boss, [oobExpireJob]);
  await boss.schedule(OOB_EXPIRE_QUEUE, CRON, {}, { tz: 'UTC', ...sendOptions(oobExpireJob.policy) });
  return oobExpireJob.work(boss, ctx.logger, async () => void (await expireOob(ctx)), { pollMs: 5000 });
}
