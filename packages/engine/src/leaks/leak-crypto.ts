import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'v1:';

/**
 * AES-256-GCM for leaked passwords at rest. The key is passed in (32 bytes, or hex/base64
 * of 32 bytes); a longer or shorter secret string is hashed to 32 bytes with SHA-256.
 * Format: `v1:` + base64(iv[12] | tag[16] | ciphertext).
 */
export class LeakCipher {
  private readonly key: Buffer;
  private readonly digestKey: Buffer;

  constructor(key: Buffer | string) {
    this.key = LeakCipher.normaliseKey(key);
    // A separate key for digests, derived from the deployment key: the cipher key never doubles as a MAC key.
    this.digestKey = createHmac('sha256', this.key).update('perimeter leak digest v1').digest();
  }

  /**
   * A keyed digest of a clear password (HMAC-SHA256 with a key derived from the deployment
   * key), for deduplication: without the key, a word list cannot be checked against it.
   */
  digest(password: string): string {
    return `h1:${createHmac('sha256', this.digestKey).update(password, 'utf8').digest('hex').slice(0, 32)}`;
  }

  static normaliseKey(key: Buffer | string): Buffer {
    if (Buffer.isBuffer(key)) {
      if (key.length !== 32) throw new Error('leak encryption key must be 32 bytes');
      return key;
    }
    if (/^[0-9a-f]{64}$/i.test(key)) return Buffer.from(key, 'hex');
    const b64 = Buffer.from(key, 'base64');
    if (b64.length === 32 && /^[A-Za-z0-9+/]{43}=$/.test(key)) return b64;
    if (key.length < 16) throw new Error('leak encryption key is too short');
    return createHash('sha256').update(key, 'utf8').digest();
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  decrypt(sealed: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('unknown ciphertext format');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    if (raw.length < 28) throw new Error('ciphertext too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * `password123` → `p*********3`: at most the first and the last character, and none at all
 * below 8 characters (a short password is mostly its ends).
 */
export function maskPassword(password: string): string {
  const chars = [...password];
  const n = chars.length;
  if (n < 8) return '*'.repeat(n);
  return `${chars[0]}${'*'.repeat(n - 2)}${chars[n - 1]}`;
}
