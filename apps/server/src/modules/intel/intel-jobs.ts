import os from 'node:os';
import cronParser from 'cron-parser';
import { z } from 'zod';
import type { PgBoss as Boss } from '../../lib/queue.ts';
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
const policy = { retryLimit: 2, retryDelay: 600, retryBackoff: true, expireInSeconds: 6 * 3600 };

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

export async function registerIntelJobs(ctx: AppContext, boss: Boss): Promise<void> {
  const env = ctx.config.env;
  const sources = enabledSources(env.INTEL_SOURCES);
  if (!(await boss.getQueue(INTEL_QUEUE)))
    await boss.createQueue(INTEL_QUEUE, { name: INTEL_QUEUE, policy: 'singleton', ...policy });
  if (!isSyncScheduled(env) || sources.length === 0) {
    await boss.unschedule(INTEL_QUEUE);
    ctx.logger.info(
      'vulnerability intelligence sync is off (INTEL_SYNC / INTEL_SOURCES); `npm run cli -- intel sync` runs it by hand',
    );
    return;
  }
  const owner = `worker:${os.hostname()}:${process.pid}`;
  await boss.schedule(INTEL_QUEUE, env.INTEL_SYNC_CRON, {}, { tz: 'UTC', ...policy });
  await boss.work(INTEL_QUEUE, { batchSize: 1, pollingIntervalSeconds: 5 }, async ([job]) => {
    if (!job) return;
    const { sources: asked } = ZIntelJob.parse(job.data ?? {});
    const results = await syncSources(ctx, asked ?? sources, { owner });
    const { level, line } = runSummary(results);
    ctx.logger[level](line);
  });
  // A fresh installation syncs at once instead of waiting for the schedule.
  const rows = new Map((await repo.sourceRows(ctx.db)).map((r) => [r.source, r]));
  const never = sources.filter((s) => !rows.get(s)?.lastSuccessAt);
  if (never.length)
    await boss.send(INTEL_QUEUE, { sources: never }, { ...policy, singletonKey: 'intel-first-sync' });
  ctx.logger.info(
    { sources, cron: env.INTEL_SYNC_CRON, firstSync: never },
    'vulnerability intelligence sync scheduled',
  );
}
