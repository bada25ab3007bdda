import { randomUUID } from 'node:crypto';
import {
  PLAN_NAMES,
  RECOVERY_CODE_COUNT,
  type TLanguage,
  type TLoginResponse,
  type TSessionResponse,
  type TTokenPair,
  type TTwoFactorActivateResponse,
  type TUpdateUserBody,
  type TUser,
  type ZPasswordChangeBody,
  ZPlanKey,
  type ZRegistrationBody,
} from '@perimeter/contracts';
import QRCode from 'qrcode';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client.ts';
import { decryptSecret, encryptSecret, sha256 } from '../../lib/crypto.ts';
import { AppError, badRequest, conflict, unauthenticated } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { attemptFailed, attemptSucceeded, attemptVoid, takeAttempt } from '../limits/limits-service.ts';
import {
  hashPassword,
  hashRecoveryCode,
  isTotpCode,
  matchTotp,
  newOpaqueToken,
  newRecoveryCodes,
  newTotpSecret,
  parseOpaqueToken,
  signAccessToken,
  totpFor,
  verifyPassword,
} from './auth-fns.ts';
import * as repo from './auth-repo.ts';

export { EMAIL_KEY_TTL_MS, RESET_TOKEN_TTL_MS } from './auth-mail.ts';
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const CHALLENGE_MAX_FAILURES = 5;

const invalidLink = () =>
  new AppError(400, 'link_invalid', 'This link is invalid, was already used or has expired.');
const invalidCredentials = () =>
  new AppError(401, 'invalid_credentials', 'Unable to log in with the provided credentials.');

export function toUserDto(row: repo.UserRow): TUser {
  const plan = ZPlanKey.catch('trial_scan').parse(row.plan);
  return {
    id: row.id,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    company: row.company,
    tz: row.tz,
    language: row.language === 'ru' ? 'ru' : 'en',
    metadata: {
      email_verified: row.emailVerified,
      agreement_status: row.agreementAcceptedAt !== null,
      '2fa_enable': row.totpEnabled,
    },
    notifications: { scan_finished: row.notifyScanFinished, new_critical_high: row.notifyNewCriticalHigh },
    tariffs: [{ key: plan, name: PLAN_NAMES[plan] }],
    date_joined: row.createdAt.toISOString(),
  };
}

async function issueSession(
  ctx: AppContext,
  user: repo.UserRow,
  familyId: string = randomUUID(),
): Promise<TTokenPair> {
  const { env, secrets } = ctx.config;
  const refresh = newOpaqueToken();
  await repo.insertRefreshToken(ctx.db, {
    id: refresh.id,
    familyId,
    userId: user.id,
    tokenHash: refresh.hash,
    expiresAt: new Date(Date.now() + env.REFRESH_TOKEN_TTL_SECONDS * 1000),
  });
  const access = await signAccessToken(
    { userId: user.id, familyId },
    secrets.jwtSecret,
    env.ACCESS_TOKEN_TTL_SECONDS,
  );
  return { access, refresh: refresh.token };
}

/**
 * Registration answers the same whether or not the address is taken (no account enumeration):
 * the same argon2 work, one insert and one queued mail either way; the owner of a taken address
 * gets a password-reset mail instead of a second account.
 */
export async function register(
  ctx: AppContext,
  body: z.output<typeof ZRegistrationBody>,
  language: TLanguage,
) {
  const user = await repo.insertUser(ctx.db, {
    email: body.email,
    passwordHash: await hashPassword(body.password1),
    firstName: body.first_name,
    lastName: body.last_name,
    company: body.company,
    language,
  });
  await ctx.accountMail.queue(user ? 'verify_email' : 'password_reset', body.email);
  return { detail: 'Verification e-mail sent.' };
}

/** One queued row, known address or not; the dispatcher decides whether anything is mailed. */
export async function resendVerification(ctx: AppContext, email: string) {
  await ctx.accountMail.queue('verify_email', email);
  return { detail: 'If the address belongs to an unverified account, a new e-mail was sent.' };
}

export async function verifyEmail(ctx: AppContext, key: string) {
  const userId = await repo.consumeEmailVerification(ctx.db, sha256(key));
  if (!userId) throw invalidLink();
  await repo.updateUser(ctx.db, userId, { emailVerified: true });
  return { detail: 'E-mail address confirmed.' };
}

/**
 * Failed passwords count per typed address (known or not, so the answers match) from every
 * client address, and per client address over every account; see limits-service.
 */
export async function login(
  ctx: AppContext,
  email: string,
  password: string,
  ip: string,
): Promise<TLoginResponse> {
  const attempt = await takeAttempt(ctx, 'password', email, ip);
  const user = await repo.findUserByEmail(ctx.db, email);
  if (!(await verifyPassword(user?.passwordHash, password)) || !user) {
    if (await attemptFailed(ctx, attempt)) await ctx.accountMail.queue('account_locked', email);
    throw invalidCredentials();
  }
  await attemptSucceeded(ctx, attempt);
  if (user.totpEnabled) {
    const challenge = newOpaqueToken();
    await repo.insertChallenge(ctx.db, {
      id: challenge.id,
      tokenHash: challenge.hash,
      userId: user.id,
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    });
    return { ephemeral_token: challenge.token };
  }
  return { ...(await issueSession(ctx, user)), user: toUserDto(user) };
}

/** Accepts a TOTP code (not replayed) or an unused recovery code. */
async function acceptSecondFactor(
  db: DbOrTx,
  key: Buffer,
  user: repo.UserRow,
  code: string,
): Promise<boolean> {
  if (!user.totpSecretEnc) return false;
  if (isTotpCode(code)) {
    const step = matchTotp(decryptSecret(user.totpSecretEnc, key), code.trim());
    if (step === undefined || (user.totpLastStep !== null && step <= user.totpLastStep)) return false;
    await repo.updateUser(db, user.id, { totpLastStep: step });
    return true;
  }
  return repo.consumeRecoveryCode(db, user.id, hashRecoveryCode(code));
}

/**
 * Besides the 5 tries of one challenge, wrong codes count per account over all its challenges
 * (a stolen password must not buy unlimited fresh challenges) and lock the code step.
 */
export async function loginWithCode(
  ctx: AppContext,
  ephemeralToken: string,
  code: string,
  ip: string,
): Promise<TSessionResponse> {
  const parsed = parseOpaqueToken(ephemeralToken);
  if (!parsed)
    throw new AppError(401, 'token_invalid', 'The sign-in session is invalid or has expired. Sign in again.');
  const owner = (await repo.findChallengeForUpdate(ctx.db, parsed.id))?.userId;
  const attempt = owner ? await takeAttempt(ctx, 'code', owner, ip) : undefined;
  const outcome = await ctx.db.transaction(async (tx) => {
    const challenge = await repo.findChallengeForUpdate(tx, parsed.id);
    if (
      !challenge ||
      challenge.tokenHash !== parsed.hash ||
      challenge.usedAt ||
      challenge.expiresAt < new Date()
    ) {
      return {
        error: new AppError(
          401,
          'token_invalid',
          'The sign-in session is invalid or has expired. Sign in again.',
        ),
      };
    }
    if (challenge.failedAttempts >= CHALLENGE_MAX_FAILURES) {
      return {
        error: new AppError(
          401,
          'challenge_locked',
          'Too many wrong codes. Sign in again with your password.',
        ),
      };
    }
    const user = await repo.findUserById(tx, challenge.userId);
    if (!user?.totpEnabled || !(await acceptSecondFactor(tx, ctx.config.secrets.encryptionKey, user, code))) {
      await repo.updateChallenge(tx, challenge.id, { failedAttempts: challenge.failedAttempts + 1 });
      return { error: new AppError(401, 'code_invalid', 'The code is wrong, expired or was already used.') };
    }
    await repo.updateChallenge(tx, challenge.id, { usedAt: new Date() });
    return { user };
  });
  // The failed-attempt count must be committed, so the error is thrown after the transaction.
  if (outcome.error) {
    if (attempt && outcome.error.code === 'code_invalid') {
      if (await attemptFailed(ctx, attempt)) {
        const locked = await repo.findUserById(ctx.db, attempt.account);
        if (locked) await ctx.accountMail.queue('account_locked', locked.email);
      }
    } else if (attempt) await attemptVoid(ctx, attempt);
    throw outcome.error;
  }
  const userId = outcome.user!.id;
  if (attempt) await attemptSucceeded(ctx, attempt);
  const user = (await repo.findUserById(ctx.db, userId))!;
  return { ...(await issueSession(ctx, user)), user: toUserDto(user) };
}

export async function refreshSession(ctx: AppContext, token: string): Promise<TTokenPair> {
  const parsed = parseOpaqueToken(token);
  if (!parsed) throw new AppError(401, 'token_invalid', 'The refresh token is invalid or has expired.');
  const outcome = await ctx.db.transaction(async (tx) => {
    const row = await repo.findRefreshTokenForUpdate(tx, parsed.id);
    if (!row || row.tokenHash !== parsed.hash || row.revokedAt || row.expiresAt < new Date()) {
      return { ok: false as const };
    }
    if (row.rotatedAt) {
      // A rotated token came back: it was stolen or replayed. End every session of its family.
      await repo.revokeRefreshFamily(tx, row.familyId);
      ctx.logger.warn({ userId: row.userId, familyId: row.familyId }, 'refresh token reuse; family revoked');
      return { ok: false as const };
    }
    await repo.markRefreshTokenRotated(tx, row.id);
    return { ok: true as const, row };
  });
  if (!outcome.ok) throw new AppError(401, 'token_invalid', 'The refresh token is invalid or has expired.');
  const user = await repo.findUserById(ctx.db, outcome.row.userId);
  if (!user) throw unauthenticated();
  return issueSession(ctx, user, outcome.row.familyId);
}

export async function logout(ctx: AppContext, token: string) {
  const parsed = parseOpaqueToken(token);
  if (parsed) {
    await ctx.db.transaction(async (tx) => {
      const row = await repo.findRefreshTokenForUpdate(tx, parsed.id);
      if (row && row.tokenHash === parsed.hash) await repo.revokeRefreshFamily(tx, row.familyId);
    });
  }
  return { detail: 'Signed out.' };
}

export async function getUser(ctx: AppContext, userId: string): Promise<TUser> {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw unauthenticated();
  return toUserDto(user);
}

export async function updateProfile(ctx: AppContext, userId: string, body: TUpdateUserBody): Promise<TUser> {
  const current = await repo.findUserById(ctx.db, userId);
  if (!current) throw unauthenticated();
  const row = await repo.updateUser(ctx.db, userId, {
    firstName: body.first_name,
    lastName: body.last_name,
    company: body.company,
    tz: body.tz,
    language: body.language,
    notifyScanFinished: body.notifications?.scan_finished,
    notifyNewCriticalHigh: body.notifications?.new_critical_high,
  });
  return toUserDto(row);
}

export async function confirmAgreement(ctx: AppContext, userId: string): Promise<TUser> {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw unauthenticated();
  const row = user.agreementAcceptedAt
    ? user
    : await repo.updateUser(ctx.db, userId, { agreementAcceptedAt: new Date() });
  return toUserDto(row);
}

export async function startTwoFactor(ctx: AppContext, userId: string): Promise<TTwoFactorActivateResponse> {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw unauthenticated();
  if (user.totpEnabled)
    throw conflict('Two-factor authentication is already on. Turn it off first to set it up again.');
  const secret = newTotpSecret();
  await repo.updateUser(ctx.db, userId, {
    totpSecretEnc: encryptSecret(secret, ctx.config.secrets.encryptionKey),
    totpLastStep: null,
  });
  const otpauthUrl = totpFor(secret, user.email).toString();
  return {
    secret,
    otpauth_url: otpauthUrl,
    qr_code: await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 240 }),
  };
}

export async function confirmTwoFactor(ctx: AppContext, userId: string, code: string) {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw unauthenticated();
  if (user.totpEnabled) throw conflict('Two-factor authentication is already on.');
  if (!user.totpSecretEnc) throw conflict('Start the set-up first: no secret was issued.');
  const step = matchTotp(decryptSecret(user.totpSecretEnc, ctx.config.secrets.encryptionKey), code.trim());
  if (step === undefined)
    throw badRequest('The code is wrong or expired.', { code: ['The code is wrong or expired.'] });
  const codes = newRecoveryCodes(RECOVERY_CODE_COUNT);
  await ctx.db.transaction(async (tx) => {
    await repo.updateUser(tx, userId, { totpEnabled: true, totpLastStep: step });
    await repo.replaceRecoveryCodes(tx, userId, codes.map(hashRecoveryCode));
  });
  return { recovery_codes: codes };
}

export async function disableTwoFactor(ctx: AppContext, userId: string, code: string) {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw unauthenticated();
  if (!user.totpEnabled) throw conflict('Two-factor authentication is not on.');
  if (!(await acceptSecondFactor(ctx.db, ctx.config.secrets.encryptionKey, user, code))) {
    throw badRequest('The code is wrong, expired or was already used.', {
      code: ['The code is wrong, expired or was already used.'],
    });
  }
  await ctx.db.transaction(async (tx) => {
    await repo.updateUser(tx, userId, { totpEnabled: false, totpSecretEnc: null, totpLastStep: null });
    await repo.replaceRecoveryCodes(tx, userId, []);
  });
  return { detail: 'Two-factor authentication is off.' };
}

export async function changePassword(
  ctx: AppContext,
  userId: string,
  familyId: string,
  body: z.output<typeof ZPasswordChangeBody>,
) {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw unauthenticated();
  if (!(await verifyPassword(user.passwordHash, body.old_password))) {
    throw badRequest('Your old password was entered incorrectly.', {
      old_password: ['Your old password was entered incorrectly.'],
    });
  }
  const passwordHash = await hashPassword(body.new_password1);
  await ctx.db.transaction(async (tx) => {
    await repo.updateUser(tx, userId, { passwordHash, passwordChangedAt: new Date() });
    // Other sessions end; the one that changed the password goes on.
    await repo.revokeUserRefreshTokens(tx, userId, familyId);
  });
  return { detail: 'The new password has been saved.' };
}

/** Always answers the same, in the same time: one queued row, whether or not the address is known. */
export async function requestPasswordReset(ctx: AppContext, email: string) {
  await ctx.accountMail.queue('password_reset', email);
  return { detail: 'Password reset e-mail has been sent.' };
}

export async function confirmPasswordReset(ctx: AppContext, uid: string, token: string, newPassword: string) {
  if (!/^[0-9a-f-]{36}$/.test(uid)) throw invalidLink();
  const passwordHash = await hashPassword(newPassword);
  await ctx.db.transaction(async (tx) => {
    if (!(await repo.consumePasswordReset(tx, uid, sha256(token)))) throw invalidLink();
    await repo.updateUser(tx, uid, { passwordHash, passwordChangedAt: new Date() });
    await repo.revokeUserRefreshTokens(tx, uid);
  });
  return { detail: 'Password has been reset with the new password.' };
}
