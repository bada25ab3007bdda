import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { accountMailRequests, mailOutbox } from '../../db/schema/index.ts';

export type OutboxRow = typeof mailOutbox.$inferSelect;
export type NewOutboxRow = typeof mailOutbox.$inferInsert;
export type AccountMailRequestRow = typeof accountMailRequests.$inferSelect;

export async function insertMail(db: DbOrTx, row: NewOutboxRow): Promise<OutboxRow> {
  const [inserted] = await db.insert(mailOutbox).values(row).returning();
  return inserted!;
}

export async function markMail(db: DbOrTx, id: string, status: 'sent' | 'failed' | 'outbox', error?: string) {
  await db
    .update(mailOutbox)
    .set({ status, error: error ?? null, sentAt: status === 'sent' ? new Date() : null })
    .where(eq(mailOutbox.id, id));
}

export async function replaceMailBody(db: DbOrTx, id: string, body: { text: string; html: string }) {
  await db
    .update(mailOutbox)
    .set({ ...body, redactedAt: new Date() })
    .where(eq(mailOutbox.id, id));
}

export async function listRecentMail(db: DbOrTx, limit = 20): Promise<OutboxRow[]> {
  return db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt)).limit(limit);
}

/** Mails whose links are still in their body but expired. */
export async function listExpiredLinkMail(db: DbOrTx, limit = 100): Promise<OutboxRow[]> {
  return db
    .select()
    .from(mailOutbox)
    .where(
      and(
        isNotNull(mailOutbox.linksExpireAt),
        isNull(mailOutbox.redactedAt),
        lt(mailOutbox.linksExpireAt, new Date()),
      ),
    )
    .limit(limit);
}

export async function insertAccountMailRequest(db: DbOrTx, kind: string, email: string): Promise<void> {
  await db.insert(accountMailRequests).values({ kind, email });
}

/** Claims up to `limit` requests for two minutes (a dispatcher that dies leaves them to another). */
export async function claimAccountMailRequests(db: DbOrTx, limit = 20): Promise<AccountMailRequestRow[]> {
  const free = db
    .select({ id: accountMailRequests.id })
    .from(accountMailRequests)
    .where(
      and(
        lt(accountMailRequests.attempts, 5),
        or(isNull(accountMailRequests.claimedUntil), lt(accountMailRequests.claimedUntil, new Date())),
      ),
    )
    .orderBy(asc(accountMailRequests.createdAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(accountMailRequests)
    .set({
      claimedUntil: sql`now() + interval '2 minutes'`,
      attempts: sql`${accountMailRequests.attempts} + 1`,
    })
    .where(inArray(accountMailRequests.id, free))
    .returning();
}

export async function deleteAccountMailRequest(db: DbOrTx, id: string): Promise<void> {
  await db.delete(accountMailRequests).where(eq(accountMailRequests.id, id));
}

/** Requests that failed five times are dropped after a day. */
export async function pruneAccountMailRequests(db: DbOrTx): Promise<void> {
  await db
    .delete(accountMailRequests)
    .where(lt(accountMailRequests.createdAt, sql`now() - interval '1 day'`));
}
