import { desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { mailOutbox } from '../../db/schema/index.ts';

export type OutboxRow = typeof mailOutbox.$inferSelect;
export type NewOutboxRow = typeof mailOutbox.$inferInsert;

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

export async function listRecentMail(db: DbOrTx, limit = 20): Promise<OutboxRow[]> {
  return db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt)).limit(limit);
}
