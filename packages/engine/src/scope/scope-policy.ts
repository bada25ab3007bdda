import ipaddr from 'ipaddr.js';

/**
 * Decides whether the engine may contact an address. Checked after every DNS answer, CNAME
 * and redirect, and again at the socket layer just before connect().
 */
export interface ScopePolicyOptions {
  /** Lets loopback, private, link-local, CGNAT, ULA and other non-global unicast through. */
  allowPrivate?: boolean;
  /** When set, only addresses inside these CIDRs are allowed (on top of the range rules). */
  allow?: string[];
  /** Always refused; defaults to the cloud metadata addresses. */
  deny?: string[];
}

export type ScopeDecision = { allowed: true } | { allowed: false; reason: string; range: string };

/** Cloud instance-metadata endpoints: refused even with allowPrivate unless explicitly allowed. */
export const DEFAULT_DENY = ['169.254.169.254/32', '169.254.170.2/32', 'fd00:ec2::254/128'];

// Never contactable, whatever the options: not unicast destinations.
const NEVER = new Set(['unspecified', 'broadcast', 'multicast']);

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseCidr(cidr: string): Cidr {
  if (cidr.includes('/')) return ipaddr.parseCIDR(cidr);
  const addr = ipaddr.parse(cidr);
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}

function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  }
  return parsed;
}

function inCidr(addr: ipaddr.IPv4 | ipaddr.IPv6, [net, bits]: Cidr): boolean {
  return addr.kind() === net.kind() && addr.match(net, bits);
}

/** The ipaddr.js range name, with IPv6 outside 2000::/3 (e.g. ::/96, fec0::/10) as reserved. */
export function classifyAddress(address: string): string {
  const addr = normalise(address);
  const range = addr.range();
  if (addr.kind() === 'ipv6' && range === 'unicast') {
    const first = (addr as ipaddr.IPv6).parts[0] ?? 0;
    if ((first & 0xe000) !== 0x2000) return 'reserved';
  }
  return range;
}

/** Decisions remembered per policy (bounded: full, it starts over). */
const MAX_DECISIONS = 4096;

export class ScopePolicy {
  private readonly allow: Cidr[] | null;
  private readonly deny: Cidr[];
  readonly allowPrivate: boolean;
  private readonly decisions = new Map<string, Readonly<ScopeDecision>>();

  constructor(options: ScopePolicyOptions = {}) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.allow = options.allow ? options.allow.map(parseCidr) : null;
    this.deny = (options.deny ?? DEFAULT_DENY).map(parseCidr);
  }

  /**
   * Whether `address` may be contacted, and why not. Remembered per address (the policy never
   * changes): deciding parses the address twice and walks ipaddr.js's range table, ~3 µs —
   * paid on every template request and every port probed, mostly for the same few addresses.
   */
  check(address: string): Readonly<ScopeDecision> {
    let decision = this.decisions.get(address);
    if (decision === undefined) {
      decision = this.decide(address);
      if (this.decisions.size >= MAX_DECISIONS) this.decisions.clear();
      this.decisions.set(address, decision);
    }
    return decision;
  }

  private decide(address: string): ScopeDecision {
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    let range: string;
    try {
      addr = normalise(address);
      range = classifyAddress(address);
    } catch {
      return { allowed: false, reason: 'not an IP address', range: 'invalid' };
    }
    const explicitlyAllowed = this.allow?.some((c) => inCidr(addr, c)) ?? false;
    if (NEVER.has(range)) return { allowed: false, reason: `${range} address`, range };
    if (this.deny.some((c) => inCidr(addr, c)) && !explicitlyAllowed) {
      return { allowed: false, reason: 'denied address (cloud metadata)', range };
    }
    if (range !== 'unicast' && !this.allowPrivate) {
      return { allowed: false, reason: `${range} address refused (allowPrivate is off)`, range };
    }
    if (this.allow && !explicitlyAllowed) return { allowed: false, reason: 'outside the allow-list', range };
    return { allowed: true };
  }

  isAllowed(address: string): boolean {
    return this.check(address).allowed;
  }
}

export class ScopeError extends Error {
  readonly code = 'scope_refused';
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`refused to contact ${address}: ${reason}`);
    this.name = 'ScopeError';
  }
}
