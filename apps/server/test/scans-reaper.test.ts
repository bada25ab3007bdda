import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.ts';
import { ensureQueues, type PgBoss, startQueue } from '../src/lib/queue.ts';
import { enqueueScanJob, reapStaleScans, SCAN_QUEUE, scanJob } from '../src/modules/scans/scans-jobs.ts';
import { useTestApp } from './support/app.ts';
import { seedScan, seedTarget } from './support/findings-seed.ts';
import { signUp } from './support/scan-lab.ts';

/**
 * A worker can die after pg-boss handed it a scan's job and before it took the scan: the job stays
 * active until its lease runs out (an hour by default) while the scan waits, pending. The stale-scan
 * check hands such a job back for a retry as soon as the scan has been silent for the heartbeat
 * time-out — with no worker process killed, so the order of events is the test's, not the machine's.
 */
const ctx = useTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
let boss: PgBoss;
let userId: string;

beforeAll(async () => {
  const { database, config } = ctx.t.runtime.ctx;
  boss = await startQueue(ctx.t.databaseUrl, createLogger('silent'));
  await ensureQueues(database.pool, boss, [scanJob(config.env)]);
  ({ userId } = await signUp(ctx.t, 'business'));
});
afterAll(async () => boss?.stop({ graceful: false, wait: true }));

/** A pending scan with its job queued, as starting a scan leaves it (no worker runs in this file). */
async function pendingScan(domain: string): Promise<{ scanId: string; jobId: string }> {
  const { db, config } = ctx.t.runtime.ctx;
  const target = await seedTarget(db, userId, domain);
  const scan = await seedScan(db, userId, target.id, new Date(), 'pending');
  const jobId = await enqueueScanJob(config.env, (text, values) => ctx.sql.query(text, values), scan.id);
  await ctx.sql.query('update scans set job_id = $2 where id = $1', [scan.id, jobId]);
  return { scanId: scan.id, jobId };
}

/** A dead worker: fetches the job (pg-boss marks it active) and never takes the scan. */
async function fetchAndDie(jobId: string, silentFor: number): Promise<void> {
  const jobs = await boss.fetch(SCAN_QUEUE, { batchSize: 10 });
  expect(jobs.map((j) => j.id)).toContain(jobId);
  await ctx.sql.query(`update pgboss.job set started_on = now() - make_interval(secs => $2) where id = $1`, [
    jobId,
    silentFor,
  ]);
  await ctx.sql.query(`update scans set updated_at = now() - make_interval(secs => $2) where job_id = $1`, [
    jobId,
    silentFor,
  ]);
}

const jobState = async (jobId: string) =>
  (await ctx.sql.query<{ state: string }>('select state from pgboss.job where id = $1', [jobId])).rows[0]
    ?.state;

const scanRow = async (scanId: string) =>
  (
    await ctx.sql.query<{ status: string; attempts: number; message: string }>(
      'select status, attempts, message from scans where id = $1',
      [scanId],
    )
  ).rows[0];

it('hands back the job of a scan a worker fetched and never took, once the scan was silent long enough', async () => {
  const lost = await pendingScan('lost.reaper.example.com');
  await fetchAndDie(lost.jobId, 30);
  expect(await jobState(lost.jobId)).toBe('active');

  expect(await reapStaleScans(ctx.t.runtime.ctx, boss, 5)).toBe(1);
  expect(await jobState(lost.jobId)).toBe('retry');
  const row = await scanRow(lost.scanId);
  expect(row?.status).toBe('pending');
  expect(row?.attempts).toBe(0);
  expect(row?.message).toContain('stopped answering');

  // Claimed once: the next check leaves it to the retry.
  expect(await reapStaleScans(ctx.t.runtime.ctx, boss, 5)).toBe(0);
  expect(await jobState(lost.jobId)).toBe('retry');
});

it('leaves alone a job fetched moments ago, and a pending scan whose job no worker has fetched', async () => {
  const fresh = await pendingScan('fresh.reaper.example.com');
  await fetchAndDie(fresh.jobId, 0);
  const queued = await pendingScan('queued.reaper.example.com');
  await ctx.sql.query(`update scans set updated_at = now() - interval '10 minutes' where id = $1`, [
    queued.scanId,
  ]);

  expect(await reapStaleScans(ctx.t.runtime.ctx, boss, 5)).toBe(0);
  expect(await jobState(fresh.jobId)).toBe('active');
  expect((await scanRow(fresh.scanId))?.status).toBe('pending');
  expect(await jobState(queued.jobId)).toBe('created');
});
