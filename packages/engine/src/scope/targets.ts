import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { getDomain } from 'tldts';

export type TargetType = 'domain' | 'peer' | 'network';

export type Target =
  | {
      type: 'domain' /** ASCII (punycode) name */;
      domain: string /** registrable domain */;
      registrable: string;
    }
  | { type: 'peer'; address: string }
  | { type: 'network'; cidr: string; size: number };

export interface TargetInput {
  type?: TargetType;
  value: string;
}

export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

export function normaliseDomain(input: string): string {
  const trimmed = input.trim().replace(/\.$/, '').toLowerCase();
  const ascii = domainToASCII(trimmed);
  if (!ascii) throw new TargetError(`not a valid domain name: ${input}`);
  if (ascii.length > 253) throw new TargetError('domain name too long');
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)))
    throw new TargetError(`not a valid domain name: ${input}`);
  return ascii;
}

/**
 * Parses a target. Without `type`, the kind is guessed: CIDR → network, IP → peer, else domain.
 * `maxNetworkSize` bounds how many addresses a network target may expand to.
 */
export function parseTarget(input: string | TargetInput, maxNetworkSize = 4096): Target {
  const { type, value } = typeof input === 'string' ? { type: undefined, value: input } : input;
  const v = value.trim();
  const kind: TargetType = type ?? (v.includes('/') ? 'network' : ipaddr.isValid(v) ? 'peer' : 'domain');
  if (kind === 'peer') {
    if (!ipaddr.isValid(v)) throw new TargetError(`not an IP address: ${v}`);
    const addr = ipaddr.process(v);
    return { type: 'peer', address: addr.toString() };
  }
  if (kind === 'network') {
    let net: [ipaddr.IPv4 | ipaddr.IPv6, number];
    try {
      net = ipaddr.parseCIDR(v);
    } catch {
      throw new TargetError(`not a CIDR network: ${v}`);
    }
    const [addr, bits] = net;
    const hostBits = (addr.kind() === 'ipv4' ? 32 : 128) - bits;
    const size = hostBits > 52 ? Number.MAX_SAFE_INTEGER : 2 ** hostBits;
    if (size > maxNetworkSize)
      throw new TargetError(`network ${v} has ${size} addresses, more than the limit ${maxNetworkSize}`);
    const base =
      addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(v) : ipaddr.IPv6.networkAddressFromCIDR(v);
    return { type: 'network', cidr: `${base.toString()}/${bits}`, size };
  }
  const domain = normaliseDomain(v);
  const registrable = getDomain(domain, { allowPrivateDomains: true }) ?? domain;
  return { type: 'domain', domain, registrable };
}

/** Every address of a network target (bounded by parseTarget's limit). */
export function* networkAddresses(cidr: string): Generator<string> {
  const [addr, bits] = ipaddr.parseCIDR(cidr);
  if (addr.kind() === 'ipv4') {
    const base = ipaddr.IPv4.networkAddressFromCIDR(cidr)
      .toByteArray()
      .reduce((a, b) => a * 256 + b, 0);
    const size = 2 ** (32 - bits);
    for (let i = 0; i < size; i++) {
      const n = base + i;
      yield [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    }
    return;
  }
  const bytes = ipaddr.IPv6.networkAddressFromCIDR(cidr).toByteArray();
  let value = bytes.reduce((a, b) => (a << 8n) | BigInt(b), 0n);
  const size = 1n << BigInt(128 - bits);
  for (let i = 0n; i < size; i++, value++) {
    const out: number[] = [];
    let v = value;
    for (let j = 0; j < 16; j++) {
      out.unshift(Number(v & 255n));
      v >>= 8n;
    }
    yield ipaddr.fromByteArray(out).toString();
  }
}

/** True when `name` is the domain itself or one of its subdomains. */
export function isWithinDomain(name: string, domain: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return n === domain || n.endsWith(`.${domain}`);
}
