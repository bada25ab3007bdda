import { z } from 'zod';
import { ZOobInteraction } from './oob.ts';
import { ZScanClass, ZScanId, ZSortOrder } from './scans.ts';
import { ZSeverity, ZTargetType } from './targets.ts';

/**
 * Spec section 3, "Sortable fields per subclass". The client maps `severity` to
 * `severity_ordering` (spec section 7), so every subclass accepts both.
 */
export const EVENT_SORT_KEYS = {
  exploit_scanner: ['name', 'severity', 'severity_ordering', 'host', 'main_domain', 'subdomain', 'add_ts'],
  exploit_db: [
    'tech',
    'version',
    'info_created_ts',
    'info_updated_ts',
    'main_domain',
    'last_update_ts',
    'last_check_ts',
    'cve',
    'add_ts',
    'severity',
    'epss_score',
    'severity_ordering',
  ],
  leakcheck: ['email', 'password', 'leak_date', 'main_domain', 'add_ts', 'severity', 'severity_ordering'],
} as const;

/** Page sizes (spec section 9): 10, and 20 for exploit-db events. */
export const EVENTS_PAGE_SIZE = { exploit_scanner: 10, exploit_db: 20, leakcheck: 10 } as const;

export const FINDING_STATUSES = ['new', 'open', 'fixed', 'regressed'] as const;
export const ZFindingStatus = z.enum(FINDING_STATUSES);
export const RESOLVE_REASONS = ['false_positive', 'accepted_risk', 'fixed'] as const;
export const ZResolveReason = z.enum(RESOLVE_REASONS);

const ZSubdomainFilter = z.strictObject({
  subdomain_filter: z.string().max(255),
  is_contains: z.boolean().default(true),
});
const ZDomainFilter = z.strictObject({
  domain_filter: z.string().max(255),
  is_contains: z.boolean().default(true),
});
const ZEmailFilter = z.strictObject({
  email_filter: z.string().max(255),
  is_contains: z.boolean().default(true),
});

const common = {
  severity: z.array(ZSeverity).max(6).optional(),
  targets_type: ZTargetType.optional(),
  scan_class: ZScanClass.optional(),
  sort_order: ZSortOrder.optional(),
  subdomain_filter_opt: ZSubdomainFilter.optional(),
  main_domain_filter_opt: ZDomainFilter.optional(),
  /** Hide fixed findings and those marked resolved. */
  hide_resolved: z.boolean().optional(),
};

export const ZExploitScannerEventsBody = z.strictObject({
  ...common,
  scan_subclass: z.literal('exploit_scanner'),
  sort_key: z.enum(EVENT_SORT_KEYS.exploit_scanner).optional(),
});
export const ZExploitDbEventsBody = z.strictObject({
  ...common,
  scan_subclass: z.literal('exploit_db'),
  sort_key: z.enum(EVENT_SORT_KEYS.exploit_db).optional(),
  /** with: technologies with a known vulnerability; without: those with none. */
  vulnerabilities_existence: z.enum(['with', 'without']).optional(),
  /** true: only CVEs in CISA's Known Exploited Vulnerabilities catalogue. */
  known_exploited: z.boolean().optional(),
});
export const ZLeakcheckEventsBody = z.strictObject({
  ...common,
  scan_subclass: z.literal('leakcheck'),
  sort_key: z.enum(EVENT_SORT_KEYS.leakcheck).optional(),
  /** true: only leaks that carry a password. */
  leak_email_password: z.boolean().optional(),
  email_filter_opt: ZEmailFilter.optional(),
});

export const ZAllEventsBody = z.discriminatedUnion('scan_subclass', [
  ZExploitScannerEventsBody,
  ZExploitDbEventsBody,
  ZLeakcheckEventsBody,
]);
export type TAllEventsBody = z.infer<typeof ZAllEventsBody>;
export const ZOneEventsBody = z.discriminatedUnion('scan_subclass', [
  ZExploitScannerEventsBody.extend({ id: ZScanId }),
  ZExploitDbEventsBody.extend({ id: ZScanId }),
  ZLeakcheckEventsBody.extend({ id: ZScanId }),
]);
export type TOneEventsBody = z.infer<typeof ZOneEventsBody>;

export const ZEventsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

const lifecycle = {
  id: z.string(),
  user_target_id: z.string(),
  fingerprint: z.string(),
  severity: ZSeverity,
  severity_ordering: z.number().int(),
  main_domain: z.string(),
  status: ZFindingStatus,
  resolved: z.boolean(),
  resolved_reason: ZResolveReason.nullable(),
  add_ts: z.string(),
  first_seen: z.string(),
  last_seen: z.string(),
  fixed_at: z.string().nullable(),
};

export const ZExploitScannerEvent = z.object({
  ...lifecycle,
  scan_subclass: z.literal('exploit_scanner'),
  template_id: z.string(),
  name: z.string(),
  host: z.string(),
  subdomain: z.string(),
  matched_at: z.string(),
  description: z.string().nullable(),
  impact: z.string().nullable(),
  remediation: z.string().nullable(),
  references: z.array(z.string()),
  tags: z.array(z.string()),
  extracted: z.array(z.string()),
  classification: z.record(z.string(), z.unknown()).nullable(),
  /** How to reproduce: a curl command and the evidence (secrets masked). */
  evidence: z
    .object({
      request: z.string(),
      response: z.string(),
      curl: z.string(),
      /** Out-of-band templates: the call-backs that proved the finding (at most 5, docs/oob.md). */
      interactions: z.array(ZOobInteraction).optional(),
      /** The call-back arrived after the template's wait (found when the stage ended). */
      late: z.boolean().optional(),
    })
    .nullable(),
});
/** CISA KEV, FIRST EPSS and how far the version match can be trusted (docs/vulnerability-intel.md). */
export const ZCveIntel = z.object({
  /** Listed in CISA's Known Exploited Vulnerabilities catalogue. */
  kev: z.boolean(),
  kev_date_added: z.string().nullable(),
  kev_due_date: z.string().nullable(),
  kev_ransomware: z.boolean(),
  /** Probability of exploitation in the next 30 days (0–1) and its percentile (0–1). */
  epss_score: z.number().nullable(),
  epss_percentile: z.number().nullable(),
  /** high: the software's own files; medium/low: a banner version only (low: a distribution build). */
  match_confidence: z.enum(['high', 'medium', 'low']).nullable(),
  /** Why the fix may be backported (the distribution package revision when the banner names it). */
  backport_note: z.string().nullable(),
  package_revision: z.string().nullable(),
});
export type TCveIntel = z.infer<typeof ZCveIntel>;

export const ZExploitDbEvent = z.object({
  ...lifecycle,
  scan_subclass: z.literal('exploit_db'),
  tech: z.string(),
  version: z.string(),
  cve: z.string(),
  host: z.string(),
  subdomain: z.string(),
  port: z.number().int().nullable(),
  cvss_score: z.number().nullable(),
  cvss_vector: z.string().nullable(),
  description: z.string().nullable(),
  info_created_ts: z.string().nullable(),
  info_updated_ts: z.string().nullable(),
  last_update_ts: z.string(),
  last_check_ts: z.string(),
  version_start: z.string().nullable(),
  version_end: z.string().nullable(),
  /** True when the bound itself is not affected (NVD versionStartExcluding / versionEndExcluding). */
  version_start_excluding: z.boolean(),
  version_end_excluding: z.boolean(),
  latest_version: z.string().nullable(),
  homepage: z.string().nullable(),
  downloads_per_month: z.number().nullable(),
  source_repository: z.string().nullable(),
  cwe: z.array(z.string()),
  references: z.array(z.string()),
  ...ZCveIntel.shape,
});
export const ZLeakcheckEvent = z.object({
  ...lifecycle,
  scan_subclass: z.literal('leakcheck'),
  email: z.string(),
  /** Masked. */
  password: z.string(),
  leak_date: z.string().nullable(),
  sources: z.array(z.string()),
});
export const ZEvent = z.discriminatedUnion('scan_subclass', [
  ZExploitScannerEvent,
  ZExploitDbEvent,
  ZLeakcheckEvent,
]);
export type TEvent = z.infer<typeof ZEvent>;
export const ZEventsPage = z.object({
  items: z.array(ZEvent),
  /**
   * At most 10,000 (2,000 with a contains filter): past that `total_exact` is false and the total is
   * a lower bound (docs/events-queries.md).
   */
  total: z.number().int(),
  total_exact: z.boolean(),
  /** True on a plan without finding details (Trial): the detail fields are withheld, not empty. */
  details_hidden: z.boolean(),
});
export type TEventsPage = z.infer<typeof ZEventsPage>;

export const ZResolveEventBody = z.strictObject({
  scan_subclass: z.enum(['exploit_scanner', 'exploit_db', 'leakcheck']),
  event_id: z.uuid('Not a valid event id.'),
  reason: ZResolveReason,
});
export const ZUnresolveEventBody = z.strictObject({
  scan_subclass: z.enum(['exploit_scanner', 'exploit_db', 'leakcheck']),
  event_id: z.uuid('Not a valid event id.'),
});
