import type { FastifyRequest } from 'fastify';
import { rateLimited } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { clearCounter, hitCounter, readCounter } from './limits-repo.ts';

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

/**
 * Guards a sign-in step (`scope` = password or code) of one account. Accounts are keyed by the
 * address typed (password) or the user id (code), so an unknown e-mail goes through the same
 * counters and answers exactly like a known one.
 */
export async function refuseIfLocked(ctx: AppContext, scope: string, account: string, ip: string) {
  const policy = failurePolicy(ctx);
  const lock = await readCounter(ctx.db, lockKey(scope, account));
  if (lock)
    throw rateLimited(
      `Too many failed attempts on this account: it is locked for ${waitText(lock.windowEndsAt)}. Its owner was told by e-mail.`,
    );
  const byAddress = await readCounter(ctx.db, addressKey(ip));
  if (byAddress && byAddress.hits >= policy.perAddress)
    throw rateLimited(
      `Too many failed sign-ins from your address. Try again in ${waitText(byAddress.windowEndsAt)}.`,
    );
}

/**
 * Records a failure; returns true when this failure locked the account (the caller mails its
 * owner once), after the progressive delay.
 */
export async function recordFailure(
  ctx: AppContext,
  scope: string,
  account: string,
  ip: string,
): Promise<boolean> {
  const policy = failurePolicy(ctx);
  const failures = await hitCounter(ctx.db, failKey(scope, account), policy.windowMs);
  await hitCounter(ctx.db, addressKey(ip), policy.windowMs);
  let locked = false;
  if (failures.hits === policy.lockAfter) {
    await hitCounter(ctx.db, lockKey(scope, account), policy.lockMs);
    await clearCounter(ctx.db, failKey(scope, account));
    locked = true;
  }
  const delay = failureDelayMs(failures.hits, policy.delayBaseMs);
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  return locked;
}

export async function recordSuccess(ctx: AppContext, scope: string, account: string) {
  await clearCounter(ctx.db, failKey(scope, account));
}
