import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { scanScheduleRuns, scanSchedules, targets, users } from '../../db/schema/index.ts';

export type ScheduleRow = typeof scanSchedules.$inferSelect;
export type NewScheduleRow = typeof scanSchedules.$inferInsert;
export type ScheduleRunRow = typeof scanScheduleRuns.$inferSelect;

export async function userTimeZone(db: DbOrTx, userId: string): Promise<string | null> {
  const [row] = await db.select({ tz: users.tz }).from(users).where(eq(users.id, userId));
  return row?.tz ?? null;
}

export async function insertSchedule(db: DbOrTx, row: NewScheduleRow): Promise<ScheduleRow> {
  const [inserted] = await db.insert(scanSchedules).values(row).returning();
  return inserted!;
}

export async function listSchedules(db: DbOrTx, userId: string): Promise<ScheduleRow[]> {
  return db
    .select()
    .from(scanSchedules)
    .where(eq(scanSchedules.userId, userId))
    .orderBy(asc(scanSchedules.createdAt), asc(scanSchedules.id));
}

export async function findSchedule(db: DbOrTx, userId: string, id: string): Promise<ScheduleRow | undefined> {
  const [row] = await db
    .select()
    .from(scanSchedules)
    .where(and(eq(scanSchedules.id, id), eq(scanSchedules.userId, userId)));
  return row;
}

export async function updateSchedule(
  db: DbOrTx,
  userId: string,
  id: string,
  patch: Partial<NewScheduleRow>,
): Promise<ScheduleRow | undefined> {
  const [row] = await db
    .update(scanSchedules)
    .set({ ...patch, updatedAt: new Date() })
    .where(and(eq(scanSchedules.id, id), eq(scanSchedules.userId, userId)))
    .returning();
  return row;
}

export async function deleteSchedule(db: DbOrTx, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(scanSchedules)
    .where(and(eq(scanSchedules.id, id), eq(scanSchedules.userId, userId)))
    .returning({ id: scanSchedules.id });
  return rows.length > 0;
}

/**
 * Due schedules, locked for this transaction. SKIP LOCKED lets several scheduler processes tick at
 * once: each row is handled by exactly one of them, and the others move on.
 */
export async function lockDueSchedules(db: DbOrTx, now: Date, limit: number): Promise<ScheduleRow[]> {
  return db
    .select()
    .from(scanSchedules)
    .where(
      and(
        eq(scanSchedules.enabled, true),
        isNotNull(scanSchedules.nextRunAt),
        lte(scanSchedules.nextRunAt, now),
      ),
    )
    .orderBy(asc(scanSchedules.nextRunAt))
    .limit(limit)
    .for('update', { skipLocked: true });
}

/** Claims (schedule, due instant); undefined when that run already exists. */
export async function claimRun(
  db: DbOrTx,
  row: { scheduleId: string; userId: string; dueAt: Date; status: string },
): Promise<ScheduleRunRow | undefined> {
  const [inserted] = await db
    .insert(scanScheduleRuns)
    .values(row)
    .onConflictDoNothing({ target: [scanScheduleRuns.scheduleId, scanScheduleRuns.dueAt] })
    .returning();
  return inserted;
}

export async function finishRun(
  db: DbOrTx,
  id: string,
  patch: { status: string; scanId?: string | null; error?: string | null },
): Promise<void> {
  await db.update(scanScheduleRuns).set(patch).where(eq(scanScheduleRuns.id, id));
}

export async function advanceSchedule(db: DbOrTx, id: string, nextRunAt: Date | null, lastRunAt: Date) {
  await db
    .update(scanSchedules)
    .set({ nextRunAt, lastRunAt, updatedAt: sql`now()` })
    .where(eq(scanSchedules.id, id));
}

/** The user's live targets among `ids`, with their type. */
export async function ownedTargetTypes(
  db: DbOrTx,
  userId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: targets.id, type: targets.targetType })
    .from(targets)
    .where(and(eq(targets.userId, userId), inArray(targets.id, ids), eq(targets.disabled, false)));
  return new Map(rows.map((r) => [r.id, r.type]));
}

export async function markRunFailedByScan(db: DbOrTx, scanId: string, error: string): Promise<void> {
  await db
    .update(scanScheduleRuns)
    .set({ status: 'failed', error: error.slice(0, 1000) })
    .where(eq(scanScheduleRuns.scanId, scanId));
}

export async function userPlan(db: DbOrTx, userId: string): Promise<string> {
  const [row] = await db.select({ plan: users.plan }).from(users).where(eq(users.id, userId));
  return row?.plan ?? 'trial_scan';
}
