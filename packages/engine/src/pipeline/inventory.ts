import net from 'node:net';
import type { WildcardInfo } from '../discovery/wildcard.ts';
import type { HttpProbeResult } from '../probe/http-probe.ts';
import type { TlsCertificateInfo } from '../probe/tls-info.ts';
import type {
  EmailAsset,
  IpAsset,
  ServiceAsset,
  SkippedHost,
  SubdomainAsset,
  TechnologyAsset,
  UrlAsset,
} from './events.ts';

export interface HttpEndpoint {
  url: string;
  host: string;
  ip: string;
  port: number;
  scheme: 'http' | 'https';
  result: HttpProbeResult;
  tls?: TlsCertificateInfo;
}

/**
 * What discovery has found so far. Stages read it (later stages: templates, CVE matching,
 * leak lookup) and the discovery stages fill it; `add*` return false for duplicates.
 */
export class Inventory {
  readonly subdomains = new Map<string, SubdomainAsset>();
  readonly ips = new Map<string, IpAsset>();
  readonly services = new Map<string, ServiceAsset>();
  readonly endpoints = new Map<string, HttpEndpoint>();
  readonly urls = new Map<string, UrlAsset>();
  readonly technologies = new Map<string, TechnologyAsset>();
  /** `ip:port` → the technology its service named on the wire (product and version). */
  readonly serviceTechnologies = new Map<string, { name: string; version?: string }>();
  readonly emails = new Map<string, EmailAsset>();
  /** DNS records seen per target domain: type → values (TXT, MX, NS, SOA, CAA). */
  readonly dnsRecords = new Map<string, Record<string, string[]>>();
  /** Names already tried (resolved or not), so feedback loops stop. */
  readonly triedNames = new Set<string>();
  /** IPs whose ports were scanned. */
  readonly scannedIps = new Set<string>();
  /** Names waiting for resolution, with where they came from. */
  readonly pendingNames = new Map<string, Set<string>>();
  /** Wildcard answers per target domain. */
  readonly wildcards = new Map<string, WildcardInfo>();
  readonly refused: RefusedContact[] = [];
  readonly skippedHosts: SkippedHost[] = [];

  addCandidate(name: string, source: string): boolean {
    const n = name.toLowerCase().replace(/\.$/, '');
    if (this.triedNames.has(n)) return false;
    const sources = this.pendingNames.get(n) ?? new Set<string>();
    sources.add(source);
    this.pendingNames.set(n, sources);
    return true;
  }

  addSubdomain(a: SubdomainAsset): boolean {
    if (this.subdomains.has(a.name)) return false;
    this.subdomains.set(a.name, a);
    return true;
  }

  /** Adds or extends an IP with a hostname; returns the asset when it is new. */
  addIp(ip: string, hostname?: string): IpAsset | null {
    const existing = this.ips.get(ip);
    if (existing) {
      if (hostname && !existing.hostnames.includes(hostname)) existing.hostnames.push(hostname);
      return null;
    }
    const a: IpAsset = {
      kind: 'ip',
      ip,
      version: net.isIPv6(ip) ? 6 : 4,
      hostnames: hostname ? [hostname] : [],
    };
    this.ips.set(ip, a);
    return a;
  }

  addService(s: ServiceAsset): boolean {
    const key = `${s.ip}:${s.port}`;
    if (this.services.has(key)) return false;
    this.services.set(key, s);
    return true;
  }

  addTechnology(t: TechnologyAsset): boolean {
    const key = `${t.target}|${t.name}`;
    if (this.technologies.has(key)) return false;
    this.technologies.set(key, t);
    return true;
  }

  addEmail(email: string, source: string): EmailAsset | null {
    const e = email.toLowerCase();
    const existing = this.emails.get(e);
    if (existing) {
      if (!existing.sources.includes(source)) existing.sources.push(source);
      return null;
    }
    const a: EmailAsset = { kind: 'email', email: e, domain: e.split('@')[1] ?? '', sources: [source] };
    this.emails.set(e, a);
    return a;
  }

  servicesOf(ip: string): ServiceAsset[] {
    return [...this.services.values()].filter((s) => s.ip === ip);
  }

  /** Names (subdomains) that resolve to an address. */
  namesOf(ip: string): string[] {
    return this.ips.get(ip)?.hostnames ?? [];
  }

  /** Addresses known for a name (from resolution), for the HTTP connector. */
  addressesOf(name: string): string[] | undefined {
    return this.subdomains.get(name)?.ips;
  }
}

export interface RefusedContact {
  address: string;
  host?: string;
  via: string;
  reason: string;
}
