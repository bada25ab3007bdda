import type { Finding } from '../findings/types.js';
import type { TlsCertificateInfo } from '../probe/tls-info.js';

export interface SubdomainAsset {
  kind: 'subdomain';
  name: string;
  /** Registrable domain (the target's main domain). */
  domain: string;
  ips: string[];
  /** CNAME chain, in order; kept for takeover checks. */
  cnames: string[];
  /** The chain ends in NXDOMAIN. */
  dangling: boolean;
  sources: string[];
}

export interface IpAsset {
  kind: 'ip';
  ip: string;
  version: 4 | 6;
  hostnames: string[];
}

export interface ServiceAsset {
  kind: 'service';
  ip: string;
  port: number;
  transport: 'tcp';
  service: string;
  product?: string;
  version?: string;
  cpe?: string;
  tls: boolean;
  banner?: string;
  source: 'builtin' | 'nmap';
}

export interface UrlAsset {
  kind: 'url';
  url: string;
  finalUrl: string;
  host: string;
  ip: string;
  port: number;
  status: number;
  title: string;
  contentType: string;
  bodySize: number;
  bodySha256: string;
  faviconHash?: number;
  headers: Record<string, string[]>;
  redirects: { url: string; status: number; location: string }[];
  tls?: TlsCertificateInfo;
}

export interface TechnologyAsset {
  kind: 'technology';
  name: string;
  version?: string;
  confidence: number;
  categories: string[];
  cpe?: string;
  website?: string;
  /** `host:port` of the URL or service, or a domain for DNS-based detections. */
  target: string;
  host: string;
  port?: number;
  source: 'http' | 'banner' | 'dns';
}

export interface EmailAsset {
  kind: 'email';
  email: string;
  domain: string;
  sources: string[];
}

export type Asset = SubdomainAsset | IpAsset | ServiceAsset | UrlAsset | TechnologyAsset | EmailAsset;
export type AssetKind = Asset['kind'];

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Why a host was not scanned, as a code a UI translates (`reason` is the English text of it). */
export type SkippedHostCode = 'host_limit' | 'no_open_port' | 'plan_subdomain_limit';

export interface SkippedHost {
  host: string;
  reason: string;
  code: SkippedHostCode;
  /** The numbers the message names (the limit, the ports scanned). */
  params: Record<string, string | number>;
}

export interface ScanSummary {
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  aborted: boolean;
  counts: Record<AssetKind, number> & { findings: number };
  stages: {
    name: string;
    status: 'done' | 'failed' | 'timeout' | 'stalled' | 'aborted' | 'skipped';
    durationMs: number;
    reason?: string;
  }[];
  /** Hosts that were resolved but answered on no scanned port, and hosts refused by scope. */
  skippedHosts: SkippedHost[];
  refused: { address: string; host?: string; via: string; reason: string }[];
}

export type ScanEvent =
  | { type: 'asset'; asset: Asset }
  | { type: 'finding'; finding: Finding }
  | { type: 'progress'; stage: string; done: number; total: number; etaMs?: number }
  | {
      type: 'log';
      level: LogLevel;
      stage?: string;
      /** Machine-readable, e.g. `scope_refused`, `stage_stalled`, `wildcard_zone`. */
      code?: string;
      message: string;
      data?: Record<string, string | number | boolean>;
    }
  | { type: 'summary'; summary: ScanSummary };
