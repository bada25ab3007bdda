import { z } from 'zod';
import { repeated, ZQueryBool, ZSeverity, ZSeverityCounts, ZTargetType, ZUserTargetId } from './targets.ts';

/** Spec section 4, "Scan statuses". */
export const SCAN_STATUSES = ['running', 'pending', 'done', 'created', 'canceled'] as const;
export const ZScanStatus = z.enum(SCAN_STATUSES);
export type TScanStatus = z.infer<typeof ZScanStatus>;
/** The default `status` list of get_user_abstract_scans_stats (spec section 9). */
export const DEFAULT_SCAN_STATUSES: readonly TScanStatus[] = SCAN_STATUSES;

/** Spec section 3, scan class and subclass values. */
export const SCAN_CLASS_VALUES = [
  'class_exploitation',
  'class_resources',
  'class_information_gathering',
] as const;
export const ZScanClass = z.enum(SCAN_CLASS_VALUES);
export type TScanClass = z.infer<typeof ZScanClass>;
export const SCAN_SUBCLASS_VALUES = ['exploit_scanner', 'exploit_db', 'leakcheck'] as const;
export const ZScanSubclass = z.enum(SCAN_SUBCLASS_VALUES);
export type TScanSubclass = z.infer<typeof ZScanSubclass>;
export const SUBCLASS_OF_CLASS: Record<TScanSubclass, TScanClass> = {
  exploit_scanner: 'class_exploitation',
  exploit_db: 'class_exploitation',
  leakcheck: 'class_information_gathering',
};

export const SCAN_TYPES = ['full', 'custom'] as const;
export const ZScanType = z.enum(SCAN_TYPES);

export const ZScanId = z.uuid('Not a valid scan id.');

const ZTemplateTag = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'A tag is letters, digits, dots, dashes or underscores.');

/**
 * Which templates a scan runs (exploit_scanner), like nuclei's `-severity`, `-tags`, `-etags`.
 * By default every severity, every tag, minus the tags excluded by default (`dos`, `fuzz`, and
 * the installed set's own ignore list); `include_tags` brings excluded ones back.
 */
export const ZTemplateSelection = z.strictObject({
  severities: z.array(ZSeverity).max(6).optional(),
  /** Only templates with at least one of these tags. */
  tags: z.array(ZTemplateTag).max(50).optional(),
  /** Also leave out templates with these tags. */
  exclude_tags: z.array(ZTemplateTag).max(50).optional(),
  /** Run templates with these tags even when excluded by default (e.g. `fuzz`). */
  include_tags: z.array(ZTemplateTag).max(50).optional(),
});
export type TTemplateSelection = z.infer<typeof ZTemplateSelection>;

/** Every user-visible reason the engine and the worker give for not scanning a host. */
export const SKIPPED_HOST_CODES = ['host_limit', 'no_open_port', 'plan_subdomain_limit'] as const;
export type TSkippedHostCode = (typeof SKIPPED_HOST_CODES)[number];

/** Every message a scan waits or ends with (its `message`); the UI and the PDF translate the code. */
export const SCAN_MESSAGE_CODES = [
  'canceled_by_user',
  'worker_lost',
  'scan_failed',
  'plan_subdomain_limit',
  'target_disabled',
  'target_unverified',
  'ownership_unavailable',
  'ownership_lost',
] as const;
export type TScanMessageCode = (typeof SCAN_MESSAGE_CODES)[number];
/** The values a message or skipped-host code is translated with (a `plan` is a plan key or its English name). */
export const ZMessageParams = z.record(z.string(), z.union([z.string(), z.number()]));
export type TMessageParams = z.infer<typeof ZMessageParams>;

export const ZSkippedHost = z.object({
  host: z.string(),
  reason: z.string(),
  code: z.enum(SKIPPED_HOST_CODES).optional(),
  params: ZMessageParams.optional(),
});
export type TSkippedHost = z.infer<typeof ZSkippedHost>;

export const ZScanConfig = z.strictObject({
  classes: z.array(ZScanClass).max(3).default([]),
  subclasses: z.array(ZScanSubclass).max(3).default([]),
  templates: ZTemplateSelection.optional(),
});
export type TScanConfig = z.infer<typeof ZScanConfig>;

export const ZCreateScanBody = z.strictObject({
  /** Targets of one type. */
  targets: z
    .array(z.strictObject({ target_type: ZTargetType, user_target_id: ZUserTargetId }))
    .min(1)
    .max(20),
  scan_type: ZScanType.default('full'),
  /** Required when scan_type is custom: the classes and/or subclasses to run. */
  custom_scan_config: ZScanConfig.optional(),
});
export type TCreateScanBody = z.infer<typeof ZCreateScanBody>;

export const ZScanIdBody = z.strictObject({ id: ZScanId });

/** A stage that ended early or left work undone (honest completion). */
export const ZStagePartial = z.object({
  stage: z.string(),
  /** done (ran to its end but skipped work) | timeout (time limit) | stalled (watchdog) | failed */
  status: z.string(),
  reason: z.string().nullable(),
  /** Units of work planned and run to an answer, when the stage counts them. */
  planned: z.number().int().nullable(),
  ran: z.number().int().nullable(),
  skipped: z.array(z.object({ reason: z.string(), count: z.number().int(), examples: z.array(z.string()) })),
});
export type TStagePartial = z.infer<typeof ZStagePartial>;

/** Set when the scan ended `done` without everything planned having run: what was skipped and why. */
export const ZScanPartial = z.object({ stages: z.array(ZStagePartial) });
export type TScanPartial = z.infer<typeof ZScanPartial>;

/** A template set a scan ran: its name, the source's own version and the content hash. */
export const ZScanTemplateSet = z.object({
  name: z.string(),
  version: z.string().nullable(),
  hash: z.string(),
  templates: z.number().int(),
});
export type TScanTemplateSet = z.infer<typeof ZScanTemplateSet>;

export const ZScanProgress = z.object({
  id: z.string(),
  status: ZScanStatus,
  /** The engine stage running now (subdomains, dns, ports, http, fingerprint, templates, cve-matching, leaks). */
  stage: z.string().nullable(),
  percent: z.number().int().min(0).max(100),
  /** Assets and findings found so far. */
  counts: z.record(z.string(), z.number()),
  eta_seconds: z.number().int().nullable(),
  /**
   * Hosts not scanned, each with a `code` the UI and PDF translate (`reason` is its English text;
   * rows stored before codes existed have none).
   */
  skipped_hosts: z.array(ZSkippedHost),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  updated_at: z.string(),
  /** Why the scan ended early (cancelled, ownership proof missing, engine error), in English. */
  message: z.string().nullable(),
  /** `message` as a code and its parameters, for the UI to translate (absent: no message, or one without a code). */
  message_code: z.enum(SCAN_MESSAGE_CODES).optional(),
  message_params: ZMessageParams.optional(),
  /** Not null when a stage ended early or skipped work: the scan is partial. */
  partial: ZScanPartial.nullable(),
});
export type TScanProgress = z.infer<typeof ZScanProgress>;

export const ZScan = z.object({
  id: z.string(),
  status: ZScanStatus,
  target_type: ZTargetType,
  targets: z.array(z.object({ user_target_id: z.string(), target: z.string(), target_type: ZTargetType })),
  scan_type: ZScanType,
  custom_scan_config: z.boolean(),
  config: z.object({
    classes: z.array(ZScanClass),
    subclasses: z.array(ZScanSubclass),
    templates: ZTemplateSelection.optional(),
  }),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  stage: z.string().nullable(),
  percent: z.number().int(),
  message: z.string().nullable(),
  message_code: z.enum(SCAN_MESSAGE_CODES).optional(),
  message_params: ZMessageParams.optional(),
  /** Not null when a stage ended early or skipped work: the scan is partial. */
  partial: ZScanPartial.nullable(),
  /** The template sets the scan ran (empty until it ran its templates). */
  template_sets: z.array(ZScanTemplateSet),
  /** Findings seen by this scan, by severity. */
  severity_counts: ZSeverityCounts,
});
export type TScan = z.infer<typeof ZScan>;

export const SCAN_SORT_KEYS = ['created_at', 'started_at', 'finished_at', 'status', 'scan_type'] as const;
/** `ascend`/`descend` (the table component's words) map to asc/desc. */
export const ZSortOrder = z
  .enum(['asc', 'desc', 'ascend', 'descend'])
  .transform((v) => (v === 'ascend' ? 'asc' : v === 'descend' ? 'desc' : v));
export type TSortOrder = 'asc' | 'desc';

const limit = (def: number) => z.coerce.number().int().min(1).max(100).default(def);
const offset = z.coerce.number().int().min(0).max(1_000_000).default(0);

export const ZScansStatsQuery = z.object({
  limit: limit(10),
  offset,
  targets_type: ZTargetType.default('domain'),
  status: repeated(ZScanStatus).default([...SCAN_STATUSES]),
  filter_user_target_id: ZUserTargetId.optional(),
  filter_target_type: ZTargetType.optional(),
  custom_scan_config: ZQueryBool.optional(),
  sort_key: z.enum(SCAN_SORT_KEYS).optional(),
  sort_order: ZSortOrder.optional(),
});
export type TScansStatsQuery = z.infer<typeof ZScansStatsQuery>;

export const ZScansStats = z.object({ items: z.array(ZScan), total: z.number().int() });
export type TScansStats = z.infer<typeof ZScansStats>;

export const ZPagingQuery = (def: number) => z.object({ limit: limit(def), offset });

export const ZScanProgressQuery = z.object({ id: ZScanId });
export const ZLastScanProgressQuery = z.object({
  user_target_id: ZUserTargetId.optional(),
  targets_type: ZTargetType.optional(),
});

export const ZScopeBody = z.strictObject({
  id: ZScanId,
  targets_type: ZTargetType.optional(),
  sort_order: ZSortOrder.default('desc'),
  /**
   * relevance (default): the riskiest host first (highest severity found on it in this scan, then
   * the most open ports), `sort_order` reverses it; name: alphabetical in `sort_order`.
   */
  sort_key: z.enum(['relevance', 'name']).optional(),
  name_filter_opt: z
    .strictObject({ name_filter: z.string().max(255), is_contains: z.boolean().default(true) })
    .optional(),
});
export type TScopeBody = z.infer<typeof ZScopeBody>;

/** One scanned host of a scan (spec labels: name, hosts, ports, risk, subdomains, e-mails, IPs, opened ports, technologies). */
export const ZScopeItem = z.object({
  name: z.string(),
  kind: z.enum(['subdomain', 'ip']),
  main_domain: z.string().nullable(),
  ip_addresses: z.array(z.string()),
  opened_ports: z.array(z.number().int()),
  services: z.array(
    z.object({
      port: z.number().int(),
      service: z.string(),
      product: z.string().nullable(),
      version: z.string().nullable(),
    }),
  ),
  technologies: z.array(z.object({ name: z.string(), version: z.string().nullable() })),
  emails: z.array(z.string()),
  cnames: z.array(z.string()),
  urls: z.array(z.string()),
  /** Highest severity of this scan's findings on the host, or null. */
  risk: z.string().nullable(),
  findings: z.number().int(),
});
export type TScopeItem = z.infer<typeof ZScopeItem>;
export const ZScopeResponse = z.object({
  items: z.array(ZScopeItem),
  total: z.number().int(),
  /** Totals across the scan: hosts, subdomains, ip addresses, opened ports, technologies, e-mails. */
  summary: z.record(z.string(), z.number().int()),
});
export type TScopeResponse = z.infer<typeof ZScopeResponse>;
