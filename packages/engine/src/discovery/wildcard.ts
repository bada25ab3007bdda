import { randomBytes } from 'node:crypto';
import type { DnsResolver, HostResolution } from '../dns/dns-resolver.ts';

export interface WildcardInfo {
  domain: string;
  isWildcard: boolean;
  addresses: Set<string>;
  cnames: Set<string>;
}

/**
 * Asks for a few random labels under the domain: any answer means a wildcard record. The
 * answers are kept so that brute-forced names answering the same are dropped.
 */
export async function detectWildcard(
  resolver: DnsResolver,
  domain: string,
  signal?: AbortSignal,
  probes = 3,
): Promise<WildcardInfo> {
  const info: WildcardInfo = { domain, isWildcard: false, addresses: new Set(), cnames: new Set() };
  const results = await Promise.all(
    Array.from({ length: probes }, () =>
      resolver.resolveHost(`pmtr-${randomBytes(6).toString('hex')}.${domain}`, signal).catch(() => null),
    ),
  );
  for (const r of results) {
    if (!r || (!r.addresses.length && !r.cnames.length)) continue;
    info.isWildcard = true;
    for (const a of r.addresses) info.addresses.add(a);
    for (const c of r.cnames) info.cnames.add(c);
  }
  return info;
}

/** True when a resolution is only what the wildcard answers (no false positives). */
export function isWildcardAnswer(r: HostResolution, wildcard: WildcardInfo | undefined): boolean {
  if (!wildcard?.isWildcard) return false;
  if (r.cnames.length)
    return (
      r.cnames.every((c) => wildcard.cnames.has(c)) && r.addresses.every((a) => wildcard.addresses.has(a))
    );
  return r.addresses.length > 0 && r.addresses.every((a) => wildcard.addresses.has(a));
}
