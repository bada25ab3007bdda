import { randomInt } from 'node:crypto';

/**
 * Ids of out-of-band call-backs (docs/oob.md). A scan run registers a 20-character correlation id;
 * each `{{interactsh-url}}` is that id plus a 13-character nonce, all [a-z0-9] from the system's
 * CSPRNG: 36^13 ≈ 2^67 nonces per correlation and 36^20 ≈ 2^103 correlations, so nobody guesses
 * another scan's names.
 */
export const CORRELATION_LENGTH = 20;
export const NONCE_LENGTH = 13;
export const ID_LENGTH = CORRELATION_LENGTH + NONCE_LENGTH;
/** Raw requests and responses are stored up to this many characters. */
export const RAW_LIMIT = 8192;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function randomToken(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export const newCorrelationId = () => randomToken(CORRELATION_LENGTH);

const ID_RUN = /[a-z0-9]{33,}/g;

/** Whether `name` is the zone or a name under it (both lowercase, no trailing dot). */
export function inZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/**
 * The ids a name under the zone may carry: the labels left of the zone, nearest the zone first
 * (`x.<id>.oob.example.com` from a Log4Shell payload carries its id in the second label), each cut
 * to the id's length when longer.
 */
export function idsOfName(name: string, zone: string): string[] {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (!inZone(n, zone) || n === zone) return [];
  const labels = n.slice(0, -(zone.length + 1)).split('.');
  return labels
    .reverse()
    .filter((l) => l.length >= ID_LENGTH && /^[a-z0-9]+$/.test(l))
    .map((l) => l.slice(0, ID_LENGTH));
}

/** Candidate ids anywhere in a text (an LDAP search base, an HTTP path, a mail): each run of 33+ [a-z0-9]. */
export function idsOfText(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(ID_RUN)) out.add(m[0].slice(0, ID_LENGTH));
  return [...out];
}

export const truncate = (s: string, limit = RAW_LIMIT) =>
  s.length <= limit ? s : `${s.slice(0, limit)}\n[truncated: ${s.length - limit} more characters]`;

/** The printable rendering of bytes: ASCII as is, anything else as \xNN. */
export function printable(buf: Buffer, limit = RAW_LIMIT): string {
  let out = '';
  for (const b of buf.subarray(0, limit)) {
    if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d || b === 0x09) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return buf.length > limit ? `${out}\n[truncated: ${buf.length - limit} more bytes]` : out;
}

/** `::ffff:127.0.0.1` → `127.0.0.1`. */
export const plainAddress = (a: string | undefined) => (a ?? '').replace(/^::ffff:(?=\d+\.)/, '');
