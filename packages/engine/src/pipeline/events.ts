import type { Finding } from '../findings/types.ts';
import type { TlsCertificateInfo } from '../probe/tls-info.ts';
import type { StageSkip } from './stage-report.ts';

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
  /** The text the version was read from (a service greeting, a Server header), when it was a banner. */
  banner?: string;
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

export type { StageSkip };

/** How one stage ended and what of its work was done. */
export interface StageOutcome {
  name: string;
  /** `timeout`: its time limit ended it; `stalled`: the watchdog did (no progress). */
  status: 'done' | 'failed' | 'timeout' | 'stalled' | 'aborted' | 'skipped';
  durationMs: number;
  reason?: string;
  /** Units of work planned and run to an answer, when the stage counts them. */
  planned?: number;
  ran?: number;
  /** Work not done, by reason (errors, time-outs, work left when the stage was ended). */
  skipped: StageSkip[];
  /** The stage ended early or left work undone: the scan is partial. */
  partial: boolean;
}

export interface ScanSummary {
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  aborted: boolean;
  /** Some stage ended early or skipped work: "done" would overstate what ran. */
  partial: boolean;
  counts: Record<AssetKind, number> & { findings: number };
  stages: StageOutcome[];
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
