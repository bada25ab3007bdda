import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import { type Memo, NO_MEMO } from '../../db/changes.ts';
import type { DbOrTx } from '../../db/client.ts';
import {
  emailVerifications,
  loginChallenges,
  passwordResets,
  recoveryCodes,
  refreshTokens,
  users,
} from '../../db/schema/index.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
export type ChallengeRow = typeof loginChallenges.$inferSelect;

// Users

export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return row;
}

export async function findUserById(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

/** Inserts unless the e-mail is taken; returns undefined when it was. */
export async function insertUser(db: DbOrTx, row: NewUserRow): Promise<UserRow | undefined> {
  const [inserted] = await db.insert(users).values(row).onConflictDoNothing().returning();
  return inserted;
}

export async function updateUser(db: DbOrTx, id: string, patch: Partial<NewUserRow>): Promise<UserRow> {
  const [row] = await db
    .update(users)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row!;
}

// E-mail verification keys

export async function insertEmailVerification(db: DbOrTx, userId: string, keyHash: string, expiresAt: Date) {
  await db.insert(emailVerifications).values({ userId, keyHash, expiresAt });
}

/** Marks the key used if it is live; returns its user id. Single use even under concurrency. */
export async function consumeEmailVerification(db: DbOrTx, keyHash: string): Promise<string | undefined> {
  const [row] = await db
    .update(emailVerifications)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(emailVerifications.keyHash, keyHash),
        isNull(emailVerifications.usedAt),
        gt(emailVerifications.expiresAt, sql`now()`),
      ),
    )
    .returning({ userId: emailVerifications.userId });
  return row?.userId;
}

// Password reset tokens

export async function insertPasswordReset(db: DbOrTx, userId: string, tokenHash: string, expiresAt: Date) {
  await db.insert(passwordResets).values({ userId, tokenHash, expiresAt });
}

/**
 * Marks the token used if it is live and was issued after the last password change (a token
 * becomes worthless once the password changed by any route).
 */
export async function consumePasswordReset(db: DbOrTx, userId: string, tokenHash: string): Promise<boolean> {
  const rows = await db
    .update(passwordResets)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        eq(passwordResets.userId, userId),
        isNull(passwordResets.usedAt),
        gt(passwordResets.expiresAt, sql`now()`),
        sql`${passwordResets.createdAt} >= (select ${users.passwordChangedAt} from ${users} where ${users.id} = ${userId})`,
      ),
    )
    .returning({ userId: passwordResets.userId });
  return rows.length === 1;
}

// Refresh tokens

export async function insertRefreshToken(db: DbOrTx, row: typeof refreshTokens.$inferInsert) {
  await db.insert(refreshTokens).values(row);
}

/** Locks the row so two concurrent refreshes with one token cannot both rotate it. */
export async function findRefreshTokenForUpdate(
  db: DbOrTx,
  id: string,
): Promise<RefreshTokenRow | undefined> {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.id, id)).for('update').limit(1);
  return row;
}

export async function markRefreshTokenRotated(db: DbOrTx, id: string) {
  await db.update(refreshTokens).set({ rotatedAt: new Date() }).where(eq(refreshTokens.id, id));
}

export async function revokeRefreshFamily(db: DbOrTx, familyId: string) {
  await db
    .update(refreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

/** Revokes every session of the user, except the family named (the caller's own session). */
export async function revokeUserRefreshTokens(db: DbOrTx, userId: string, exceptFamilyId?: string) {
  const conditions = [eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)];
  if (exceptFamilyId) conditions.push(ne(refreshTokens.familyId, exceptFamilyId));
  await db
    .update(refreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(...conditions));
}

/** The channel the users and refresh_tokens triggers notify with a user's id (migration 0020). */
export const SESSIONS_CHANGED_CHANNEL = 'sessions_changed';

export interface SessionState {
  live: boolean;
  emailVerified: boolean;
  plan: string;
}

/**
 * Whether the session family is live (one of its tokens not revoked), its user's address verified,
 * and the user's plan: read with the session so a request needs no second statement for it. A live
 * state is remembered (`memo`: ctx.sessionStates) until the user's row or refresh tokens change —
 * a sign-out, a revoked family, a plan or a verified address — and a change committed before the
 * request started is always seen (src/db/changes.ts).
 */
export async function sessionState(
  db: DbOrTx,
  userId: string,
  familyId: string,
  memo: Memo<SessionState> = NO_MEMO,
): Promise<SessionState> {
  const known = await memo.get(familyId);
  if (known) return known;
  const [row] = await db
    .select({ emailVerified: users.emailVerified, plan: users.plan })
    .from(refreshTokens)
    .innerJoin(users, eq(users.id, refreshTokens.userId))
    .where(
      and(
        eq(refreshTokens.familyId, familyId),
        eq(refreshTokens.userId, userId),
        isNull(refreshTokens.revokedAt),
      ),
    )
    .limit(1);
  if (!row) return { live: false, emailVerified: false, plan: 'trial_scan' };
  const state = { live: true, emailVerified: row.emailVerified, plan: row.plan };
  memo.set(familyId, state);
  return state;
}

// Two-factor login challenges

export async function insertChallenge(db: DbOrTx, row: typeof loginChallenges.$inferInsert) {
  await db.insert(loginChallenges).values(row);
}

export async function findChallengeForUpdate(db: DbOrTx, id: string): Promise<ChallengeRow | undefined> {
  const [row] = await db
    .select()
    .from(loginChallenges)
    .where(eq(loginChallenges.id, id))
    .for('update')
    .limit(1);
  return row;
}

export async function updateChallenge(db: DbOrTx, id: string, patch: Partial<ChallengeRow>) {
  await db.update(loginChallenges).set(patch).where(eq(loginChallenges.id, id));
}

// Recovery codes

export async function replaceRecoveryCodes(db: DbOrTx, userId: string, codeHashes: string[]) {
  await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  if (codeHashes.length > 0) {
    await db.insert(recoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash })));
  }
}

/** Marks an unused code used; true when it was. */
export async function consumeRecoveryCode(db: DbOrTx, userId: string, codeHash: string): Promise<boolean> {
  const rows = await db
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(recoveryCodes.userId, userId),
        eq(recoveryCodes.codeHash, codeHash),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ id: recoveryCodes.id });
  return rows.length === 1;
}
