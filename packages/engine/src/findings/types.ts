import type { OobInteraction } from '../protocols/oob/oob-types.ts';
/**
 * The three finding families the engine reports. Field names follow the spec's sortable
 * fields per subclass (exploit_scanner, exploit_db, leakcheck) so the server can store each
 * field in its own indexed column without renaming.
 */

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Higher is worse; used for `severity_ordering` sorting. */
export const SEVERITY_ORDERING: Record<Severity, number> = {
  critical: 5,
  high: 4,
  medium: 3,
  low: 2,
  info: 1,
  unknown: 0,
};

export interface Classification {
  cvssMetrics?: string;
  cvssScore?: number;
  cveId?: string[];
  cweId?: string[];
  epssScore?: number;
  epssPercentile?: number;
  cpe?: string;
}

export interface Evidence {
  /** The raw request as sent (secrets masked). */
  request: string;
  /** The response, truncated and with secrets masked. */
  response: string;
  /** A curl command that reproduces the request. */
  curl: string;
  /** Out-of-band checks: the call-backs that proved the flaw (at most 5; raw texts masked and truncated). */
  interactions?: OobInteraction[];
  /** The call-back arrived after the run's wait, found by the stage's last poll. */
  late?: true;
}

/** exploit_scanner: one template match. */
export interface TemplateFinding {
  subclass: 'exploit_scanner';
  /** Stable across scans: template + matcher + host:port + path. */
  fingerprint: string;
  templateId: string;
  name: string;
  severity: Severity;
  severityOrdering: number;
  host: string;
  mainDomain: string;
  subdomain: string;
  matchedAt: string;
  matcherName?: string;
  extracted: string[];
  description?: string;
  impact?: string;
  remediation?: string;
  references: string[];
  tags: string[];
  classification?: Classification;
  evidence?: Evidence;
}

/** exploit_db: a detected technology version matched to a known CVE. */
export interface CveFinding {
  subclass: 'exploit_db';
  fingerprint: string;
  tech: string;
  version: string;
  cve: string;
  severity: Severity;
  severityOrdering: number;
  cvssScore?: number;
  description?: string;
  /** Published date of the CVE (ISO 8601). */
  infoCreatedTs?: string;
  /** Last-modified date of the CVE (ISO 8601). */
  infoUpdatedTs?: string;
  lastCheckTs: string;
  host: string;
  mainDomain: string;
  subdomain: string;
  /** The vulnerable range, as the feed states it. */
  versionStart?: string;
  versionEnd?: string;
  /** True when the range bound itself is not vulnerable (`versionStartExcluding` / `versionEndExcluding`). */
  versionStartExcluding?: boolean;
  versionEndExcluding?: boolean;
  /** Port the technology was seen on. */
  port?: number;
  cvssVector?: string;
  cwe?: string[];
  latestVersion?: string;
  homepage?: string;
  downloadsPerMonth?: number;
  sourceRepository?: string;
  references: string[];
  /** How far the match can be trusted: `high` (the software's own files), `medium`/`low` (a banner version only). */
  matchConfidence?: 'high' | 'medium' | 'low';
  /** Why the fix may be backported (distribution builds keep the upstream version). */
  backportNote?: string;
  /** Distribution package revision the banner names (`2+deb12u3`). */
  packageRevision?: string;
}

/** leakcheck: one e-mail address seen in one leak. */
export interface LeakFinding {
  subclass: 'leakcheck';
  fingerprint: string;
  email: string;
  /** Masked for display, e.g. `pa******rd`; the clear value never leaves the engine's source. */
  password: string;
  leakDate?: string;
  sources: string[];
  mainDomain: string;
  /** The password encrypted at rest (AES-256-GCM, `v1:` format) when the source gave one and a key is configured. */
  passwordEncrypted?: string;
}

export type Finding = TemplateFinding | CveFinding | LeakFinding;
