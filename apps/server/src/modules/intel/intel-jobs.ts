import os from 'node:os';
import cronParser from 'cron-parser';
import { z } from 'zod';
import {
  type PgBoss as Boss,
  defineJob,
  ensureQueues,
  type JobWorkers,
  sendOptions,
} from '../../lib/queue.ts';
import type { AppContext } from '../../server/context.ts';
import { enabledSources, INTEL_SOURCES, isSyncScheduled } from './intel-fns.ts';
import * as repo from './intel-repo.ts';
import { syncSources } from './intel-service.ts';
import type { SyncResult } from './intel-sync.ts';

/**
 * `intel-sync`: one job syncs every enabled source. The queue's `singleton` policy keeps one job
 * active across workers, and each source's lease guards against the CLI running at the same
 * time. A job that dies mid-run is retried after its lease; every source resumes from its cursor.
 */
export const INTEL_QUEUE = 'intel-sync';
export const ZIntelJob = z.object({ sources: z.array(z.enum(INTEL_SOURCES)).optional() });
const intelJob = defineJob(INTEL_QUEUE, ZIntelJob, {
  retryLimit: 2,
  retryDelay: 600,
  retryBackoff: true,
  expireInSeconds: 6 * 3600,
  queuePolicy: 'singleton',
});

/** The next time the cron fires (UTC), for `intel status`. */
export function nextCronRun(cron: string, from = new Date()): Date | null {
  try {
    return cronParser.parseExpression(cron, { currentDate: from, tz: 'UTC' }).next().toDate();
  } catch {
    return null;
  }
}

/** One log line per run, whatever happened: a machine without Internet access gets one warning, not a flood. */
export function runSummary(results: SyncResult[]): { level: 'info' | 'warn'; line: string } {
  const failed = results.filter((r) => r.status === 'failed');
  const parts = results.map((r) =>
    r.status === 'failed' ? r.error : `${r.source} ${r.status} (${r.records} records)`,
  );
  if (failed.length === 0)
    return { level: 'info', line: `vulnerability intelligence synced: ${parts.join('; ')}` };
  return {
    level: 'warn',
    line: `vulnerability intelligence sync incomplete: ${parts.join('; ')} — the data already loaded is kept and the next run resumes (intel status shows each source; air-gapped sites use intel export / cve import)`,
  };
}

export async function registerIntelJobs(ctx: AppContext, boss: Boss): Promise<JobWorkers | undefined> {
  const env = ctx.config.env;
  const sources = enabledSources(env.INTEL_SOURCES);
  await ensureQueues(ctx.database.pool, boss, [intelJob]);
  if (!isSyncScheduled(env) || sources.length === 0) {
    await boss.unschedule(INTEL_QUEUE);
    ctx.logger.info(
      'vulnerability intelligence sync is off (INTEL_SYNC / INTEL_SOURCES); `npm run cli -- intel sync` runs it by hand',
    );
    return undefined;
  }
  const owner = `worker:${os.hostname()}:${process.pid}`;
  await boss.schedule(INTEL_QUEUE, env.INTEL_SYNC_CRON, {}, { tz: 'UTC', ...sendOptions(intelJob.policy) });
  const workers = intelJob.work(
    boss,
    ctx.logger,
    async ({ sources: asked }) => {
      const results = await syncSources(ctx, asked ?? sources, { owner });
      const { level, line } = runSummary(results);
      ctx.logger[level](line);
    },
    { pollMs: 5000 },
  );
  // A fresh installation syncs at once instead of waiting for the schedule.
  const rows = new Map((await repo.sourceRows(ctx.db)).map((r) => [r.source, r]));
  const never = sources.filter((s) => !rows.get(s)?.lastSuccessAt);
  if (never.length)
    await intelJob.enqueue(
      (text, values) => ctx.database.pool.query(text, values),
      { sources: never },
      {
        singletonKey: 'intel-first-sync',
      },
    );
  ctx.logger.info(
    { sources, cron: env.INTEL_SYNC_CRON, firstSync: never },
    'vulnerability intelligence sync scheduled',
  );
  return workers;
}
