import type { TCveIntel } from '@perimeter/contracts';
import { z } from 'zod';

export const INTEL_SOURCES = ['nvd', 'kev', 'epss', 'retire'] as const;
export type IntelSource = (typeof INTEL_SOURCES)[number];

/** A run that failed for a reason a retry will not fix (a malformed page, a refused key). */
export class IntelSyncError extends Error {
  constructor(
    readonly source: IntelSource,
    message: string,
  ) {
    super(`${source}: ${message}`);
    this.name = 'IntelSyncError';
  }
}

/** `INTEL_SOURCES` → the enabled sources, in a fixed order. */
export function enabledSources(list: string): IntelSource[] {
  const names = new Set(list.split(',').map((s) => s.trim().toLowerCase()));
  return INTEL_SOURCES.filter((s) => names.has(s));
}

/** Scheduled syncs are on by default, off under NODE_ENV=test unless asked for (no test reaches the Internet). */
export function isSyncScheduled(env: { INTEL_SYNC?: boolean | undefined; NODE_ENV: string }): boolean {
  return env.INTEL_SYNC ?? env.NODE_ENV !== 'test';
}

/** NVD's documented budgets: 5 requests per rolling 30 s without a key, 50 with one. */
export function nvdRequestBudget(apiKey: string | undefined, override?: number): number {
  return override ?? (apiKey ? 50 : 5);
}

export const NVD_MAX_WINDOW_DAYS = 120;
export const NVD_PAGE_SIZE = 2000;

/**
 * Where an NVD sync stands. `full`: paging through every CVE (the time it started becomes the
 * first incremental window's start, so nothing modified during the load is missed).
 * `incremental`: every record modified since `since`, in windows of at most 120 days.
 */
export const ZNvdCursor = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('full'), startIndex: z.number().int().min(0), startedAt: z.string() }),
  z.object({
    mode: z.literal('incremental'),
    since: z.string(),
    window: z.object({ start: z.string(), end: z.string() }).optional(),
    startIndex: z.number().int().min(0),
  }),
]);
export type TNvdCursor = z.infer<typeof ZNvdCursor>;

/** The next lastModStartDate/lastModEndDate window from `since` to `now` (≤ 120 days), or none when caught up. */
export function nextWindow(
  since: Date,
  now: Date,
  maxDays = NVD_MAX_WINDOW_DAYS,
): { start: Date; end: Date } | null {
  if (since.getTime() >= now.getTime()) return null;
  const end = new Date(Math.min(now.getTime(), since.getTime() + maxDays * 86_400_000));
  return { start: since, end };
}

/** NVD wants ISO 8601 with an explicit offset. */
export function nvdDate(d: Date): string {
  return d.toISOString().replace('Z', '+00:00');
}

/** Rolling-window limiter: at most `limit` requests in any `windowMs`. */
export class RollingLimiter {
  private readonly sent: number[] = [];
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How long to wait before the next request may go. */
  delay(): number {
    const t = this.now();
    while (this.sent.length && (this.sent[0] as number) <= t - this.windowMs) this.sent.shift();
    if (this.sent.length < this.limit) return 0;
    return (this.sent[0] as number) + this.windowMs - t;
  }

  record(): void {
    this.sent.push(this.now());
  }
}

/** Exponential backoff: base · 2^attempt, capped, or the server's Retry-After when it gives one. */
export function backoffMs(
  attempt: number,
  baseMs: number,
  retryAfter?: string | null,
  capMs = 120_000,
): number {
  const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(capMs, seconds * 1000);
  return Math.min(capMs, baseMs * 2 ** attempt);
}

export const isRetryableStatus = (status: number) => status === 403 || status === 429 || status >= 500;

/** Why NVD refused us, and what the operator can do about it. */
export function nvdRefusal(status: number, hasKey: boolean): string {
  if (status === 403)
    return hasKey
      ? 'NVD answered 403 Forbidden with the API key: it may be invalid or not yet activated, or the 50 requests per 30 s were exceeded — check NVD_API_KEY'
      : 'NVD answered 403 Forbidden: without an API key NVD allows 5 requests per rolling 30 s — set NVD_API_KEY (free at https://nvd.nist.gov/developers/request-an-api-key) or let the next run resume';
  if (status === 429) return 'NVD answered 429 Too Many Requests';
  return `NVD answered HTTP ${status}`;
}

/** One NVD CVE API 2.0 page as far as paging needs it; each item must carry a CVE id. */
export const ZNvdPage = z.object({
  resultsPerPage: z.number().int().min(0),
  startIndex: z.number().int().min(0),
  totalResults: z.number().int().min(0),
  vulnerabilities: z.array(z.object({ cve: z.object({ id: z.string().regex(/^CVE-\d{4}-\d{4,}$/) }) })),
});

const ZKevItem = z.object({
  cveID: z.string().regex(/^CVE-\d{4}-\d{4,}$/),
  vendorProject: z.string().optional(),
  product: z.string().optional(),
  vulnerabilityName: z.string().optional(),
  dateAdded: z.string().regex(/^\d{4}-\d{2}-\d{2}/),
  dueDate: z.string().optional(),
  knownRansomwareCampaignUse: z.string().optional(),
  requiredAction: z.string().optional(),
});
/** CISA KEV catalogue JSON (known_exploited_vulnerabilities.json). */
export const ZKevCatalogue = z.object({
  catalogVersion: z.string().optional(),
  dateReleased: z.string().optional(),
  count: z.number().int().optional(),
  vulnerabilities: z.array(ZKevItem),
});

export interface KevRow {
  cveId: string;
  vendorProject: string | null;
  product: string | null;
  name: string | null;
  dateAdded: string;
  dueDate: string | null;
  knownRansomware: boolean;
  requiredAction: string | null;
}

export function kevRows(doc: unknown): { version: string | null; rows: KevRow[] } {
  const parsed = ZKevCatalogue.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`malformed KEV catalogue at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  const rows = new Map<string, KevRow>();
  for (const v of parsed.data.vulnerabilities)
    rows.set(v.cveID, {
      cveId: v.cveID,
      vendorProject: v.vendorProject ?? null,
      product: v.product ?? null,
      name: v.vulnerabilityName ?? null,
      dateAdded: v.dateAdded.slice(0, 10),
      dueDate: v.dueDate?.slice(0, 10) || null,
      knownRansomware: v.knownRansomwareCampaignUse?.toLowerCase() === 'known',
      requiredAction: v.requiredAction ?? null,
    });
  return { version: parsed.data.catalogVersion ?? null, rows: [...rows.values()] };
}

export interface EpssRow {
  cveId: string;
  score: number;
  percentile: number;
}

/**
 * FIRST EPSS daily CSV: `#model_version:v2025.03.14,score_date:2025-11-20T12:55:00Z`, then the
 * header `cve,epss,percentile`, then one row per CVE. Any bad row fails the whole file.
 */
export function parseEpssCsv(text: string): {
  modelVersion: string | null;
  scoreDate: string | null;
  rows: EpssRow[];
} {
  const lines = text.split(/\r?\n/);
  let i = 0;
  let modelVersion: string | null = null;
  let scoreDate: string | null = null;
  if (lines[0]?.startsWith('#')) {
    modelVersion = /model_version:([^,\s]+)/.exec(lines[0])?.[1] ?? null;
    scoreDate = /score_date:([^,\s]+)/.exec(lines[0])?.[1]?.slice(0, 10) ?? null;
    i = 1;
  }
  if (lines[i]?.trim().toLowerCase() !== 'cve,epss,percentile')
    throw new Error(`malformed EPSS file: line ${i + 1} must be the header "cve,epss,percentile"`);
  const rows: EpssRow[] = [];
  for (i++; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === '') continue;
    const [cve, epss, pct, extra] = line.split(',');
    const score = Number(epss);
    const percentile = Number(pct);
    if (
      extra !== undefined ||
      !cve ||
      !/^CVE-\d{4}-\d{4,}$/.test(cve) ||
      !(score >= 0 && score <= 1) ||
      !(percentile >= 0 && percentile <= 1)
    )
      throw new Error(`malformed EPSS file: line ${i + 1} is not "CVE-id,score,percentile"`);
    rows.push({ cveId: cve, score, percentile });
  }
  if (rows.length === 0) throw new Error('malformed EPSS file: no scores');
  return { modelVersion, scoreDate, rows };
}

/** Loopback hosts only (tests must never leave the machine). */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export type DatabaseState = 'empty' | 'stale' | 'current';

/** Empty: no CVE record; stale: no successful sync or import within `staleDays`. */
export function databaseState(
  records: number,
  lastSuccess: Date | null,
  now: Date,
  staleDays: number,
): DatabaseState {
  if (records === 0) return 'empty';
  if (!lastSuccess || now.getTime() - lastSuccess.getTime() > staleDays * 86_400_000) return 'stale';
  return 'current';
}

/** The KEV/EPSS columns and match honesty (in the finding's detail) of a CVE finding row, for the API. */
export function cveIntelOf(row: {
  kev: boolean;
  kevDateAdded: string | null;
  kevDueDate: string | null;
  kevRansomware: boolean;
  epssScore: number | null;
  epssPercentile: number | null;
  detail: Record<string, unknown>;
}): TCveIntel {
  const d = row.detail;
  const confidence = d.matchConfidence;
  return {
    kev: row.kev,
    kev_date_added: row.kevDateAdded,
    kev_due_date: row.kevDueDate,
    kev_ransomware: row.kevRansomware,
    epss_score: row.epssScore,
    epss_percentile: row.epssPercentile,
    match_confidence:
      confidence === 'high' || confidence === 'medium' || confidence === 'low' ? confidence : null,
    backport_note: typeof d.backportNote === 'string' ? d.backportNote : null,
    package_revision: typeof d.packageRevision === 'string' ? d.packageRevision : null,
  };
}

/** A detected technology without a CVE has no intelligence. */
export const NO_CVE_INTEL: TCveIntel = {
  kev: false,
  kev_date_added: null,
  kev_due_date: null,
  kev_ransomware: false,
  epss_score: null,
  epss_percentile: null,
  match_confidence: null,
  backport_note: null,
  package_revision: null,
};

/**
 * "What to fix first" among CVE findings: CISA KEV first (exploited in the wild), then the
 * higher EPSS, then severity and CVSS (docs/risk-score.md).
 */
export function fixFirstOrder(
  a: { kev: boolean; epssScore: number | null; severityOrdering: number; cvssScore: number | null },
  b: { kev: boolean; epssScore: number | null; severityOrdering: number; cvssScore: number | null },
): number {
  return (
    Number(b.kev) - Number(a.kev) ||
    (b.epssScore ?? -1) - (a.epssScore ?? -1) ||
    b.severityOrdering - a.severityOrdering ||
    (b.cvssScore ?? -1) - (a.cvssScore ?? -1)
  );
}
