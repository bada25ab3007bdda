import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { scans } from '../../db/schema/index.ts';
import { scanMessage } from '../../lib/scan-messages.ts';

// Scans whose worker is gone: what the stale-scan check (scans-jobs.ts, reapStaleScans) claims.

/**
 * Claims running scans whose worker went silent (one claimer wins) and puts them back to
 * pending, so their jobs can be failed and retried elsewhere.
 */
export async function claimStaleScans(
  db: DbOrTx,
  silentSeconds: number,
): Promise<{ id: string; jobId: string | null }[]> {
  return db
    .update(scans)
    .set({
      status: 'pending',
      heartbeatAt: sql`now()`,
      message: scanMessage('worker_lost'),
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(scans.status, 'running'),
        sql`${scans.heartbeatAt} < now() - make_interval(secs => ${silentSeconds})`,
      ),
    )
    .returning({ id: scans.id, jobId: scans.jobId });
}

/**
 * Claims pending scans whose job a worker fetched (active) more than `silentSeconds` ago without
 * taking the scan — a live worker takes it at once, so that worker died in between; nothing else
 * would hand the job back before its lease runs out. One claimer wins (the update stamps the scan).
 */
export async function claimUntakenScans(
  db: DbOrTx,
  silentSeconds: number,
): Promise<{ id: string; jobId: string | null }[]> {
  return db
    .update(scans)
    .set({ heartbeatAt: sql`now()`, message: scanMessage('worker_lost'), updatedAt: sql`now()` })
    .where(
      and(
        eq(scans.status, 'pending'),
        sql`${scans.updatedAt} < now() - make_interval(secs => ${silentSeconds})`,
        sql`exists (select 1 from pgboss.job j where j.name = 'scan-run' and j.id = ${scans.jobId}::uuid
          and j.state = 'active' and j.started_on < now() - make_interval(secs => ${silentSeconds}))`,
      ),
    )
    .returning({ id: scans.id, jobId: scans.jobId });
}

/**
 * Scans still pending or running whose pg-boss job has ended (failed by its lease, cancelled,
 * completed or archived) for longer than `graceSeconds`: nothing will run them any more.
 */
export async function scansWithEndedJobs(db: DbOrTx, graceSeconds: number): Promise<{ id: string }[]> {
  const result = await db.execute<{ id: string }>(sql`
    select s.id from ${scans} s
    where s.status in ('pending', 'running') and s.job_id is not null
      and s.updated_at < now() - make_interval(secs => ${graceSeconds})
      and not exists (
        select 1 from pgboss.job j
        where j.name = 'scan-run' and j.id = s.job_id::uuid and j.state < 'completed'
      )`);
  return result.rows;
}
