import { z } from 'zod';

/** The spec's plan keys (section 3, "Plan/tariff"). */
export const PLAN_KEYS = ['trial_scan', 'try_it', 'starter', 'business', 'enterprise'] as const;
export const ZPlanKey = z.enum(PLAN_KEYS);
export type TPlanKey = z.infer<typeof ZPlanKey>;

export const PLAN_NAMES: Record<TPlanKey, string> = {
  trial_scan: 'Trial scan',
  try_it: 'Try it!',
  starter: 'Starter',
  business: 'Business',
  enterprise: 'Enterprise',
};

/**
 * What each plan allows (spec section 9, "Plans"), as data. `null` means no fixed limit.
 * Where the spec is silent the value is our reading of it (see the comments).
 */
export interface TPlanLimits {
  /** Domain targets at once ("one domain", "up to 3 domains"). */
  domains: number | null;
  /** External IP addresses of peer and network targets together ("100 external IPs"). */
  externalIps: number;
  /** Subdomains discovered per scan ("30 subdomains"). */
  subdomains: number;
  /** Scans started per calendar month (UTC). */
  scansPerMonth: number | null;
  /**
   * "one-time scan": each scan needs a paid one-time payment of its own, used by the scan's
   * creation (a second scan on the same payment is refused with a 403).
   */
  oneTimeScan: boolean;
  /** Subclasses a scan may run. */
  subclasses: readonly ('exploit_scanner' | 'exploit_db' | 'leakcheck')[];
  /** "class/subclass choice": may create custom scans. */
  customScanConfig: boolean;
  /**
   * "basic report": false hides every finding's details on every surface (events API, finding
   * dialog, PDF, CSV, JSON) — see `FINDING_DETAIL_FIELDS` and docs/plans-limits.md.
   */
  findingDetails: boolean;
}

/** What a plan without `findingDetails` does not see: the fields that explain or reproduce a finding. */
export const FINDING_DETAIL_FIELDS = {
  exploit_scanner: [
    'description',
    'impact',
    'remediation',
    'references',
    'classification',
    'extracted',
    'evidence',
  ],
  exploit_db: ['description', 'cvss_vector', 'cwe', 'references'],
  leakcheck: ['password', 'sources'],
} as const;

const ALL_SUBCLASSES = ['exploit_scanner', 'exploit_db', 'leakcheck'] as const;

export const PLAN_LIMITS: Record<TPlanKey, TPlanLimits> = {
  // "demo scan with basic report": templates only, a single scan.
  trial_scan: {
    domains: 1,
    externalIps: 100,
    subdomains: 30,
    scansPerMonth: 1,
    oneTimeScan: false,
    subclasses: ['exploit_scanner'],
    customScanConfig: false,
    findingDetails: false,
  },
  // "one-time scan": one scan per paid one-time payment (not a monthly allowance; the "three times
  // per week" of the spec's text describes the schedule choice, which needs a payment per run).
  try_it: {
    domains: 1,
    externalIps: 100,
    subdomains: 30,
    scansPerMonth: null,
    oneTimeScan: true,
    subclasses: ALL_SUBCLASSES,
    customScanConfig: true,
    findingDetails: true,
  },
  starter: {
    domains: 1,
    externalIps: 100,
    subdomains: 30,
    scansPerMonth: 4,
    oneTimeScan: false,
    subclasses: ALL_SUBCLASSES,
    customScanConfig: false,
    findingDetails: true,
  },
  business: {
    domains: 3,
    externalIps: 1000,
    subdomains: 200,
    scansPerMonth: 12,
    oneTimeScan: false,
    subclasses: ALL_SUBCLASSES,
    customScanConfig: true,
    findingDetails: true,
  },
  // "domains by request", "individual scan frequency".
  enterprise: {
    domains: null,
    externalIps: 10_000,
    subdomains: 10_000,
    scansPerMonth: null,
    oneTimeScan: false,
    subclasses: ALL_SUBCLASSES,
    customScanConfig: true,
    findingDetails: true,
  },
};
