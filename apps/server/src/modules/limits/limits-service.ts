import type { FastifyRequest } from 'fastify';
import { rateLimited } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { clearCounter, hitCounter, readCounter, releaseHit, setWindowEnd } from './limits-repo.ts';

const MINUTE = 60_000;

/** `in 42 seconds` / `in 3 minutes`, for a 429's detail. */
export function waitText(until: Date, now = Date.now()): string {
  const seconds = Math.max(1, Math.ceil((until.getTime() - now) / 1000));
  return seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/** Counts a hit on `key` and refuses with 429 once it is over `max` in the window. */
export async function enforceLimit(
  ctx: AppContext,
  key: string,
  max: number,
  windowMs: number,
  what = 'requests',
): Promise<void> {
  const counter = await hitCounter(ctx.db, key, windowMs);
  if (counter.hits > max)
    throw rateLimited(`Too many ${what}. Try again in ${waitText(counter.windowEndsAt)}.`);
}

/**
 * preHandler of the identity endpoints: `RATE_LIMIT_AUTH_PER_MINUTE` per route and client
 * address, whatever account the body names (spraying many accounts from one address is
 * limited like hammering one). The count lives in PostgreSQL, shared by every API process.
 */
export function authRouteLimit(ctx: AppContext) {
  return async (request: FastifyRequest) => {
    await enforceLimit(
      ctx,
      `route:${request.routeOptions.url}|${request.ip}`,
      ctx.config.env.RATE_LIMIT_AUTH_PER_MINUTE,
      MINUTE,
    );
  };
}

/** Progressive delay before a failed sign-in answers: none for the first three, then doubling to 4 s. */
export function failureDelayMs(failures: number, baseMs: number): number {
  if (failures <= 3 || baseMs <= 0) return 0;
  return Math.min(baseMs * 2 ** (failures - 4), 16 * baseMs, 4000);
}

export interface FailurePolicy {
  /** Failures of one account (from any address) before it is locked. */
  lockAfter: number;
  lockMs: number;
  /** Failed sign-ins from one client address, over every account, before it is refused. */
  perAddress: number;
  windowMs: number;
  delayBaseMs: number;
}

export function failurePolicy(ctx: AppContext): FailurePolicy {
  const env = ctx.config.env;
  return {
    lockAfter: env.AUTH_ACCOUNT_LOCK_AFTER,
    lockMs: env.AUTH_ACCOUNT_LOCK_MINUTES * MINUTE,
    perAddress: env.AUTH_FAILURES_PER_ADDRESS,
    windowMs: 15 * MINUTE,
    delayBaseMs: env.AUTH_FAILURE_DELAY_MS,
  };
}

const lockKey = (scope: string, account: string) => `lock:${scope}:${account}`;
const failKey = (scope: string, account: string) => `fail:${scope}:${account}`;
const addressKey = (ip: string) => `fail:address:${ip}`;

/** One sign-in attempt, counted before its password or code is checked. */
export interface Attempt {
  scope: string;
  account: string;
  ip: string;
  /** This attempt's place among the account's failures in the window (1 = the first). */
  failures: number;
}

/**
 * Takes one attempt at a sign-in step (`scope` = password or code) of one account, before the
 * secret is checked: the hits are counted first, so attempts sent in parallel cannot all pass a
 * check made before any of them failed. Refuses while the account is locked, once it has used
 * its failures, or once the client address has used its failures over every account. Accounts
 * are keyed by the address typed (password) or the user id (code), so an unknown e-mail goes
 * through the same counters and answers exactly like a known one.
 */
export async function takeAttempt(
  ctx: AppContext,
  scope: string,
  account: string,
  ip: string,
): Promise<Attempt> {
  const policy = failurePolicy(ctx);
  const lock = await readCounter(ctx.db, lockKey(scope, account));
  if (lock) throw lockedError(lock.windowEndsAt);
  const byAddress = await hitCounter(ctx.db, addressKey(ip), policy.windowMs);
  if (byAddress.hits > policy.perAddress) {
    await releaseHit(ctx.db, addressKey(ip));
    throw rateLimited(
      `Too many failed sign-ins from your address. Try again in ${waitText(byAddress.windowEndsAt)}.`,
    );
  }
  const failures = await hitCounter(ctx.db, failKey(scope, account), policy.windowMs);
  if (failures.hits > policy.lockAfter) {
    await releaseHit(ctx.db, addressKey(ip));
    throw lockedError(failures.windowEndsAt);
  }
  return { scope, account, ip, failures: failures.hits };
}

const lockedError = (until: Date) =>
  rateLimited(
    `Too many failed attempts on this account: it is locked for ${waitText(until)}. Its owner was told by e-mail.`,
  );

/**
 * The attempt failed: its hits stay. Returns true when this failure locked the account (the
 * caller mails its owner once), after the progressive delay.
 */
export async function attemptFailed(ctx: AppContext, attempt: Attempt): Promise<boolean> {
  const policy = failurePolicy(ctx);
  let locked = false;
  if (attempt.failures === policy.lockAfter) {
    const lock = await hitCounter(ctx.db, lockKey(attempt.scope, attempt.account), policy.lockMs);
    // The failures are kept (not cleared) until the lock ends: an attempt that read no lock just
    // before it was set still finds the account over its failures, then a fresh count starts.
    await setWindowEnd(ctx.db, failKey(attempt.scope, attempt.account), lock.windowEndsAt);
    locked = true;
  }
  const delay = failureDelayMs(attempt.failures, policy.delayBaseMs);
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  return locked;
}

/** The secret was right: the account's failures are forgotten, the address's hit given back. */
export async function attemptSucceeded(ctx: AppContext, attempt: Attempt) {
  await clearCounter(ctx.db, failKey(attempt.scope, attempt.account));
  await releaseHit(ctx.db, addressKey(attempt.ip));
}

/** Neither right nor wrong (an expired sign-in session): both hits are given back. */
export async function attemptVoid(ctx: AppContext, attempt: Attempt) {
  await releaseHit(ctx.db, failKey(attempt.scope, attempt.account));
  await releaseHit(ctx.db, addressKey(attempt.ip));
}
