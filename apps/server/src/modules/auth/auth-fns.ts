import { randomBytes, randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { jwtVerify, SignJWT } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { randomToken, sha256 } from '../../lib/crypto.ts';

/** OWASP's argon2id baseline (19 MiB, 2 iterations, 1 lane). `algorithm: 2` is Argon2id. */
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, ARGON2_OPTIONS);

/** A hash of a random password, verified against when the e-mail is unknown so timing tells nothing. */
let dummyHash: Promise<string> | undefined;
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword(randomToken(16));
  try {
    const ok = await verify(passwordHash ?? (await dummyHash), password);
    return ok && passwordHash !== undefined;
  } catch {
    return false;
  }
}

/** Opaque tokens are `<row id>.<secret>`: the id finds the row, the secret's hash proves possession. */
export function newOpaqueToken(): { id: string; token: string; hash: string } {
  const id = randomUUID();
  const secret = randomToken(32);
  return { id, token: `${id}.${secret}`, hash: sha256(secret) };
}

export function parseOpaqueToken(token: string): { id: string; hash: string } | undefined {
  const match =
    /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{20,100})$/.exec(token);
  if (!match) return undefined;
  return { id: match[1]!, hash: sha256(match[2]!) };
}

export interface AccessClaims {
  userId: string;
  familyId: string;
}

/** The HS256 key, imported once per secret: given raw bytes, jose imports them again on every call. */
const hmacKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    hmacKeys.set(secret, key);
  }
  return key;
}

export async function signAccessToken(claims: AccessClaims, secret: Uint8Array, ttlSeconds: number) {
  return new SignJWT({ fam: claims.familyId, typ: 'access' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .setIssuer('perimeter')
    .sign(await hmacKey(secret));
}

/**
 * Tokens whose signature and claims were checked, with their expiry (seconds), per secret: a
 * browser sends the same access token with every request of its lifetime, and the HMAC through
 * WebCrypto's asynchronous job costs 20–60 µs of CPU each time. Only a token that passed every
 * check is kept (a forged or altered one is a different string, checked in full); its expiry is
 * checked again on each use. Bounded: the oldest entries go first. Revocation is not a token
 * property: the session state (auth plugin) is checked on every request either way.
 */
const verifiedTokens = new WeakMap<Uint8Array, Map<string, { claims: AccessClaims; exp: number }>>();
const MAX_VERIFIED_TOKENS = 10_000;

export async function verifyAccessToken(
  token: string,
  secret: Uint8Array,
): Promise<AccessClaims | undefined> {
  let verified = verifiedTokens.get(secret);
  if (!verified) {
    verified = new Map();
    verifiedTokens.set(secret, verified);
  }
  const known = verified.get(token);
  // jose's own rule: a token expires when its `exp` is at or before the current second.
  if (known && known.exp > Math.floor(Date.now() / 1000)) return known.claims;
  if (known) verified.delete(token);
  const claims = await checkAccessToken(token, secret);
  if (claims) {
    if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
    return claims.claims;
  }
  return undefined;
}

async function checkAccessToken(
  token: string,
  secret: Uint8Array,
): Promise<{ claims: AccessClaims; exp: number } | undefined> {
  try {
    // A token without an expiry (or issue time) would live for ever: refused even when signed.
    const { payload } = await jwtVerify(token, await hmacKey(secret), {
      algorithms: ['HS256'],
      issuer: 'perimeter',
      requiredClaims: ['exp', 'iat', 'sub'],
    });
    if (
      payload.typ !== 'access' ||
      typeof payload.sub !== 'string' ||
      typeof payload.fam !== 'string' ||
      typeof payload.exp !== 'number'
    ) {
      return undefined;
    }
    return { claims: Object.freeze({ userId: payload.sub, familyId: payload.fam }), exp: payload.exp };
  } catch {
    return undefined;
  }
}

export const TOTP_PERIOD = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpFor(secretBase32: string, email: string): TOTP {
  return new TOTP({
    issuer: 'Perimeter',
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

/**
 * Checks a code against the previous, current and next time step. Returns the step it matched so
 * the caller can refuse a code of that step or earlier next time (replay protection).
 */
export function matchTotp(secretBase32: string, code: string, now = Date.now()): number | undefined {
  const delta = totpFor(secretBase32, '').validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / TOTP_PERIOD) + delta;
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten codes like `k7m2p-xq9rt`: 50 bits of entropy each, so SHA-256 is enough to store them. */
export function newRecoveryCodes(count: number): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]);
    return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
  });
}

export function normalizeRecoveryCode(code: string): string {
  return code
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

export const hashRecoveryCode = (code: string) => sha256(normalizeRecoveryCode(code));

export const isTotpCode = (code: string) => /^[0-9]{6}$/.test(code.trim());
