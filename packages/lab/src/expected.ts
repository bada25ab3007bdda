import { readFileSync } from 'node:fs';
import { DEFAULT_SUBNET } from './lab-definition.ts';

export interface ExpectedSubdomain {
  name: string;
  ips: string[];
  cnames: string[];
}
export interface ExpectedService {
  ip: string;
  port: number;
  service: string;
  product?: string;
  version?: string;
}
export interface ExpectedUrl {
  url: string;
  status: number;
  title: string;
}
export interface ExpectedTechnology {
  /** `host:port` of the URL or service it was seen on. */
  target: string;
  name: string;
  version?: string;
}
export interface ExpectedFinding {
  id: string;
  description: string;
  subclass: string;
  severity: string;
  host: string;
  port?: number;
  path?: string;
  tech?: string;
  version?: string;
  cves?: string[];
  templateId: string | null;
}
/**
 * One finding a full scan of the lab (all classes, the lab's CVE feed and leak corpus loaded)
 * reports: the planted issues and what follows from them on other names of the same site.
 * `planted` names the planted issue it comes from, when it is one.
 */
export type ExpectedScanFinding =
  | {
      subclass: 'exploit_scanner';
      templateId: string;
      host: string;
      /** Port and path of the matched URL or service (none for DNS findings). */
      port?: number;
      path?: string;
      planted?: string;
    }
  | {
      subclass: 'exploit_db';
      cve: string;
      tech: string;
      version: string;
      host: string;
      port: number;
      planted?: string;
    }
  | { subclass: 'leakcheck'; email: string; leakDate: string; sources: string[]; mainDomain: string };

export interface LeakRecord {
  email: string;
  password: string;
  sources: string[];
  leakDate: string;
}
export interface ExpectedLab {
  subnet: string;
  domains: string[];
  assets: {
    subdomains: ExpectedSubdomain[];
    ips: string[];
    services: ExpectedService[];
    urls: ExpectedUrl[];
    technologies: ExpectedTechnology[];
    emails: string[];
  };
  findings: ExpectedFinding[];
  /** Every finding of a full scan of the lab — no more, no fewer (the known-answer tests). */
  scanFindings: ExpectedScanFinding[];
  leakCorpus: LeakRecord[];
}

export const EXPECTED_PATH = new URL('../expected.json', import.meta.url);

export function loadExpected(): ExpectedLab {
  return JSON.parse(readFileSync(EXPECTED_PATH, 'utf8')) as ExpectedLab;
}

/** expected.json rewritten for a lab started on another subnet or with fallback ports. */
export function remapExpected(subnet: string, portMap: Record<number, number>): ExpectedLab {
  const base = loadExpected();
  const from = `${DEFAULT_SUBNET}.`;
  const ip = (s: string) => (s.startsWith(from) ? `${subnet}.${s.slice(from.length)}` : s);
  const port = (p: number) => portMap[p] ?? p;
  const target = (t: string) => {
    const i = t.lastIndexOf(':');
    return `${ip(t.slice(0, i))}:${port(Number(t.slice(i + 1)))}`;
  };
  const url = (u: string) => {
    const parsed = new URL(u);
    const usual = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
    const p = port(usual);
    const defaultPort = parsed.protocol === 'https:' ? 443 : 80;
    return `${parsed.protocol}//${parsed.hostname}${p === defaultPort ? '' : `:${p}`}${parsed.pathname}`;
  };
  return {
    ...base,
    subnet,
    assets: {
      subdomains: base.assets.subdomains.map((s) => ({ ...s, ips: s.ips.map(ip) })),
      ips: base.assets.ips.map(ip),
      services: base.assets.services.map((s) => ({ ...s, ip: ip(s.ip), port: port(s.port) })),
      urls: base.assets.urls.map((u) => ({ ...u, url: url(u.url) })),
      technologies: base.assets.technologies.map((t) => ({ ...t, target: target(t.target) })),
      emails: base.assets.emails,
    },
    findings: base.findings.map((f) => (f.port ? { ...f, port: port(f.port) } : f)),
    scanFindings: base.scanFindings.map((f) =>
      f.subclass !== 'leakcheck' && f.port ? { ...f, port: port(f.port) } : f,
    ),
  };
}
