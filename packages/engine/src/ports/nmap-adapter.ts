import { execFile, spawnSync } from 'node:child_process';
import { XMLParser } from 'fast-xml-parser';
import { ScopeError, type ScopePolicy } from '../scope/scope-policy.ts';
import type { ServiceInfo } from './service-probes.ts';
import { recogniseServerHeader } from './service-recognition.ts';

export interface NmapOptions {
  path?: string;
  /** Extra timing template, e.g. `-T4`. */
  timing?: string;
  /** Service detection (-sV); off gives a bare connect scan. */
  serviceDetection?: boolean;
  signal?: AbortSignal;
}

export function isNmapAvailable(path = 'nmap'): boolean {
  try {
    return spawnSync(path, ['--version'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  } catch {
    return false;
  }
}

/** Compresses a sorted port list into nmap's `-p` syntax (`1-5,22,80`). */
export function portArgument(ports: readonly number[]): string {
  const sorted = [...new Set(ports)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] as number) === (sorted[j] as number) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

interface XmlService {
  '@_name'?: string;
  '@_product'?: string;
  '@_version'?: string;
  '@_tunnel'?: string;
  cpe?: string | string[];
}

// nmap product names → the technology names the fingerprints and CVE matching use.
const NMAP_TECH: [RegExp, string][] = [
  [/^OpenSSH/, 'OpenSSH'],
  [/^Dropbear/, 'Dropbear'],
  [/^vsftpd/i, 'vsftpd'],
  [/^ProFTPD/, 'ProFTPD'],
  [/^Exim/, 'Exim'],
  [/^Postfix/, 'Postfix'],
  [/^Dovecot/, 'Dovecot'],
  [/^Redis/, 'Redis'],
  [/^MySQL/, 'MySQL'],
  [/^MariaDB/, 'MariaDB'],
  [/^PostgreSQL/, 'PostgreSQL'],
  [/^MongoDB/, 'MongoDB'],
  [/^Memcached/i, 'Memcached'],
  [/^Squid/, 'Squid'],
];

/** nmap's CPE 2.2 URI (`cpe:/a:openbsd:openssh:7.2p2`) as a CPE 2.3 name. */
export function cpe23FromUri(uri: string): string | undefined {
  const m = /^cpe:\/([aho]):(.*)$/.exec(uri.trim());
  if (!m) return undefined;
  const parts = (m[2] ?? '').split(':');
  while (parts.length < 10) parts.push('*');
  return `cpe:2.3:${m[1]}:${parts
    .slice(0, 10)
    .map((p) => p || '*')
    .join(':')}`;
}
interface XmlPort {
  '@_protocol'?: string;
  '@_portid'?: string;
  state?: { '@_state'?: string };
  service?: XmlService;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Maps nmap's service names onto ours (nmap: `http` + tunnel ssl → `https`). */
function mapService(s: XmlService | undefined): Pick<ServiceInfo, 'service' | 'product' | 'version' | 'tls'> {
  const name = s?.['@_name'] ?? 'unknown';
  const tls = s?.['@_tunnel'] === 'ssl' || name === 'https';
  const service = name === 'http' && tls ? 'https' : tls && name !== 'https' ? `ssl/${name}` : name;
  const out: Pick<ServiceInfo, 'service' | 'product' | 'version' | 'tls'> = { service, tls };
  if (s?.['@_product']) out.product = s['@_product'];
  if (s?.['@_version']) out.version = s['@_version'];
  return out;
}

/**
 * nmap's version field as one exact version, or undefined: it carries distribution suffixes
 * ("7.2p2 Ubuntu 4ubuntu2.10" → 7.2p2) and sometimes a range ("9.6.0 or later",
 * "2.2.X - 2.3.X"), which is no version at all.
 */
export function exactNmapVersion(v: string | undefined): string | undefined {
  if (!v) return undefined;
  if (/\bor (?:later|earlier)\b|\s-\s|\.[xX]\b/.test(v)) return undefined;
  return v.split(' ')[0] || undefined;
}

/**
 * nmap's Tomcat as one product: "Apache Tomcat/Coyote JSP engine" 1.1 names the HTTP connector
 * and its version, not Tomcat's; the built-in probes read Tomcat's own version from its pages.
 */
function tomcatFromNmap(info: ServiceInfo): boolean {
  if (!/Tomcat|Coyote/i.test(info.product ?? '')) return false;
  if (/Coyote/i.test(info.product ?? '')) delete info.version;
  info.product = 'Apache Tomcat';
  return true;
}

/** Parses `nmap -oX` output into the same result type as the built-in scanner. */
export function parseNmapXml(xml: string): ServiceInfo[] {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' });
  const doc = parser.parse(xml) as { nmaprun?: { host?: unknown } };
  const out: ServiceInfo[] = [];
  for (const host of asArray(
    doc.nmaprun?.host as Record<string, unknown> | Record<string, unknown>[] | undefined,
  )) {
    const addresses = asArray(host.address as { '@_addr'?: string; '@_addrtype'?: string } | undefined);
    const ip = addresses.find((a) => a['@_addrtype'] === 'ipv4' || a['@_addrtype'] === 'ipv6')?.['@_addr'];
    if (!ip) continue;
    const ports = asArray((host.ports as { port?: XmlPort | XmlPort[] } | undefined)?.port);
    for (const p of ports) {
      if (p.state?.['@_state'] !== 'open' || p['@_protocol'] !== 'tcp') continue;
      const mapped = mapService(p.service);
      const info: ServiceInfo = {
        ip,
        port: Number(p['@_portid']),
        transport: 'tcp',
        source: 'nmap',
        ...mapped,
      };
      const version = exactNmapVersion(info.version);
      if (version) info.version = version;
      else delete info.version;
      const tomcat = tomcatFromNmap(info);
      // Same technology naming as the built-in recogniser.
      if (tomcat) info.tech = 'Apache Tomcat';
      else if ((info.service === 'http' || info.service === 'https') && info.product) {
        const r = recogniseServerHeader(
          `${info.product.replace(/ httpd$/, '')}/${info.version ?? ''}`,
          info.service,
        );
        if (r.tech) info.tech = r.tech;
      } else if (info.product) {
        const tech = NMAP_TECH.find(([re]) => re.test(info.product ?? ''))?.[1];
        if (tech) info.tech = tech;
      }
      const cpe = asArray(p.service?.cpe)
        .map(cpe23FromUri)
        .find((c) => c?.startsWith('cpe:2.3:a:'));
      if (tomcat) info.cpe = `cpe:2.3:a:apache:tomcat:${info.version ?? '*'}:*:*:*:*:*:*:*`;
      else if (cpe) info.cpe = cpe;
      out.push(info);
    }
  }
  return out.sort((a, b) => a.port - b.port);
}

/** `nmap -sT -sV --open -oX - -p <ports> <address>` after a scope check of the address. */
export function runNmap(
  policy: ScopePolicy,
  address: string,
  ports: readonly number[],
  options: NmapOptions = {},
): Promise<ServiceInfo[]> {
  const decision = policy.check(address);
  if (!decision.allowed) return Promise.reject(new ScopeError(address, decision.reason));
  const args = [
    '-sT',
    ...(options.serviceDetection === false ? [] : ['-sV']),
    '--open',
    '-n',
    '-Pn',
    '-oX',
    '-',
  ];
  if (options.timing) args.push(options.timing);
  args.push('-p', portArgument(ports), address);
  return new Promise((resolve, reject) => {
    execFile(
      options.path ?? 'nmap',
      args,
      { maxBuffer: 64 * 1024 * 1024, signal: options.signal },
      (err, stdout) => {
        if (err) return reject(err);
        try {
          resolve(parseNmapXml(stdout));
        } catch (e) {
          reject(e);
        }
      },
    );
  });
}
