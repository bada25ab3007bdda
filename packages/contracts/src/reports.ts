import { z } from 'zod';
import { LANGUAGES } from './auth.ts';
import { ZCveIntel } from './events.ts';
import { ZOobInteraction } from './oob.ts';
import {
  SCAN_MESSAGE_CODES,
  ZMessageParams,
  ZScanId,
  ZScanPartial,
  ZScanSubclass,
  ZScanTemplateSet,
  ZSkippedHost,
} from './scans.ts';
import { ZSeverity, ZSeverityCounts } from './targets.ts';

export const REPORT_FORMATS = ['pdf', 'csv', 'json'] as const;
export const ZReportFormat = z.enum(REPORT_FORMATS);

/** Options of a report: which findings go in, and the language of the PDF/CSV labels. */
export const ZReportOptions = z.strictObject({
  language: z.enum(LANGUAGES).optional(),
  severity: z.array(ZSeverity).max(6).optional(),
  subclasses: z.array(ZScanSubclass).max(3).optional(),
  /** Leave out fixed findings and those marked resolved. */
  hide_resolved: z.boolean().optional(),
});
export type TReportOptions = z.infer<typeof ZReportOptions>;

/** Body of POST /main/get_user_events_file_report. */
export const ZFileReportBody = z.strictObject({
  id: ZScanId,
  format: ZReportFormat.default('pdf'),
  options: ZReportOptions.optional(),
});
export type TFileReportBody = z.infer<typeof ZFileReportBody>;

/** Query of GET /main/get_user_events_data_report. */
export const ZDataReportQuery = z.strictObject({ id: ZScanId });

const ZReproduce = z
  .object({
    curl: z.string(),
    request: z.string(),
    response: z.string(),
    /** Out-of-band templates: the call-backs that proved the finding (docs/oob.md). */
    interactions: z.array(ZOobInteraction).optional(),
    late: z.boolean().optional(),
  })
  .nullable();

export const ZReportFinding = z.object({
  id: z.string(),
  scan_subclass: ZScanSubclass,
  name: z.string(),
  severity: ZSeverity,
  host: z.string(),
  main_domain: z.string(),
  status: z.string(),
  resolved: z.boolean(),
  first_seen: z.string(),
  last_seen: z.string(),
  description: z.string().nullable(),
  impact: z.string().nullable(),
  how_to_resolve: z.string().nullable(),
  how_to_reproduce: ZReproduce,
  references: z.array(z.string()),
  classification: z.record(z.string(), z.unknown()).nullable(),
});
export type TReportFinding = z.infer<typeof ZReportFinding>;

export const REPORT_NOTICES = [
  'leak_check_not_configured',
  'cve_database_empty',
  'cve_database_stale',
  'oob_not_configured',
] as const;
export const ZReportNotice = z.enum(REPORT_NOTICES);
export type TReportNotice = z.infer<typeof ZReportNotice>;

export const ZReportCve = z.object({
  cve: z.string(),
  severity: ZSeverity,
  cvss_score: z.number().nullable(),
  tech: z.string(),
  version: z.string(),
  host: z.string(),
  port: z.number().nullable(),
  version_start: z.string().nullable(),
  version_end: z.string().nullable(),
  latest_version: z.string().nullable(),
  homepage: z.string().nullable(),
  downloads_per_month: z.number().nullable(),
  source_repository: z.string().nullable(),
  description: z.string().nullable(),
  ...ZCveIntel.shape,
});

export const ZReportLeak = z.object({
  email: z.string(),
  /** Always masked. */
  password: z.string(),
  leak_date: z.string().nullable(),
  sources: z.array(z.string()),
});

export const ZReportChange = z.object({
  id: z.string(),
  scan_subclass: ZScanSubclass,
  name: z.string(),
  severity: ZSeverity,
  host: z.string(),
});

export const ZReport = z.object({
  scan: z.object({
    id: z.string(),
    status: z.string(),
    scan_type: z.string(),
    targets: z.array(z.object({ user_target_id: z.string(), target: z.string(), target_type: z.string() })),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    duration_seconds: z.number().nullable(),
    subclasses: z.array(z.string()),
    /** Not null when the scan did not run everything it planned: what was skipped and why. */
    partial: ZScanPartial.nullable(),
    /** The template sets the scan ran. */
    template_sets: z.array(ZScanTemplateSet),
    /** Hosts found but not scanned, with the code of the reason. */
    skipped_hosts: z.array(ZSkippedHost),
    /** Why the scan ended early or what limited it (English), and its code for translation. */
    message: z.string().nullable(),
    message_code: z.enum(SCAN_MESSAGE_CODES).optional(),
    message_params: ZMessageParams.optional(),
  }),
  generated_at: z.string(),
  language: z.enum(LANGUAGES),
  /** The account's IANA time zone: the PDF and CSV show every date in it. */
  time_zone: z.string(),
  plan: z.string(),
  summary: z.object({
    severity_counts: ZSeverityCounts,
    total: z.number().int(),
    by_subclass: z.record(z.string(), z.number().int()),
    hosts: z.number().int(),
    /** What the counts cannot show: a leak check with no source, an empty or stale CVE database. */
    notices: z.array(ZReportNotice).optional(),
  }),
  changes: z.object({
    previous_scan_id: z.string().nullable(),
    new: z.array(ZReportChange),
    fixed: z.array(ZReportChange),
    regressed: z.array(ZReportChange),
  }),
  findings: z.array(ZReportFinding),
  cves: z.array(ZReportCve),
  leaks: z.array(ZReportLeak),
  scope: z.array(
    z.object({
      name: z.string(),
      kind: z.string(),
      ip_addresses: z.array(z.string()),
      opened_ports: z.array(z.number()),
      technologies: z.array(z.string()),
    }),
  ),
  /** Set on the trial plan: which parts are hidden and which plans unlock them. */
  restricted: z
    .object({ hidden: z.array(z.string()), message: z.string(), unlock_plans: z.array(z.string()) })
    .nullable(),
});
export type TReport = z.infer<typeof ZReport>;
