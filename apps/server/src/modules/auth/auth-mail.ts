import type { Db } from '../../db/client.ts';
import type { AppConfig } from '../../lib/config/index.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import { pruneCounters } from '../limits/limits-repo.ts';
import {
  claimAccountMailRequests,
  deleteAccountMailRequest,
  insertAccountMailRequest,
  pruneAccountMailRequests,
} from '../mail/mail-repo.ts';
import { type Mailer, redactExpiredMail } from '../mail/mail-service.ts';
import { MAIL_TEXTS, renderActionMail } from '../mail/mail-templates.ts';
import * as repo from './auth-repo.ts';

const DAY = 86_400_000;
export const EMAIL_KEY_TTL_MS = 3 * DAY;
export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;

export type AccountMailKind = 'verify_email' | 'password_reset' | 'account_locked';

interface Deps {
  db: Db;
  config: AppConfig;
  mailer: Mailer;
  logger: Logger;
}

/**
 * Account mails leave the request: the request writes one row naming the address it was given,
 * the same row whether or not an account has it, and this dispatcher (in every process, claims
 * with SKIP LOCKED) looks the account up, mints the key and sends — so neither the answer nor its
 * timing says whether the address is registered.
 */
export interface AccountMailDispatcher {
  queue(kind: AccountMailKind, email: string): Promise<void>;
  /** Sends what is queued now (tests and the queueing request use it; the timer does the rest). */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

async function sendOne(deps: Deps, kind: string, email: string): Promise<void> {
  const user = await repo.findUserByEmail(deps.db, email);
  if (!user) return;
  const language = user.language === 'ru' ? 'ru' : 'en';
  const base = deps.config.publicUrl;
  if (kind === 'verify_email') {
    if (user.emailVerified) return;
    const key = randomToken(32);
    const expiresAt = new Date(Date.now() + EMAIL_KEY_TTL_MS);
    await repo.insertEmailVerification(deps.db, user.id, sha256(key), expiresAt);
    const link = `${base}/account/confirm-email/verify/${key}`;
    await deps.mailer.send(
      user.email,
      'verify_email',
      renderActionMail(MAIL_TEXTS.verifyEmail[language], user.firstName, link, expiresAt),
    );
  } else if (kind === 'password_reset') {
    const token = randomToken(32);
    const expiresAt = new Date(Date.now() + RESET_TOKEN_TTL_MS);
    await repo.insertPasswordReset(deps.db, user.id, sha256(token), expiresAt);
    const link = `${base}/account/password/reset/confirm/${user.id}/${token}`;
    await deps.mailer.send(
      user.email,
      'password_reset',
      renderActionMail(MAIL_TEXTS.passwordReset[language], user.firstName, link, expiresAt),
    );
  } else if (kind === 'account_locked') {
    await deps.mailer.send(
      user.email,
      'account_locked',
      renderActionMail(MAIL_TEXTS.accountLocked[language], user.firstName, `${base}/password_reset`),
    );
  }
}

export function createAccountMailDispatcher(deps: Deps, intervalMs = 5000): AccountMailDispatcher {
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;
  let ticks = 0;

  const runOnce = async (): Promise<number> => {
    let sent = 0;
    for (;;) {
      const batch = await claimAccountMailRequests(deps.db);
      if (batch.length === 0) break;
      for (const request of batch) {
        try {
          await sendOne(deps, request.kind, request.email);
          await deleteAccountMailRequest(deps.db, request.id);
          sent += 1;
        } catch (err) {
          deps.logger.error({ err, kind: request.kind }, 'account mail failed; will retry');
        }
      }
    }
    return sent;
  };
  const drain = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = runOnce()
      .finally(() => {
        running = undefined;
      })
      .then(async (n) => {
        if (again && !stopped) {
          again = false;
          return n + (await drain());
        }
        return n;
      });
    return running;
  };
  const timer = setInterval(() => {
    if (stopped) return;
    ticks += 1;
    const housekeeping =
      ticks % 12 === 0
        ? Promise.all([redactExpiredMail(deps.db), pruneCounters(deps.db), pruneAccountMailRequests(deps.db)])
        : Promise.resolve();
    void housekeeping
      .then(() => drain())
      .catch((err) => deps.logger.error({ err }, 'account mail dispatcher failed'));
  }, intervalMs);
  timer.unref();

  return {
    async queue(kind, email) {
      await insertAccountMailRequest(deps.db, kind, email.trim().toLowerCase());
      // After the answer is on its way: the request's own timing does not include the work.
      setImmediate(() => {
        if (!stopped) drain().catch((err) => deps.logger.error({ err }, 'account mail dispatcher failed'));
      });
    },
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
