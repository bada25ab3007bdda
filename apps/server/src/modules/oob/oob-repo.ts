import { and, asc, count, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { oobCorrelations, oobInteractions, scans } from '../../db/schema/index.ts';

export type InteractionRow = typeof oobInteractions.$inferSelect;
export type NewInteraction = typeof oobInteractions.$inferInsert;

export async function registerCorrelation(
  db: Db,
  row: { id: string; scanId: string; userId: string; retentionHours: number },
): Promise<void> {
  await db.insert(oobCorrelations).values({
    id: row.id,
    scanId: row.scanId,
    userId: row.userId,
    expiresAt: sql`now() + make_interval(hours => ${row.retentionHours})`,
  });
}

/** A registered, unexpired correlation and how many interactions it holds; undefined otherwise. */
export async function liveCorrelation(
  db: Db,
  id: string,
): Promise<{ expiresAt: Date; stored: number } | undefined> {
  const [row] = await db
    .select({
      expiresAt: oobCorrelations.expiresAt,
      // Qualified by hand: inside a select list drizzle leaves column names bare.
      stored: sql<number>`(select count(*)::int from oob_interactions i where i.correlation_id = oob_correlations.id)`,
    })
    .from(oobCorrelations)
    .where(and(eq(oobCorrelations.id, id), gt(oobCorrelations.expiresAt, sql`now()`)));
  return row;
}

/** Every registered, unexpired correlation with its stored count (the recorder's periodic refresh). */
export async function liveCorrelations(db: Db): Promise<{ id: string; expiresAt: Date; stored: number }[]> {
  return db
    .select({
      id: oobCorrelations.id,
      expiresAt: oobCorrelations.expiresAt,
      stored: sql<number>`(select count(*)::int from oob_interactions i where i.correlation_id = oob_correlations.id)`,
    })
    .from(oobCorrelations)
    .where(gt(oobCorrelations.expiresAt, sql`now()`));
}

export async function insertInteractions(db: Db, rows: NewInteraction[]): Promise<void> {
  if (rows.length) await db.insert(oobInteractions).values(rows);
}

/** The interactions of these full ids under one correlation, oldest first. */
export async function interactionsOf(
  db: Db,
  correlationId: string,
  fullIds: string[],
): Promise<InteractionRow[]> {
  if (!fullIds.length) return [];
  return db
    .select()
    .from(oobInteractions)
    .where(and(eq(oobInteractions.correlationId, correlationId), inArray(oobInteractions.fullId, fullIds)))
    .orderBy(asc(oobInteractions.id));
}

/** Interactions that arrived after the scan ended, for its owner only; undefined when the scan is not theirs. */
export async function lateInteractions(
  db: Db,
  userId: string,
  scanId: string,
  limit: number,
): Promise<{ finishedAt: Date | null; count: number; items: InteractionRow[] } | undefined> {
  const [scan] = await db
    .select({ finishedAt: scans.finishedAt })
    .from(scans)
    .where(and(eq(scans.id, scanId), eq(scans.userId, userId)));
  if (!scan) return undefined;
  if (!scan.finishedAt) return { finishedAt: null, count: 0, items: [] };
  const where = and(
    eq(oobCorrelations.scanId, scanId),
    eq(oobCorrelations.userId, userId),
    gt(oobInteractions.at, scan.finishedAt),
  );
  const [total] = await db
    .select({ n: count() })
    .from(oobInteractions)
    .innerJoin(oobCorrelations, eq(oobCorrelations.id, oobInteractions.correlationId))
    .where(where);
  const items = await db
    .select({ i: oobInteractions })
    .from(oobInteractions)
    .innerJoin(oobCorrelations, eq(oobCorrelations.id, oobInteractions.correlationId))
    .where(where)
    .orderBy(desc(oobInteractions.at), desc(oobInteractions.id))
    .limit(limit);
  return { finishedAt: scan.finishedAt, count: total?.n ?? 0, items: items.map((r) => r.i) };
}

/** Deletes expired correlations (their interactions go with them); returns how many. */
export async function expireCorrelations(db: Db): Promise<number> {
  const gone = await db
    .delete(oobCorrelations)
    .where(lt(oobCorrelations.expiresAt, sql`now()`))
    .returning({ id: oobCorrelations.id });
  return gone.length;
}
