import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { scanSchedules, scans, scanTargets, targetEvents, targets, users } from '../../db/schema/index.ts';

export type TargetRow = typeof targets.$inferSelect;
export type NewTargetRow = typeof targets.$inferInsert;

export async function insertTargets(db: DbOrTx, rows: NewTargetRow[]): Promise<TargetRow[]> {
  return db.insert(targets).values(rows).returning();
}

/** Live (not disabled) targets of the user with one of these values, for duplicate checks. */
export async function findLiveByValues(
  db: DbOrTx,
  userId: string,
  values: { targetType: string; value: string }[],
): Promise<TargetRow[]> {
  if (values.length === 0) return [];
  return db
    .select()
    .from(targets)
    .where(
      and(
        eq(targets.userId, userId),
        eq(targets.disabled, false),
        inArray(
          targets.value,
          values.map((v) => v.value),
        ),
      ),
    );
}

export async function listTargets(
  db: DbOrTx,
  userId: string,
  types: string[],
  disabled: boolean,
): Promise<TargetRow[]> {
  return (
    db
      .select()
      .from(targets)
      .where(
        and(eq(targets.userId, userId), inArray(targets.targetType, types), eq(targets.disabled, disabled)),
      )
      // Targets added in one request share created_at: the value keeps the order stable.
      .orderBy(targets.createdAt, targets.value)
  );
}

/** The user's target, or undefined (another user's id looks the same as a missing one). */
export async function getTarget(
  db: DbOrTx,
  userId: string,
  id: string,
  targetType?: string,
): Promise<TargetRow | undefined> {
  const [row] = await db
    .select()
    .from(targets)
    .where(
      and(
        eq(targets.userId, userId),
        eq(targets.id, id),
        targetType ? eq(targets.targetType, targetType) : undefined,
      ),
    );
  return row;
}

export async function getTargetsByIds(db: DbOrTx, userId: string, ids: string[]): Promise<TargetRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(targets)
    .where(and(eq(targets.userId, userId), inArray(targets.id, ids)));
}

/**
 * What a user's live targets use of the plan: domain targets (each counts as a domain), those of
 * them below their registrable domain (subdomain targets), external IPs.
 */
export async function countLive(
  db: DbOrTx,
  userId: string,
): Promise<{ domains: number; subdomains: number; ips: number }> {
  const [row] = await db
    .select({
      domains: sql<number>`count(*) filter (where ${targets.targetType} = 'domain')::int`,
      subdomains: sql<number>`count(*) filter (where ${targets.targetType} = 'domain' and ${targets.value} <> ${targets.mainDomain})::int`,
      ips: sql<number>`coalesce(sum(${targets.ipCount}), 0)::int`,
    })
    .from(targets)
    .where(and(eq(targets.userId, userId), eq(targets.disabled, false)));
  return { domains: row?.domains ?? 0, subdomains: row?.subdomains ?? 0, ips: row?.ips ?? 0 };
}

export async function recordVerification(
  db: DbOrTx,
  id: string,
  verified: boolean,
  detail: string,
): Promise<TargetRow | undefined> {
  const now = new Date();
  const [row] = await db
    .update(targets)
    .set({
      verified,
      verifiedAt: verified ? now : null,
      lastCheckAt: now,
      lastCheckDetail: detail,
      updatedAt: now,
    })
    .where(eq(targets.id, id))
    .returning();
  return row;
}

/** Disables a target (it keeps its scans) or enables it again, unverified: the proof is checked anew. */
export async function setDisabled(db: DbOrTx, id: string, disabled = true): Promise<TargetRow | undefined> {
  const [row] = await db
    .update(targets)
    .set({ disabled, verified: false, verifiedAt: null, updatedAt: new Date() })
    .where(eq(targets.id, id))
    .returning();
  return row;
}

export type TargetEventRow = typeof targetEvents.$inferSelect;

export async function insertTargetEvents(
  db: DbOrTx,
  rows: Omit<typeof targetEvents.$inferInsert, 'id'>[],
): Promise<void> {
  if (rows.length > 0) await db.insert(targetEvents).values(rows);
}

/** The history of one of the user's targets, newest first. */
export async function listTargetEvents(
  db: DbOrTx,
  userId: string,
  targetId: string,
  limit = 50,
): Promise<TargetEventRow[]> {
  return db
    .select()
    .from(targetEvents)
    .where(and(eq(targetEvents.userId, userId), eq(targetEvents.targetId, targetId)))
    .orderBy(desc(targetEvents.createdAt), desc(targetEvents.id))
    .limit(limit);
}

export interface TargetScanInfo {
  targetId: string;
  scanId: string;
  status: string;
  createdAt: Date;
  finishedAt: Date | null;
}

/** The latest scan of each target. */
export async function lastScans(db: DbOrTx, userId: string, targetIds: string[]): Promise<TargetScanInfo[]> {
  if (targetIds.length === 0) return [];
  return db
    .selectDistinctOn([scanTargets.targetId], {
      targetId: scanTargets.targetId,
      scanId: scans.id,
      status: scans.status,
      createdAt: scans.createdAt,
      finishedAt: scans.finishedAt,
    })
    .from(scanTargets)
    .innerJoin(scans, eq(scans.id, scanTargets.scanId))
    .where(and(eq(scans.userId, userId), inArray(scanTargets.targetId, targetIds)))
    .orderBy(scanTargets.targetId, desc(scans.createdAt));
}

/** Open (unresolved, not fixed) findings by target and severity, across the three subclasses. */
export async function openFindingCounts(
  db: DbOrTx,
  userId: string,
): Promise<{ targetId: string; severity: string; n: number }[]> {
  const result = await db.execute<{ target_id: string; severity: string; n: number }>(sql`
    select target_id, severity, count(*)::int as n from (
      select target_id, severity from findings_exploit_scanner where user_id = ${userId} and not resolved and status <> 'fixed'
      union all
      select target_id, severity from findings_exploit_db where user_id = ${userId} and not resolved and status <> 'fixed'
      union all
      select target_id, severity from findings_leakcheck where user_id = ${userId} and not resolved and status <> 'fixed'
    ) f group by target_id, severity`);
  return result.rows.map((r) => ({ targetId: r.target_id, severity: r.severity, n: r.n }));
}

export async function getUserPlan(db: DbOrTx, userId: string): Promise<string> {
  const [row] = await db.select({ plan: users.plan }).from(users).where(eq(users.id, userId));
  return row?.plan ?? 'trial_scan';
}

export interface TargetScheduleRow {
  targetIds: string[];
  days: number[];
  startTime: string;
  tz: string;
}

/** The user's enabled scan schedules that include any of these targets (for `periodicity`). */
export async function enabledSchedulesOf(
  db: DbOrTx,
  userId: string,
  targetIds: string[],
): Promise<TargetScheduleRow[]> {
  if (targetIds.length === 0) return [];
  return db
    .select({
      targetIds: scanSchedules.targetIds,
      days: scanSchedules.days,
      startTime: scanSchedules.startTime,
      tz: scanSchedules.tz,
    })
    .from(scanSchedules)
    .where(
      and(
        eq(scanSchedules.userId, userId),
        eq(scanSchedules.enabled, true),
        sql`${scanSchedules.targetIds} && ${sql.param(targetIds)}::text[]`,
      ),
    )
    .orderBy(scanSchedules.createdAt, scanSchedules.id);
}

export interface TargetAssetsRow {
  targetId: string;
  scanId: string;
  hosts: number;
  subdomains: number;
  ips: number;
  ports: number[];
  technologies: string[];
}

/** The scope summary of each target's latest done scan (a scan of several targets counts for each). */
export async function latestScopeSummaries(
  db: DbOrTx,
  userId: string,
  targetIds: string[],
): Promise<TargetAssetsRow[]> {
  if (targetIds.length === 0) return [];
  const result = await db.execute<{
    target_id: string;
    scan_id: string;
    hosts: number;
    subdomains: number;
    ips: number;
    ports: number[];
    technologies: string[];
  }>(sql`
    with latest as (
      select distinct on (st.target_id) st.target_id, s.id as scan_id
      from scan_targets st join scans s on s.id = st.scan_id
      where s.user_id = ${userId} and s.status = 'done' and st.target_id = any(${sql.param(targetIds)}::uuid[])
      order by st.target_id, s.finished_at desc nulls last, s.created_at desc
    )
    select l.target_id, l.scan_id,
      (select count(*) from scan_scope x where x.scan_id = l.scan_id)::int as hosts,
      (select count(*) from scan_scope x where x.scan_id = l.scan_id and x.kind = 'subdomain')::int as subdomains,
      (select count(distinct ip) from scan_scope x, unnest(x.ip_addresses) ip where x.scan_id = l.scan_id)::int as ips,
      (select coalesce(array_agg(distinct p order by p), '{}') from scan_scope x, unnest(x.opened_ports) p
        where x.scan_id = l.scan_id) as ports,
      (select coalesce(array_agg(distinct t->>'name' order by t->>'name'), '{}')
        from scan_scope x, jsonb_array_elements(x.technologies) t where x.scan_id = l.scan_id) as technologies
    from latest l`);
  return result.rows.map((r) => ({
    targetId: r.target_id,
    scanId: r.scan_id,
    hosts: r.hosts,
    subdomains: r.subdomains,
    ips: r.ips,
    ports: r.ports,
    technologies: r.technologies,
  }));
}

/** The values of a user's verified, enabled peer and network targets: the addresses they proved. */
export async function verifiedAddressTargets(db: DbOrTx, userId: string): Promise<string[]> {
  const rows = await db
    .select({ value: targets.value })
    .from(targets)
    .where(
      and(
        eq(targets.userId, userId),
        eq(targets.verified, true),
        eq(targets.disabled, false),
        inArray(targets.targetType, ['peer', 'network']),
      ),
    );
  return rows.map((r) => r.value);
}
