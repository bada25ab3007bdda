import { and, asc, eq, gte, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { scans, scanTargets, targets, users } from '../../db/schema/index.ts';

/**
 * A CVE's weight in the risk score (docs/risk-score.md): known exploited (CISA KEV) counts as
 * critical; an EPSS of 0.5 or more counts at least as high.
 */
const effectiveCveSeverity = sql.raw(`case
    when kev then 'critical'
    when epss_score >= 0.5 and severity in ('medium', 'low', 'unknown', 'info', 'informational') then 'high'
    else severity end as severity`);

/** Open = not fixed and not marked resolved. The three finding tables as one relation. */
const openFindings = (userId: string) => sql`(
  select target_id, host, severity from findings_exploit_scanner where user_id = ${userId} and status <> 'fixed' and not resolved
  union all
  select target_id, host, ${effectiveCveSeverity} from findings_exploit_db where user_id = ${userId} and status <> 'fixed' and not resolved
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

/** `target_id in (…)`; callers return early on an empty list. */
const inTargets = (ids: readonly string[]) =>
  sql`target_id in (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;

/** Findings of the targets first seen / fixed per local day since `since`. */
export async function newAndFixedPerDayOf(
  db: DbOrTx,
  userId: string,
  targetIds: readonly string[],
  tz: string,
  since: Date,
) {
  if (targetIds.length === 0) return [];
  const of = inTargets(targetIds);
  const { rows } = await db.execute<{ day: string; kind: 'new' | 'fixed'; n: number }>(sql`
    select to_char(day, 'YYYY-MM-DD') as day, kind, count(*)::int as n from (
      select (first_seen at time zone ${tz})::date as day, 'new' as kind from findings_exploit_scanner where user_id = ${userId} and ${of} and first_seen >= ${since}
      union all select (first_seen at time zone ${tz})::date, 'new' from findings_exploit_db where user_id = ${userId} and ${of} and first_seen >= ${since}
      union all select (first_seen at time zone ${tz})::date, 'new' from findings_leakcheck where user_id = ${userId} and ${of} and first_seen >= ${since}
      union all select (fixed_at at time zone ${tz})::date, 'fixed' from findings_exploit_scanner where user_id = ${userId} and ${of} and fixed_at >= ${since}
      union all select (fixed_at at time zone ${tz})::date, 'fixed' from findings_exploit_db where user_id = ${userId} and ${of} and fixed_at >= ${since}
      union all select (fixed_at at time zone ${tz})::date, 'fixed' from findings_leakcheck where user_id = ${userId} and ${of} and fixed_at >= ${since}
    ) x group by day, kind`);
  return rows;
}

/** Findings of the targets seen (or fixed) since `since`, per subclass and severity. */
export async function findingsByClass(db: DbOrTx, userId: string, targetIds: readonly string[], since: Date) {
  if (targetIds.length === 0) return [];
  const of = inTargets(targetIds);
  const active = sql`(last_seen >= ${since} or fixed_at >= ${since})`;
  const { rows } = await db.execute<{ subclass: string; severity: string; n: number }>(sql`
    select 'exploit_scanner' as subclass, severity, count(*)::int as n from findings_exploit_scanner where user_id = ${userId} and ${of} and ${active} group by severity
    union all select 'exploit_db', severity, count(*)::int from findings_exploit_db where user_id = ${userId} and ${of} and ${active} group by severity
    union all select 'leakcheck', severity, count(*)::int from findings_leakcheck where user_id = ${userId} and ${of} and ${active} group by severity`);
  return rows;
}

/** Leaked credentials of the targets seen (or fixed) since `since`, per source, most first. */
export async function leaksBySource(
  db: DbOrTx,
  userId: string,
  targetIds: readonly string[],
  since: Date,
  limit: number,
) {
  if (targetIds.length === 0) return [];
  const { rows } = await db.execute<{ source: string; leaks: number }>(sql`
    select src as source, count(*)::int as leaks
    from findings_leakcheck cross join lateral unnest(sources) as src
    where user_id = ${userId} and ${inTargets(targetIds)} and (last_seen >= ${since} or fixed_at >= ${since})
    group by src order by leaks desc, src limit ${limit}`);
  return rows;
}

/** `scan_id in (…)` of scans already checked to be the user's. */
const inScans = (ids: readonly string[]) =>
  sql`s.scan_id in (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;

/** Host names of the scans' scope running each technology, most first. */
export async function technologiesOfScans(
  db: DbOrTx,
  userId: string,
  scanIds: readonly string[],
  limit: number,
) {
  if (scanIds.length === 0) return [];
  const { rows } = await db.execute<{ name: string; hosts: number }>(sql`
    select tech->>'name' as name, count(distinct s.name)::int as hosts
    from scan_scope s
    join scans sc on sc.id = s.scan_id and sc.user_id = ${userId}
    cross join lateral jsonb_array_elements(s.technologies) as tech
    where ${inScans(scanIds)} and coalesce(tech->>'name', '') <> ''
    group by 1 order by hosts desc, name limit ${limit}`);
  return rows;
}

/**
 * Hosts of the scans' scope with each port open, most first. A host is an address: its names and
 * its own row share one open port, so the port counts once per host:port.
 */
export async function portsOfScans(db: DbOrTx, userId: string, scanIds: readonly string[], limit: number) {
  if (scanIds.length === 0) return [];
  const { rows } = await db.execute<{ port: number; hosts: number }>(sql`
    select p as port, count(distinct coalesce(ip, s.name))::int as hosts
    from scan_scope s
    join scans sc on sc.id = s.scan_id and sc.user_id = ${userId}
    cross join lateral unnest(s.opened_ports) as p
    left join lateral unnest(s.ip_addresses) as ip on true
    where ${inScans(scanIds)}
    group by p order by hosts desc, p limit ${limit}`);
  return rows;
}
