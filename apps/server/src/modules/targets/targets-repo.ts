import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { scanSchedules, scans, scanTargets, targets, users } from '../../db/schema/index.ts';

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

/** Live domains and external addresses the user holds (plan limits). */
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

export async function setDisabled(db: DbOrTx, id: string): Promise<TargetRow | undefined> {
  const [row] = await db
    .update(targets)
    .set({ disabled: true, verified: false, verifiedAt: null, updatedAt: new Date() })
    .where(eq(targets.id, id))
    .returning();
  return row;
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
