import { and, asc, eq, gte, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { scans, scanTargets, targets, users } from '../../db/schema/index.ts';

/** Open = not fixed and not marked resolved. The three finding tables as one relation. */
const openFindings = (userId: string) => sql`(
  select target_id, host, severity from findings_exploit_scanner where user_id = ${userId} and status <> 'fixed' and not resolved
  union all
  select target_id, host, severity from findings_exploit_db where user_id = ${userId} and status <> 'fixed' and not resolved
  union all
  select target_id, main_domain as host, severity from findings_leakcheck where user_id = ${userId} and status <> 'fixed' and not resolved
) f`;

export async function userTz(db: DbOrTx, userId: string): Promise<string> {
  const [row] = await db.select({ tz: users.tz }).from(users).where(eq(users.id, userId));
  return row?.tz ?? 'UTC';
}

export async function targetRows(db: DbOrTx, userId: string) {
  return db.select().from(targets).where(eq(targets.userId, userId)).orderBy(asc(targets.createdAt));
}

export async function scansByStatus(db: DbOrTx, userId: string) {
  return db
    .select({
      status: scans.status,
      n: sql<number>`count(*)::int`,
      last: sql<Date | null>`max(${scans.createdAt})`,
    })
    .from(scans)
    .where(eq(scans.userId, userId))
    .groupBy(scans.status);
}

export async function openBySeverity(db: DbOrTx, userId: string) {
  const { rows } = await db.execute<{ severity: string; n: number }>(
    sql`select severity, count(*)::int as n from ${openFindings(userId)} group by severity`,
  );
  return rows;
}

export async function openByTarget(db: DbOrTx, userId: string) {
  const { rows } = await db.execute<{ target_id: string; severity: string; n: number }>(
    sql`select target_id, severity, count(*)::int as n from ${openFindings(userId)} group by target_id, severity`,
  );
  return rows;
}

export async function openByHost(db: DbOrTx, userId: string) {
  const { rows } = await db.execute<{ host: string; severity: string; n: number }>(
    sql`select host, severity, count(*)::int as n from ${openFindings(userId)} group by host, severity`,
  );
  return rows;
}

/** Findings first seen / fixed per local day since `since`. */
export async function newAndFixedPerDay(db: DbOrTx, userId: string, tz: string, since: Date) {
  const { rows } = await db.execute<{ day: string; kind: 'new' | 'fixed'; n: number }>(sql`
    select to_char(day, 'YYYY-MM-DD') as day, kind, count(*)::int as n from (
      select (first_seen at time zone ${tz})::date as day, 'new' as kind from findings_exploit_scanner where user_id = ${userId} and first_seen >= ${since}
      union all select (first_seen at time zone ${tz})::date, 'new' from findings_exploit_db where user_id = ${userId} and first_seen >= ${since}
      union all select (first_seen at time zone ${tz})::date, 'new' from findings_leakcheck where user_id = ${userId} and first_seen >= ${since}
      union all select (fixed_at at time zone ${tz})::date, 'fixed' from findings_exploit_scanner where user_id = ${userId} and fixed_at >= ${since}
      union all select (fixed_at at time zone ${tz})::date, 'fixed' from findings_exploit_db where user_id = ${userId} and fixed_at >= ${since}
      union all select (fixed_at at time zone ${tz})::date, 'fixed' from findings_leakcheck where user_id = ${userId} and fixed_at >= ${since}
    ) x group by day, kind`);
  return rows;
}

/** Finished scans of the user's targets since `since`, one row per (scan, target). */
export async function finishedScansOfTargets(db: DbOrTx, userId: string, since: Date, targetId?: string) {
  return db
    .select({ scanId: scans.id, targetId: scanTargets.targetId, finishedAt: scans.finishedAt })
    .from(scans)
    .innerJoin(scanTargets, eq(scanTargets.scanId, scans.id))
    .where(
      and(
        eq(scans.userId, userId),
        eq(scans.status, 'done'),
        gte(scans.finishedAt, since),
        targetId ? eq(scanTargets.targetId, targetId) : undefined,
      ),
    )
    .orderBy(asc(scans.finishedAt));
}

/** Per (scan, target): findings that scan saw by severity, how many were new, and how many it found fixed. */
export async function perScanTargetCounts(db: DbOrTx, userId: string, since: Date) {
  const { rows } = await db.execute<{
    scan_id: string;
    target_id: string;
    severity: string;
    seen: number;
    fresh: number;
  }>(sql`
    select s.scan_id, f.target_id, f.severity, count(*)::int as seen,
           count(*) filter (where s.change in ('new', 'regressed'))::int as fresh
    from finding_sightings s
    join scans sc on sc.id = s.scan_id and sc.user_id = ${userId} and sc.status = 'done' and sc.finished_at >= ${since}
    join (
      select id, target_id, severity from findings_exploit_scanner where user_id = ${userId}
      union all select id, target_id, severity from findings_exploit_db where user_id = ${userId}
      union all select id, target_id, severity from findings_leakcheck where user_id = ${userId}
    ) f on f.id = s.finding_id
    where s.user_id = ${userId}
    group by s.scan_id, f.target_id, f.severity`);
  const fixed = await db.execute<{ scan_id: string; target_id: string; n: number }>(sql`
    select fixed_scan_id as scan_id, target_id, count(*)::int as n from (
      select fixed_scan_id, target_id from findings_exploit_scanner where user_id = ${userId} and fixed_scan_id is not null and fixed_at >= ${since}
      union all select fixed_scan_id, target_id from findings_exploit_db where user_id = ${userId} and fixed_scan_id is not null and fixed_at >= ${since}
      union all select fixed_scan_id, target_id from findings_leakcheck where user_id = ${userId} and fixed_scan_id is not null and fixed_at >= ${since}
    ) x group by fixed_scan_id, target_id`);
  return { seen: rows, fixed: fixed.rows };
}
