import net from 'node:net';
import type { DnsResolver, DnsServer } from '../dns/dns-resolver.ts';
import { dataOf } from '../dns/dns-resolver.ts';
import type { ScopePolicy } from '../scope/scope-policy.ts';

export interface AxfrResult {
  server: string;
  names: string[];
}

/**
 * Tries a zone transfer from the zone's name servers (port 53, scope-checked) and from the
 * configured resolvers. Returns the first server that allowed it, or null.
 */
export async function attemptZoneTransfer(
  resolver: DnsResolver,
  policy: ScopePolicy,
  domain: string,
  signal?: AbortSignal,
): Promise<AxfrResult | null> {
  const servers: DnsServer[] = [...resolver.servers];
  try {
    const ns = await resolver.query(domain, 'NS', signal);
    for (const a of ns.answers.filter((x) => x.type === 'NS')) {
      const host = String(dataOf(a));
      const r = await resolver.resolveHost(host, signal).catch(() => null);
      for (const ip of r?.addresses ?? []) {
        if (policy.isAllowed(ip) && net.isIP(ip)) servers.push({ host: ip, port: 53 });
      }
    }
  } catch {
    // no NS answer: try the resolvers only
  }
  const seen = new Set<string>();
  for (const server of servers) {
    const key = `${server.host}:${server.port}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      const answers = await resolver.axfr(domain, server, signal);
      const names = new Set<string>();
      for (const a of answers) {
        const n = a.name.toLowerCase().replace(/\.$/, '');
        if (!n.startsWith('*.')) names.add(n);
      }
      return { server: key, names: [...names] };
    } catch {
      // refused or unreachable
    }
  }
  return null;
}
