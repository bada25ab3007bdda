import { and, asc, desc, eq, gt, inArray, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  findingSightings,
  findingsExploitDb,
  findingsExploitScanner,
  findingsLeakcheck,
  notificationLog,
  scans,
  scanTargets,
  targets,
  users,
  webhookDeliveries,
  webhooks,
} from '../../db/schema/index.ts';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/**
 * Finished (done, or canceled before `canceledBefore`) scans with no `scan_finished` log row yet, locked so that of several workers sweeping at
 * once each scan is taken by one.
 */
export async function lockUnnotifiedScans(
  db: DbOrTx,
  since: Date,
  limit: number,
  canceledBefore: Date = since,
) {
  return db
    .select({ id: scans.id, userId: scans.userId })
    .from(scans)
    .where(
      and(
        // A canceled scan is taken once its worker has had time to stop and write what it found.
        or(eq(scans.status, 'done'), and(eq(scans.status, 'canceled'), lt(scans.finishedAt, canceledBefore))),
        gt(scans.finishedAt, since),
        sql`not exists (select 1 from ${notificationLog} n where n.scan_id = ${scans.id}::text and n.kind = 'scan_finished')`,
      ),
    )
    .orderBy(asc(scans.finishedAt))
    .limit(limit)
    .for('update', { of: scans, skipLocked: true });
}

/** True when this call wrote the log row (so the caller is the one to notify). */
export async function claimNotification(
  db: DbOrTx,
  userId: string,
  scanId: string,
  kind: string,
): Promise<boolean> {
  const rows = await db
    .insert(notificationLog)
    .values({ userId, scanId, kind })
    .onConflictDoNothing({ target: [notificationLog.scanId, notificationLog.kind] })
    .returning({ id: notificationLog.id });
  return rows.length > 0;
}

export async function scanFacts(db: DbOrTx, scanId: string) {
  const [scan] = await db.select().from(scans).where(eq(scans.id, scanId));
  if (!scan) return undefined;
  const [user] = await db.select().from(users).where(eq(users.id, scan.userId));
  const targetRows = await db
    .select({ name: targets.displayName })
    .from(scanTargets)
    .innerJoin(targets, eq(targets.id, scanTargets.targetId))
    .where(eq(scanTargets.scanId, scanId));
  const [es, ed, lc] = await Promise.all([
    db
      .select({
        subclass: sql<'exploit_scanner'>`'exploit_scanner'`,
        severity: findingsExploitScanner.severity,
        change: findingSightings.change,
        host: findingsExploitScanner.host,
        name: findingsExploitScanner.name,
      })
      .from(findingSightings)
      .innerJoin(findingsExploitScanner, eq(findingsExploitScanner.id, findingSightings.findingId))
      .where(and(eq(findingSightings.scanId, scanId), eq(findingSightings.subclass, 'exploit_scanner'))),
    db
      .select({
        subclass: sql<'exploit_db'>`'exploit_db'`,
        severity: findingsExploitDb.severity,
        change: findingSightings.change,
        host: findingsExploitDb.host,
        name: sql<string>`${findingsExploitDb.cve} || ' in ' || ${findingsExploitDb.tech} || ' ' || ${findingsExploitDb.version}`,
      })
      .from(findingSightings)
      .innerJoin(findingsExploitDb, eq(findingsExploitDb.id, findingSightings.findingId))
      .where(and(eq(findingSightings.scanId, scanId), eq(findingSightings.subclass, 'exploit_db'))),
    db
      .select({
        subclass: sql<'leakcheck'>`'leakcheck'`,
        severity: findingsLeakcheck.severity,
        change: findingSightings.change,
        host: findingsLeakcheck.mainDomain,
        name: sql<string>`'Leaked credentials: ' || ${findingsLeakcheck.email}`,
      })
      .from(findingSightings)
      .innerJoin(findingsLeakcheck, eq(findingsLeakcheck.id, findingSightings.findingId))
      .where(and(eq(findingSightings.scanId, scanId), eq(findingSightings.subclass, 'leakcheck'))),
  ]);
  return { scan, user, targets: targetRows.map((r) => r.name), findings: [...es, ...ed, ...lc] };
}

export async function insertWebhook(db: DbOrTx, row: typeof webhooks.$inferInsert): Promise<WebhookRow> {
  const [inserted] = await db.insert(webhooks).values(row).returning();
  return inserted!;
}

export async function listWebhooks(db: DbOrTx, userId: string): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(eq(webhooks.userId, userId)).orderBy(asc(webhooks.createdAt));
}

export async function countWebhooks(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhooks)
    .where(eq(webhooks.userId, userId));
  return row?.n ?? 0;
}

export async function findWebhook(db: DbOrTx, userId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)));
  return row;
}

export async function deleteWebhook(db: DbOrTx, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)))
    .returning({ id: webhooks.id });
  return rows.length > 0;
}

export async function webhooksForEvent(db: DbOrTx, userId: string, event: string): Promise<WebhookRow[]> {
  return db
    .select()
    .from(webhooks)
    .where(
      and(eq(webhooks.userId, userId), eq(webhooks.enabled, true), sql`${event} = any(${webhooks.events})`),
    );
}

export async function insertDelivery(
  db: DbOrTx,
  row: typeof webhookDeliveries.$inferInsert,
): Promise<DeliveryRow> {
  const [inserted] = await db.insert(webhookDeliveries).values(row).returning();
  return inserted!;
}

export async function deliveryWithWebhook(db: DbOrTx, id: string) {
  const [row] = await db
    .select({ delivery: webhookDeliveries, webhook: webhooks })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(eq(webhookDeliveries.id, id));
  return row;
}

export async function updateDelivery(
  db: DbOrTx,
  id: string,
  patch: Partial<typeof webhookDeliveries.$inferInsert>,
) {
  await db.update(webhookDeliveries).set(patch).where(eq(webhookDeliveries.id, id));
}

export async function recentDeliveries(db: DbOrTx, webhookIds: string[], limit = 5) {
  if (webhookIds.length === 0) return [];
  return db
    .select()
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.webhookId, webhookIds))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(limit * webhookIds.length);
}
