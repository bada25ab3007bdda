import type { Severity } from '../findings/types.ts';

/** One CPE match rule of a configuration (NVD `cpe_match` / `cpeMatch`). */
export interface CpeMatchRule {
  /** The CPE 2.3 string as the feed states it. */
  criteria: string;
  part: string;
  vendor: string;
  product: string;
  /** `*` (any), `-` (not applicable) or a version. */
  version: string;
  update: string;
  vulnerable: boolean;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}

export interface ConfigNode {
  operator: 'AND' | 'OR';
  negate: boolean;
  matches: CpeMatchRule[];
  children: ConfigNode[];
}

/** A configuration holds when its nodes hold (nodes are joined by `operator`, OR by default). */
export interface Configuration {
  operator: 'AND' | 'OR';
  nodes: ConfigNode[];
}

export interface VulnRecord {
  /** CVE id, or another advisory id (GHSA, retire.js summary) when there is none. */
  id: string;
  /** Other ids of the same issue (retire.js lists several CVEs). */
  aliases: string[];
  description?: string;
  published?: string;
  lastModified?: string;
  cvssScore?: number;
  cvssVector?: string;
  severity: Severity;
  cwe: string[];
  references: string[];
  configurations: Configuration[];
  source: 'nvd' | 'retirejs';
}

/** A detected product: from a banner, a fingerprint (maybe with a CPE) or JavaScript detection. */
export interface DetectedProduct {
  /** Display name, e.g. `Nginx`, `Apache HTTP Server`, `jQuery`. */
  name: string;
  version: string;
  /** CPE 2.3 of the product when the detection knows it (`cpe:2.3:a:f5:nginx:...`). */
  cpe?: string;
  /** JavaScript library name as retire.js and npm know it (`jquery`). */
  jsLibrary?: string;
  website?: string;
  /** The banner the version was read from (`Apache/2.4.62 (Debian)`): the match then rests on it alone. */
  banner?: string;
}
