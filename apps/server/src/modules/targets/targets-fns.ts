import { domainToUnicode } from 'node:url';
import {
  PLAN_KEYS,
  PLAN_LIMITS,
  PLAN_NAMES,
  type TPlanKey,
  type TPlanLimits,
  type TTargetType,
  VERIFICATION_PREFIX,
} from '@perimeter/contracts';
import { parseTarget, ScopePolicy, TargetError } from '@perimeter/engine';
import ipaddr from 'ipaddr.js';
import { parse as parseDomain } from 'tldts';

/** The largest network target, in addresses (a /20 of IPv4). */
export const MAX_NETWORK_SIZE = 4096;

/** Special-use names (RFC 6761, 6762, 8375, 9476) that never reach the public DNS. */
const RESERVED_TLDS = new Set([
  'test',
  'example',
  'invalid',
  'localhost',
  'local',
  'internal',
  'alt',
  'home',
  'lan',
  'arpa',
]);

export interface NormalisedTarget {
  targetType: TTargetType;
  value: string;
  displayName: string;
  mainDomain: string | null;
  ipCount: number;
}

export class TargetInputError extends Error {}

/** Names the operator setting behind a refused address, so the message says how to allow it. */
function scopeRefusal(what: string, reason: string, range: string, allowPrivate: boolean): TargetInputError {
  if (reason === 'outside the allow-list')
    return new TargetInputError(
      `${what} cannot be scanned: it is outside the operator's allow-list (PERIMETER_SCAN_ALLOW).`,
    );
  const hint =
    !allowPrivate && range !== 'multicast' && range !== 'broadcast' && range !== 'unspecified'
      ? ' An operator can allow private targets with PERIMETER_ALLOW_PRIVATE_TARGETS=true (and limit them to a range with PERIMETER_SCAN_ALLOW).'
      : '';
  return new TargetInputError(`${what} cannot be scanned: ${reason}.${hint}`);
}

/**
 * Validates and normalises one target as the user typed it: domains to lower-case punycode with
 * their registrable domain, addresses to canonical form, networks to network address/prefix.
 * Private and reserved addresses and special-use names are refused unless `allowPrivate`.
 */
export function normaliseTarget(
  input: string,
  type: TTargetType | undefined,
  allowPrivate: boolean,
  allow?: string[],
): NormalisedTarget {
  const raw = input.trim();
  if (raw.length === 0) throw new TargetInputError('The target is empty.');
  let parsed: ReturnType<typeof parseTarget>;
  try {
    parsed = parseTarget(type ? { type, value: raw } : raw, MAX_NETWORK_SIZE);
  } catch (err) {
    if (err instanceof TargetError) throw new TargetInputError(`${err.message}.`);
    throw err;
  }
  const policy = new ScopePolicy({ allowPrivate, ...(allow ? { allow } : {}) });
  if (parsed.type === 'peer') {
    const decision = policy.check(parsed.address);
    if (!decision.allowed) throw scopeRefusal(parsed.address, decision.reason, decision.range, allowPrivate);
    return {
      targetType: 'peer',
      value: parsed.address,
      displayName: parsed.address,
      mainDomain: null,
      ipCount: 1,
    };
  }
  if (parsed.type === 'network') {
    const [base, bits] = ipaddr.parseCIDR(parsed.cidr);
    const last =
      base.kind() === 'ipv4'
        ? ipaddr.IPv4.broadcastAddressFromCIDR(parsed.cidr).toString()
        : lastIpv6(base as ipaddr.IPv6, bits);
    for (const address of [base.toString(), last]) {
      const decision = policy.check(address);
      if (!decision.allowed) throw scopeRefusal(parsed.cidr, decision.reason, decision.range, allowPrivate);
    }
    return {
      targetType: 'network',
      value: parsed.cidr,
      displayName: parsed.cidr,
      mainDomain: null,
      ipCount: parsed.size,
    };
  }
  const info = parseDomain(parsed.domain, { allowPrivateDomains: true });
  const tld = parsed.domain.split('.').at(-1) ?? '';
  if (!allowPrivate && (RESERVED_TLDS.has(tld) || !info.isIcann))
    throw new TargetInputError(
      `${parsed.domain} is not a public domain name. An operator can allow special-use names (such as a lab's .test zone) with PERIMETER_ALLOW_PRIVATE_TARGETS=true.`,
    );
  if (info.isIp) throw new TargetInputError(`${raw} is an address: add it as a peer.`);
  return {
    targetType: 'domain',
    value: parsed.domain,
    displayName: domainToUnicode(parsed.domain) || parsed.domain,
    mainDomain: parsed.registrable,
    ipCount: 0,
  };
}

function lastIpv6(base: ipaddr.IPv6, bits: number): string {
  const bytes = base.toByteArray();
  for (let i = 0; i < 16; i++) {
    const hostBits = Math.max(0, Math.min(8, (i + 1) * 8 - bits));
    bytes[i] = (bytes[i] as number) | ((1 << hostBits) - 1);
  }
  return ipaddr.fromByteArray(bytes).toString();
}

export function verificationValue(token: string): string {
  return `${VERIFICATION_PREFIX}${token}`;
}

/** The reverse-DNS zone of a network: whole octets (IPv4) or nibbles (IPv6) of its prefix. */
export function reverseZone(cidr: string): string {
  const [base, bits] = ipaddr.parseCIDR(cidr);
  if (base.kind() === 'ipv4') {
    const octets = base.toByteArray().slice(0, Math.max(1, Math.floor(bits / 8)));
    return `${octets.reverse().join('.')}.in-addr.arpa`;
  }
  const hex = base
    .toByteArray()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
  const nibbles = hex.slice(0, Math.max(1, Math.floor(bits / 4))).split('');
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

/** DNS names where the verification TXT record is accepted. */
export function verificationRecordNames(type: TTargetType, value: string): string[] {
  if (type === 'domain') return [value, `_perimeter.${value}`];
  if (type === 'network') {
    const zone = reverseZone(value);
    return [zone, `_perimeter.${zone}`];
  }
  return [];
}

export const VERIFICATION_FILE_PATH = '/.well-known/perimeter-verification.txt';

/** URLs where the verification file is accepted (peers). */
export function verificationFileUrls(address: string): string[] {
  const host = address.includes(':') ? `[${address}]` : address;
  return [`https://${host}${VERIFICATION_FILE_PATH}`, `http://${host}${VERIFICATION_FILE_PATH}`];
}

export function verificationInstructions(type: TTargetType, value: string, token: string): string {
  const v = verificationValue(token);
  if (type === 'domain')
    return `Add a DNS TXT record "${v}" to ${value} or to _perimeter.${value}, then check verification. DNS changes can take a few minutes to appear.`;
  if (type === 'network')
    return `Add a DNS TXT record "${v}" to the reverse-DNS zone ${reverseZone(value)} (or _perimeter.${reverseZone(value)}), then check verification.`;
  return `Serve a file at ${VERIFICATION_FILE_PATH} on ${value} over HTTPS or HTTP whose content is "${v}", then check verification.`;
}

/** Open findings by severity → a 0…100 score (100 = nothing open). */
export function targetScore(counts: { critical: number; high: number; medium: number; low: number }): number {
  return Math.max(0, 100 - 25 * counts.critical - 10 * counts.high - 4 * counts.medium - counts.low);
}

const planKeyOf = (plan: string): TPlanKey =>
  (PLAN_KEYS as readonly string[]).includes(plan) ? (plan as TPlanKey) : 'trial_scan';

export function limitsOf(plan: string): TPlanLimits & { name: string } {
  const key = planKeyOf(plan);
  return { ...PLAN_LIMITS[key], name: PLAN_NAMES[key] };
}

/**
 * One limit of a plan (an unknown plan is a trial's), read without limitsOf's copy of them all: a
 * copy with one key added after a spread took ~6 µs on Node 20, and every events page asks.
 */
export const planLimit = <K extends keyof TPlanLimits>(plan: string, limit: K): TPlanLimits[K] =>
  PLAN_LIMITS[planKeyOf(plan)][limit];

const DAY_LABELS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/**
 * `periodicity` of a target: its enabled schedules, each as "Weekly: Sat 02:00 (Europe/Berlin)",
 * "Daily 03:00 (UTC)" or "3× a week: Mon, Wed, Fri 03:00 (UTC)" (days Monday first), joined by "; ";
 * null when no enabled schedule covers the target.
 */
export function describePeriodicity(
  schedules: readonly { days: readonly number[]; startTime: string; tz: string }[],
): string | null {
  const parts = schedules.map((s) => {
    const days = [...new Set(s.days)]
      .filter((d) => d >= 0 && d <= 6)
      .sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7));
    const when = `${s.startTime} (${s.tz})`;
    if (days.length === 7) return `Daily ${when}`;
    const names = days.map((d) => DAY_LABELS[d]).join(', ');
    return days.length === 1 ? `Weekly: ${names} ${when}` : `${days.length}× a week: ${names} ${when}`;
  });
  return parts.length ? [...new Set(parts)].join('; ') : null;
}
