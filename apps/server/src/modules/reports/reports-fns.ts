import type {
  TLanguage,
  TReport,
  TReportFinding,
  TReportNotice,
  TReportOptions,
  TSeverity,
} from '@perimeter/contracts';
import { REPORT_NOTICES, SEVERITIES, SEVERITY_RANK } from '@perimeter/contracts';
import { maskPassword as maskLeakedPassword } from '@perimeter/engine';
import { scanMessageOf } from '../../lib/scan-messages.ts';
import { cveIntelOf, fixFirstOrder } from '../intel/intel-fns.ts';
import { oobEvidence } from '../oob/oob-evidence.ts';
import { limitsOf } from '../targets/targets-fns.ts';
import type { EdRow, EsRow, LcRow, ScanRow, ScopeRow, Seen, TargetRow } from './reports-repo.ts';
import { REPORT_TEXTS, type ReportTexts } from './reports-texts.ts';

export const SEVERITY_COLORS: Record<TSeverity, string> = {
  critical: '#7b1fa2',
  high: '#d32f2f',
  medium: '#f57c00',
  low: '#fbc02d',
  informational: '#1976d2',
  unknown: '#9e9e9e',
};

const asSeverity = (s: string): TSeverity =>
  (SEVERITIES as readonly string[]).includes(s)
    ? (s as TSeverity)
    : s === 'info'
      ? 'informational'
      : 'unknown';

type Detail = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The notices the scan recorded when it ran (scans-jobs: leak check not configured, CVE database empty/stale). */
function noticesOf(summary: Record<string, unknown> | null): TReportNotice[] {
  const list = Array.isArray(summary?.notices) ? summary.notices : [];
  return list.filter((n): n is TReportNotice => (REPORT_NOTICES as readonly unknown[]).includes(n));
}

export interface ReportInput {
  scan: ScanRow;
  targets: TargetRow[];
  plan: string;
  language: TLanguage;
  /** IANA time zone of the account (UTC when it has none). */
  timeZone: string;
  previousScanId: string | null;
  seen: { exploit_scanner: Seen<EsRow>[]; exploit_db: Seen<EdRow>[]; leakcheck: Seen<LcRow>[] };
  fixed: { exploit_scanner: EsRow[]; exploit_db: EdRow[]; leakcheck: LcRow[] };
  scope: ScopeRow[];
  options: TReportOptions;
  now: Date;
}

function templateFinding(r: EsRow): TReportFinding {
  const d = r.detail as Detail;
  const evidence = (d.evidence ?? null) as Detail | null;
  const classification = (d.classification ?? null) as Detail | null;
  return {
    id: r.id,
    scan_subclass: 'exploit_scanner',
    name: r.name,
    severity: asSeverity(r.severity),
    host: r.host,
    main_domain: r.mainDomain,
    status: r.status,
    resolved: r.resolved,
    first_seen: r.firstSeen.toISOString(),
    last_seen: r.lastSeen.toISOString(),
    description: str(d.description),
    impact: str(d.impact),
    how_to_resolve: str(d.remediation),
    how_to_reproduce: evidence
      ? {
          curl: str(evidence.curl) ?? '',
          request: str(evidence.request) ?? '',
          response: str(evidence.response) ?? '',
          ...oobEvidence(evidence),
        }
      : null,
    references: strs(d.references),
    classification: classification && Object.keys(classification).length > 0 ? classification : null,
  };
}

function cveFinding(r: EdRow, t: ReportTexts): TReportFinding {
  const d = r.detail as Detail;
  return {
    id: r.id,
    scan_subclass: 'exploit_db',
    name: t.cveName(r.cve, r.tech, r.version),
    severity: asSeverity(r.severity),
    host: r.port ? `${r.host}:${r.port}` : r.host,
    main_domain: r.mainDomain,
    status: r.status,
    resolved: r.resolved,
    first_seen: r.firstSeen.toISOString(),
    last_seen: r.lastSeen.toISOString(),
    description: str(d.description),
    impact: t.cveImpact(r.cvssScore),
    how_to_resolve: t.cveResolve(r.tech, str(d.latestVersion)),
    how_to_reproduce: null,
    references: strs(d.references),
    classification: {
      cve_id: [r.cve],
      ...(r.cvssScore === null ? {} : { cvss_score: r.cvssScore }),
      ...(str(d.cvssVector) ? { cvss_metrics: d.cvssVector } : {}),
      ...(strs(d.cwe).length ? { cwe_id: strs(d.cwe) } : {}),
    },
  };
}

function leakFinding(r: LcRow, t: ReportTexts): TReportFinding {
  return {
    id: r.id,
    scan_subclass: 'leakcheck',
    name: t.leakName(r.email),
    severity: asSeverity(r.severity),
    host: r.mainDomain,
    main_domain: r.mainDomain,
    status: r.status,
    resolved: r.resolved,
    first_seen: r.firstSeen.toISOString(),
    last_seen: r.lastSeen.toISOString(),
    description: t.leakDescription(r.sources, r.leakDate),
    impact: t.leakImpact,
    how_to_resolve: t.leakResolve,
    how_to_reproduce: null,
    references: [],
    classification: null,
  };
}

const RANK: Record<string, number> = SEVERITY_RANK;
const bySeverity = (a: { severity: string; name: string; host: string }, b: typeof a) =>
  (RANK[b.severity] ?? 0) - (RANK[a.severity] ?? 0) ||
  a.name.localeCompare(b.name) ||
  a.host.localeCompare(b.host);

/** The report model shared by the JSON data report, the CSV and the PDF. */
export function buildReport(input: ReportInput): TReport {
  const t = REPORT_TEXTS[input.language];
  const { options } = input;
  const wantSub = (s: string) => !options.subclasses || options.subclasses.includes(s as never);
  const keep = (f: TReportFinding) =>
    wantSub(f.scan_subclass) &&
    (!options.severity || options.severity.includes(f.severity)) &&
    (!options.hide_resolved || (!f.resolved && f.status !== 'fixed'));

  const seenEs = input.seen.exploit_scanner.map((s) => ({ f: templateFinding(s.row), change: s.change }));
  const seenEd = input.seen.exploit_db.map((s) => ({
    f: cveFinding(s.row, t),
    change: s.change,
    row: s.row,
  }));
  const seenLc = input.seen.leakcheck.map((s) => ({
    f: leakFinding(s.row, t),
    change: s.change,
    row: s.row,
  }));
  const all = [...seenEs, ...seenEd, ...seenLc].filter((x) => keep(x.f));
  const findings = all.map((x) => x.f).sort(bySeverity);

  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<TSeverity, number>;
  const bySubclass: Record<string, number> = { exploit_scanner: 0, exploit_db: 0, leakcheck: 0 };
  for (const f of findings) {
    counts[f.severity] += 1;
    bySubclass[f.scan_subclass] = (bySubclass[f.scan_subclass] ?? 0) + 1;
  }
  const change = (f: TReportFinding) => ({
    id: f.id,
    scan_subclass: f.scan_subclass,
    name: f.name,
    severity: f.severity,
    host: f.host,
  });
  const fixed = [
    ...input.fixed.exploit_scanner.map(templateFinding),
    ...input.fixed.exploit_db.map((r) => cveFinding(r, t)),
    ...input.fixed.leakcheck.map((r) => leakFinding(r, t)),
  ]
    .filter((f) => wantSub(f.scan_subclass) && (!options.severity || options.severity.includes(f.severity)))
    .sort(bySeverity);

  // What to fix first: known exploited, then likely to be exploited (EPSS), then severity.
  const cves = seenEd
    .filter((x) => keep(x.f))
    .sort((a, b) => fixFirstOrder(a.row, b.row))
    .map(({ row: r }) => {
      const d = r.detail as Detail;
      return {
        cve: r.cve,
        severity: asSeverity(r.severity),
        cvss_score: r.cvssScore,
        tech: r.tech,
        version: r.version,
        host: r.host,
        port: r.port,
        version_start: str(d.versionStart),
        version_end: str(d.versionEnd),
        latest_version: str(d.latestVersion),
        homepage: str(d.homepage),
        downloads_per_month: num(d.downloadsPerMonth),
        source_repository: str(d.sourceRepository),
        description: str(d.description),
        ...cveIntelOf(r),
      };
    });
  const leaks = seenLc
    .filter((x) => keep(x.f))
    .map(({ row: r }) => ({
      email: r.email,
      password: maskPassword(r.password),
      leak_date: r.leakDate,
      sources: r.sources,
    }))
    .sort((a, b) => a.email.localeCompare(b.email));

  const s = input.scan;
  const report: TReport = {
    scan: {
      id: s.id,
      status: s.status,
      scan_type: s.scanType,
      targets: input.targets.map((x) => ({
        user_target_id: x.id,
        target: x.displayName,
        target_type: x.targetType,
      })),
      created_at: s.createdAt.toISOString(),
      started_at: s.startedAt?.toISOString() ?? null,
      finished_at: s.finishedAt?.toISOString() ?? null,
      duration_seconds:
        s.startedAt && s.finishedAt
          ? Math.round((s.finishedAt.getTime() - s.startedAt.getTime()) / 1000)
          : null,
      subclasses: s.subclasses,
      partial: s.partial ?? null,
      template_sets: s.templateSets,
      skipped_hosts: s.skippedHosts,
      message: s.message,
      ...scanMessageOf(s.message),
    },
    generated_at: input.now.toISOString(),
    language: input.language,
    time_zone: input.timeZone,
    plan: input.plan,
    summary: {
      severity_counts: counts,
      total: findings.length,
      by_subclass: bySubclass,
      hosts: input.scope.length,
      notices: noticesOf(s.summary),
    },
    changes: {
      previous_scan_id: input.previousScanId,
      new: all
        .filter((x) => x.change === 'new')
        .map((x) => change(x.f))
        .sort(bySeverity),
      fixed: fixed.map(change),
      regressed: all
        .filter((x) => x.change === 'regressed')
        .map((x) => change(x.f))
        .sort(bySeverity),
    },
    findings,
    cves,
    leaks,
    scope: input.scope.map((r) => ({
      name: r.name,
      kind: r.kind,
      ip_addresses: r.ipAddresses,
      opened_ports: r.openedPorts,
      technologies: r.technologies.map((x) => (x.version ? `${x.name} ${x.version}` : x.name)),
    })),
    restricted: null,
  };
  return limitsOf(input.plan).findingDetails ? report : restrictForTrial(report, t);
}

/** Stored passwords are masked already; this keeps it so even if a clear value slipped through. */
export function maskPassword(p: string): string {
  if (p.includes('*') || p.length === 0) return p;
  return maskLeakedPassword(p);
}

export const UNLOCK_PLANS = ['try_it', 'starter', 'business', 'enterprise'];

/**
 * A plan without finding details (Trial: "demo scan with basic report"): what was found stays —
 * every finding, CVE match and leaked address with its severity and host — and the details are
 * hidden, exactly as the events API hides them (docs/plans-limits.md).
 */
export function restrictForTrial(report: TReport, t: ReportTexts): TReport {
  return {
    ...report,
    findings: report.findings.map((f) => ({
      ...f,
      description: null,
      impact: null,
      how_to_resolve: null,
      how_to_reproduce: null,
      references: [],
      classification: null,
    })),
    cves: report.cves.map((c) => ({ ...c, description: null })),
    leaks: report.leaks.map((l) => ({ ...l, password: '', sources: [] })),
    restricted: {
      hidden: ['finding_details', 'cve_details', 'leak_details'],
      message: t.hiddenBody,
      unlock_plans: UNLOCK_PLANS,
    },
  };
}

export function reportFilename(report: TReport, format: 'pdf' | 'csv' | 'json'): string {
  const target = (report.scan.targets[0]?.target ?? 'scan').replace(/[^A-Za-z0-9.-]+/g, '_').slice(0, 60);
  const date = (report.scan.finished_at ?? report.scan.created_at).slice(0, 10);
  return `perimeter-report-${target}-${date}-${report.scan.id.slice(0, 8)}.${format}`;
}
