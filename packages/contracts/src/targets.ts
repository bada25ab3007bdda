import { z } from 'zod';

/** Spec section 3, "Target": the three kinds of target. */
export const TARGET_TYPES = ['domain', 'peer', 'network'] as const;
export const ZTargetType = z.enum(TARGET_TYPES);
export type TTargetType = z.infer<typeof ZTargetType>;

/** Severity groups (spec section 4). */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational', 'unknown'] as const;
export const ZSeverity = z.enum(SEVERITIES);
export type TSeverity = z.infer<typeof ZSeverity>;
/** The one severity ordering (most severe highest), stored as findings' `severity_ordering`. */
export const SEVERITY_RANK: Record<TSeverity, number> = {
  critical: 5,
  high: 4,
  medium: 3,
  low: 2,
  informational: 1,
  unknown: 0,
};
export const ZSeverityCounts = z.object({
  critical: z.number().int(),
  high: z.number().int(),
  medium: z.number().int(),
  low: z.number().int(),
  informational: z.number().int(),
  unknown: z.number().int(),
});
export type TSeverityCounts = z.infer<typeof ZSeverityCounts>;
/** Counts per severity, all zero. */
export const zeroSeverityCounts = (): TSeverityCounts => ({
  critical: 0,
  high: 0,
  medium: 0,
  low: 0,
  informational: 0,
  unknown: 0,
});

/** A query parameter that may be repeated (`a=1&a=2`, no brackets): always an array. */
export const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).max(20));

/** `true`/`false` in a query string. */
export const ZQueryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const ZUserTargetId = z.uuid('Not a valid target id.');

export const ZTargetInput = z.union([
  z.string().trim().min(1).max(300),
  z.strictObject({ target_type: ZTargetType.optional(), target: z.string().trim().min(1).max(300) }),
]);
export const ZAddTargetsBody = z.strictObject({ targets: z.array(ZTargetInput).min(1).max(100) });
export type TAddTargetsBody = z.infer<typeof ZAddTargetsBody>;

export const ZTargetRef = z.strictObject({ target_type: ZTargetType, user_target_id: ZUserTargetId });
export type TTargetRef = z.infer<typeof ZTargetRef>;

export const ZTarget = z.object({
  user_target_id: z.string(),
  target_type: ZTargetType,
  /** Normalised: punycode domain, canonical IP address, network address/prefix. */
  target: z.string(),
  /** As the user wrote it (Unicode for IDN). */
  display_name: z.string(),
  /** Registrable domain of a domain target; null for addresses. */
  main_domain: z.string().nullable(),
  /** Addresses the target stands for (1 for a peer, the network's size). */
  ip_count: z.number().int(),
  disabled: z.boolean(),
  verified: z.boolean(),
  verified_at: z.string().nullable(),
  created_at: z.string(),
});
export type TTarget = z.infer<typeof ZTarget>;

export const ZTargetsByType = z.object({
  domain: z.array(ZTarget),
  peer: z.array(ZTarget),
  network: z.array(ZTarget),
});
export type TTargetsByType = z.infer<typeof ZTargetsByType>;

export const ZGetTargetsQuery = z.object({
  targets_type: repeated(ZTargetType).optional(),
  disabled: ZQueryBool.default(false),
});
export type TGetTargetsQuery = z.infer<typeof ZGetTargetsQuery>;

export const ZAddTargetsResponse = z.object({ added: z.array(ZTarget) });

export const TARGET_STATUSES = ['verified', 'unverified', 'disabled'] as const;

export const ZExtendedTarget = ZTarget.extend({
  last_scan: z
    .object({
      id: z.string(),
      status: z.string(),
      created_at: z.string(),
      finished_at: z.string().nullable(),
    })
    .nullable(),
  /** Filled by schedules: a short description of the scan schedule, or null. */
  periodicity: z.string().nullable(),
  /** 0 (worst) … 100 (nothing open): 100 − 25·critical − 10·high − 4·medium − 1·low, at least 0. */
  score: z.number().int(),
  status: z.enum(TARGET_STATUSES),
  /** Open (unresolved) findings by severity. */
  counts: ZSeverityCounts,
  /** What the target's latest finished scan found (the targets screen's columns); null before one. */
  assets: z
    .object({
      scan_id: z.string(),
      /** Host names and bare addresses in the scope. */
      hosts: z.number().int(),
      subdomains: z.number().int(),
      ip_addresses: z.number().int(),
      /** Distinct open port numbers, ascending. */
      opened_ports: z.array(z.number().int()),
      /** Distinct technology names, alphabetical. */
      technologies: z.array(z.string()),
    })
    .nullable(),
});
export type TExtendedTarget = z.infer<typeof ZExtendedTarget>;
export const ZExtendedTargetsByType = z.object({
  domain: z.array(ZExtendedTarget),
  peer: z.array(ZExtendedTarget),
  network: z.array(ZExtendedTarget),
});

export const ZGetInfoByIdQuery = z.object({ target_type: ZTargetType, user_target_id: ZUserTargetId });

/** What happened to a target, oldest first in the table, newest first in `history`. */
export const TARGET_EVENT_KINDS = [
  'added',
  'verified',
  'verification_failed',
  'verification_disabled',
  'disabled',
  'enabled',
  'replaced',
] as const;
export const ZTargetEventKind = z.enum(TARGET_EVENT_KINDS);
export type TTargetEventKind = z.infer<typeof ZTargetEventKind>;

export const ZTargetEvent = z.object({
  kind: ZTargetEventKind,
  /** The check's answer, or the other target of a replacement. */
  detail: z.string().nullable(),
  created_at: z.string(),
});
export type TTargetEvent = z.infer<typeof ZTargetEvent>;

/** get_info_by_id: the extended target with its last ownership check and its history. */
export const ZTargetInfo = ZExtendedTarget.extend({
  last_check_at: z.string().nullable(),
  last_check_detail: z.string().nullable(),
  /** Newest first, at most 50. */
  history: z.array(ZTargetEvent),
});
export type TTargetInfo = z.infer<typeof ZTargetInfo>;

/** Replaces a target by another of the same type (a mistyped domain): the old one is disabled. */
export const ZReplaceTargetBody = ZTargetRef.extend({ target: z.string().trim().min(1).max(300) });
export type TReplaceTargetBody = z.infer<typeof ZReplaceTargetBody>;
export const ZReplaceTargetResponse = z.object({ replaced: ZTarget, added: ZTarget });
export type TReplaceTargetResponse = z.infer<typeof ZReplaceTargetResponse>;

export const ZVerificationTxt = z.object({
  user_target_id: z.string(),
  target_type: ZTargetType,
  token: z.string(),
  /** The value to publish: `perimeter-verification=<token>`. */
  value: z.string(),
  /** DNS names where a TXT record with the value is accepted (domain and network targets). */
  record_names: z.array(z.string()),
  /** URLs where a file holding the value is accepted (peer targets). */
  file_urls: z.array(z.string()),
  instructions: z.string(),
});
export type TVerificationTxt = z.infer<typeof ZVerificationTxt>;

export const ZVerificationResult = z.object({
  user_target_id: z.string(),
  verified: z.boolean(),
  detail: z.string(),
  checked_at: z.string(),
});
export type TVerificationResult = z.infer<typeof ZVerificationResult>;

/** The `name=value` form of a verification token. */
export const VERIFICATION_PREFIX = 'perimeter-verification=';
