import { and, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  billingCustomers,
  billingEvents,
  billingInvoices,
  billingSubscriptions,
  checkoutSessions,
  users,
} from '../../db/schema/index.ts';

export type CheckoutRow = typeof checkoutSessions.$inferSelect;
export type SubscriptionRow = typeof billingSubscriptions.$inferSelect;
export type CustomerRow = typeof billingCustomers.$inferSelect;
export type InvoiceRow = typeof billingInvoices.$inferSelect;

export async function getUser(db: DbOrTx, userId: string) {
  const [row] = await db
    .select({ id: users.id, email: users.email, plan: users.plan })
    .from(users)
    .where(eq(users.id, userId));
  return row;
}

export async function findUserByEmail(db: DbOrTx, email: string) {
  const [row] = await db
    .select({ id: users.id, email: users.email, plan: users.plan })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`);
  return row;
}

export async function setUserPlan(db: DbOrTx, userId: string, plan: string): Promise<void> {
  await db.update(users).set({ plan, updatedAt: new Date() }).where(eq(users.id, userId));
}

export async function insertCheckout(
  db: DbOrTx,
  row: typeof checkoutSessions.$inferInsert,
): Promise<CheckoutRow> {
  const [out] = await db.insert(checkoutSessions).values(row).returning();
  return out as CheckoutRow;
}

export async function getCheckout(
  db: DbOrTx,
  id: string,
  forUpdate = false,
): Promise<CheckoutRow | undefined> {
  const q = db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function updateCheckout(
  db: DbOrTx,
  id: string,
  set: Partial<typeof checkoutSessions.$inferInsert>,
): Promise<void> {
  await db.update(checkoutSessions).set(set).where(eq(checkoutSessions.id, id));
}

export async function getSubscription(db: DbOrTx, userId: string, forUpdate = false) {
  const q = db.select().from(billingSubscriptions).where(eq(billingSubscriptions.userId, userId));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function upsertSubscription(
  db: DbOrTx,
  row: typeof billingSubscriptions.$inferInsert,
): Promise<void> {
  const { userId: _u, ...rest } = row;
  await db
    .insert(billingSubscriptions)
    .values(row)
    .onConflictDoUpdate({ target: billingSubscriptions.userId, set: { ...rest, updatedAt: new Date() } });
}

export async function getCustomer(db: DbOrTx, userId: string): Promise<CustomerRow | undefined> {
  const [row] = await db.select().from(billingCustomers).where(eq(billingCustomers.userId, userId));
  return row;
}

export async function findCustomerByStripeId(db: DbOrTx, stripeId: string): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.stripeCustomerId, stripeId));
  return row;
}

export async function saveCustomer(
  db: DbOrTx,
  userId: string,
  set: Partial<Omit<typeof billingCustomers.$inferInsert, 'userId'>>,
): Promise<void> {
  await db
    .insert(billingCustomers)
    .values({ userId, ...set })
    .onConflictDoUpdate({ target: billingCustomers.userId, set: { ...set, updatedAt: new Date() } });
}

/** Records an invoice once per (provider, external id); a later status wins. */
export async function upsertInvoice(db: DbOrTx, row: typeof billingInvoices.$inferInsert): Promise<void> {
  await db
    .insert(billingInvoices)
    .values(row)
    .onConflictDoUpdate({
      target: [billingInvoices.provider, billingInvoices.externalId],
      set: { status: row.status, amount: row.amount },
    });
}

export async function listInvoices(db: DbOrTx, userId: string, limit = 50): Promise<InvoiceRow[]> {
  return db
    .select()
    .from(billingInvoices)
    .where(eq(billingInvoices.userId, userId))
    .orderBy(desc(billingInvoices.createdAt))
    .limit(limit);
}

/** True the first time an event id is seen (idempotency); false for a replay. */
export async function claimEvent(db: DbOrTx, eventId: string, type: string): Promise<boolean> {
  const rows = await db
    .insert(billingEvents)
    .values({ eventId, type })
    .onConflictDoNothing()
    .returning({ id: billingEvents.eventId });
  return rows.length === 1;
}
/**
 * Binds this scan to one unused paid one-time payment (try_it) of the user: the oldest, locked so two
 * concurrent scan creations can never use the same payment (the second skips it and finds none).
 * Idempotent: a scan already bound returns true. False when no unused payment is left.
 */
export async function claimOneTimePayment(db: DbOrTx, userId: string, scanId: string): Promise<boolean> {
  const bound = await db
    .select({ id: billingInvoices.id })
    .from(billingInvoices)
    .where(and(eq(billingInvoices.userId, userId), eq(billingInvoices.consumedScanId, scanId)));
  if (bound.length) return true;
  const claimed = await db.execute(sql`
    update ${billingInvoices} set consumed_scan_id = ${scanId}::uuid, consumed_at = now()
    where id = (
      select id from ${billingInvoices}
      where user_id = ${userId}::uuid and plan = 'try_it' and status = 'paid' and consumed_scan_id is null
      order by created_at, id limit 1 for update skip locked
    ) returning id`);
  return claimed.rows.length > 0;
}

/** The user's paid one-time payments, and how many of them a scan has used. */
export async function oneTimePayments(db: DbOrTx, userId: string): Promise<{ paid: number; used: number }> {
  const [row] = await db
    .select({
      paid: sql<number>`count(*)::int`,
      used: sql<number>`count(${billingInvoices.consumedScanId})::int`,
    })
    .from(billingInvoices)
    .where(
      and(
        eq(billingInvoices.userId, userId),
        eq(billingInvoices.plan, 'try_it'),
        eq(billingInvoices.status, 'paid'),
      ),
    );
  return { paid: row?.paid ?? 0, used: row?.used ?? 0 };
}
