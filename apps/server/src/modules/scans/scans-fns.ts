import {
  SCAN_SUBCLASS_VALUES,
  SUBCLASS_OF_CLASS,
  type TScanClass,
  type TScanPartial,
  type TScanSubclass,
} from '@perimeter/contracts';
import {
  type Asset,
  type CveFinding,
  type Finding,
  hostNames,
  type LeakFinding,
  type ScanCoverage,
  type ScanEvent,
  type ScanSummary,
  ScopePolicy,
  type TemplateFinding,
} from '@perimeter/engine';
import { scanMessage } from '../../lib/scan-messages.ts';
import type { FixRule, SeenFinding } from '../findings/findings-write-repo.ts';
import { ScopeModel, type ScopeRow } from './scans-scope-fns.ts';

/** Engine stage names in order; the finding stages follow discovery. */
export const DISCOVERY_STAGES = ['subdomains', 'dns', 'ports', 'http', 'fingerprint'] as const;
export const SUBCLASS_STAGE: Record<TScanSubclass, string> = {
  exploit_scanner: 'templates',
  exploit_db: 'cve-matching',
  leakcheck: 'leaks',
};

/**
 * The subclasses a scan runs. A full scan runs every subclass the plan allows; a custom scan
 * runs the chosen subclasses plus every subclass of the chosen classes.
 */
export function resolveSubclasses(
  scanType: 'full' | 'custom',
  custom: { classes: TScanClass[]; subclasses: TScanSubclass[] } | undefined,
  allowed: readonly TScanSubclass[],
): { subclasses: TScanSubclass[]; classes: TScanClass[]; refused: TScanSubclass[] } {
  let wanted: TScanSubclass[];
  if (scanType === 'full') wanted = allowed.slice();
  else {
    const set = new Set<TScanSubclass>(custom?.subclasses ?? []);
    for (const s of SCAN_SUBCLASS_VALUES) if (custom?.classes.includes(SUBCLASS_OF_CLASS[s])) set.add(s);
    wanted = SCAN_SUBCLASS_VALUES.filter((s) => set.has(s));
  }
  const refused = scanType === 'custom' ? wanted.filter((s) => !allowed.includes(s)) : [];
  const subclasses = wanted.filter((s) => allowed.includes(s));
  const classes: TScanClass[] = ['class_resources'];
  for (const s of subclasses) if (!classes.includes(SUBCLASS_OF_CLASS[s])) classes.push(SUBCLASS_OF_CLASS[s]);
  return { subclasses, classes, refused };
}

export function stageList(subclasses: readonly string[]): string[] {
  return [
    ...DISCOVERY_STAGES,
    ...SCAN_SUBCLASS_VALUES.filter((s) => subclasses.includes(s)).map((s) => SUBCLASS_STAGE[s]),
  ];
}

/** Overall percent from the current stage and its own progress (never 100 before the end). */
export function percentOf(stages: string[], stage: string, done: number, total: number): number {
  const i = stages.indexOf(stage);
  if (i < 0) return 0;
  const within = total > 0 ? Math.min(1, done / total) : 0;
  return Math.min(99, Math.floor((100 * (i + within)) / stages.length));
}

/** A stable key of an asset inside one scan, so a retried scan overwrites rather than duplicates. */
export function assetKey(asset: Asset): string {
  switch (asset.kind) {
    case 'subdomain':
      return asset.name;
    case 'ip':
      return asset.ip;
    case 'service':
      return `${asset.ip}:${asset.port}`;
    case 'url':
      return asset.url;
    case 'technology':
      return `${asset.target}|${asset.name}|${asset.version ?? ''}`;
    case 'email':
      return asset.email;
  }
}

/** The host a finding is about (leaks have none: their domain stands in). */
export function findingHost(f: Finding): string {
  return f.subclass === 'leakcheck' ? f.mainDomain : f.host;
}

/** Why a subdomain found by the scan was not scanned (skipped_hosts reason). */
export const subdomainLimitReason = (plan: { name: string; subdomains: number }) =>
  `plan limit: the ${plan.name} plan covers ${plan.subdomains} subdomains per scan`;

/** The done scan's message when its plan's subdomain limit cut discovery short. */
export const subdomainLimitMessage = (plan: { name: string; subdomains: number }, skipped: number) =>
  scanMessage('plan_subdomain_limit', { plan: plan.name, subdomains: plan.subdomains, skipped });

/** The scan's `partial` field: every stage that ended early or skipped work, or null. */
export function scanPartialOf(summary: ScanSummary): TScanPartial | null {
  const stages = summary.stages
    .filter((s) => s.partial)
    .map((s) => ({
      stage: s.name,
      status: s.status,
      reason: s.reason ?? null,
      planned: s.planned ?? null,
      ran: s.ran ?? null,
      skipped: s.skipped.map((k) => ({ reason: k.reason, count: k.count, examples: k.examples })),
    }));
  return stages.length ? { stages } : null;
}

/**
 * What a finished scan may mark fixed (issue: a check that could not run is not a "no").
 * Templates are judged per check and host from the engine's coverage; the other families per
 * stage: a stage that ended early or skipped work — or discovery that did — fixes nothing.
 */
export function fixRuleOf(
  summary: ScanSummary,
  subclasses: readonly string[],
  coverage: ScanCoverage,
): FixRule {
  const byName = new Map(summary.stages.map((s) => [s.name, s]));
  const discoveryPartial = DISCOVERY_STAGES.some((d) => byName.get(d)?.partial);
  const rule: FixRule = { undecided: [] };
  for (const sub of subclasses) {
    const stage = SUBCLASS_STAGE[sub as TScanSubclass];
    const outcome = stage ? byName.get(stage) : undefined;
    if (!stage || !outcome || outcome.status === 'aborted' || outcome.status === 'skipped') {
      rule.undecided.push(sub);
    } else if (sub === 'exploit_scanner' && coverage.tracks(stage)) {
      // A host no check ran against is gone only if the whole scan ran: then it is a "no" too.
      rule.isTemplateFixable = (templateId, host) =>
        coverage.isDecided(stage, templateId, host) || (!summary.partial && !coverage.covers(stage, host));
    } else if (outcome.partial || discoveryPartial) {
      rule.undecided.push(sub);
    }
  }
  return rule;
}

/** What the accumulator needs of a scan's target: which of them a finding belongs to. */
export interface ScanTarget {
  id: string;
  targetType: string;
  value: string;
  mainDomain: string | null;
}

/** Which of the scan's targets a finding belongs to. */
export function targetOf(targets: readonly ScanTarget[], f: Finding): string {
  const host = findingHost(f).toLowerCase();
  for (const t of targets) {
    if (t.targetType === 'domain' && (host === t.value || host.endsWith(`.${t.value}`))) return t.id;
    if (t.targetType === 'peer' && host === t.value) return t.id;
    if (
      t.targetType === 'network' &&
      new ScopePolicy({ allowPrivate: true, allow: [t.value], deny: [] }).isAllowed(host)
    )
      return t.id;
  }
  const main = hostNames(host).mainDomain;
  return (targets.find((t) => t.mainDomain === main) ?? (targets[0] as ScanTarget)).id;
}

export interface FoundFindings {
  exploit_scanner: SeenFinding<TemplateFinding>[];
  exploit_db: SeenFinding<CveFinding>[];
  leakcheck: SeenFinding<LeakFinding>[];
}
/** One write of the worker: the assets, scope rows and findings seen since the last one. */
export interface ScanBatch {
  assets: { kind: string; key: string; data: Record<string, unknown> }[];
  scopeRows: ScopeRow[];
  found: FoundFindings;
}
/** A batch with no rows to write (only the scan's progress may have moved). */
export const isEmptyBatch = ({ assets, scopeRows, found }: ScanBatch): boolean =>
  assets.length === 0 &&
  scopeRows.length === 0 &&
  found.exploit_scanner.length === 0 &&
  found.exploit_db.length === 0 &&
  found.leakcheck.length === 0;
export interface ScanProgress {
  stage: string;
  percent: number;
  etaSeconds: number | null;
}

/** A batch is written after this many events, or this long after the last one. */
export const FLUSH_EVERY = 200;
export const FLUSH_MS = 1000;

/**
 * A scan's engine events folded into what its worker writes: batches of assets, scope rows and
 * findings, the running counts and the progress. Pure: the caller gives the clock and writes.
 */
export class ScanAccumulator {
  readonly counts: Record<string, number> = { findings: 0 };
  progress: ScanProgress;
  /** Subdomains found past the plan's limit: the engine keeps the first N and skips the rest. */
  readonly overLimit: string[] = [];
  private readonly scope = new ScopeModel();
  private assets: ScanBatch['assets'] = [];
  private found: FoundFindings = { exploit_scanner: [], exploit_db: [], leakcheck: [] };
  private pending = 0;
  /** An event came since the last batch was taken (a progress event too): there is something to write. */
  hasUnwritten = false;
  private lastFlush: number;
  private readonly stages: string[];
  private readonly targets: readonly ScanTarget[];
  private readonly startedAt: number;

  constructor(stages: string[], targets: readonly ScanTarget[], now: number) {
    this.stages = stages;
    this.targets = targets;
    this.startedAt = now;
    this.lastFlush = now;
    this.progress = { stage: stages[0] as string, percent: 0, etaSeconds: null };
  }

  add(event: ScanEvent, now: number): void {
    this.hasUnwritten = true;
    if (event.type === 'asset') {
      const a: Asset = event.asset;
      this.counts[a.kind] = (this.counts[a.kind] ?? 0) + 1;
      this.scope.add(a);
      this.assets.push({ kind: a.kind, key: assetKey(a), data: a as unknown as Record<string, unknown> });
      this.pending++;
    } else if (event.type === 'finding') {
      const f = event.finding;
      this.counts.findings = (this.counts.findings ?? 0) + 1;
      this.counts[f.subclass] = (this.counts[f.subclass] ?? 0) + 1;
      const targetId = targetOf(this.targets, f);
      if (f.subclass === 'exploit_scanner') this.found.exploit_scanner.push({ targetId, finding: f });
      else if (f.subclass === 'exploit_db') this.found.exploit_db.push({ targetId, finding: f });
      else this.found.leakcheck.push({ targetId, finding: f });
      this.pending++;
    } else if (event.type === 'progress') {
      const percent = percentOf(this.stages, event.stage, event.done, event.total);
      const elapsed = (now - this.startedAt) / 1000;
      this.progress = {
        stage: event.stage,
        percent: Math.max(this.progress.percent, percent),
        etaSeconds:
          event.etaMs !== undefined
            ? Math.round(event.etaMs / 1000)
            : percent > 0
              ? Math.round((elapsed * (100 - percent)) / percent)
              : null,
      };
    } else if (event.type === 'log') {
      if (event.stage && this.stages.includes(event.stage) && event.stage !== this.progress.stage)
        this.progress = {
          ...this.progress,
          stage: event.stage,
          percent: Math.max(this.progress.percent, percentOf(this.stages, event.stage, 0, 1)),
        };
      else if (event.code === 'subdomain_limit' && typeof event.data?.name === 'string')
        this.overLimit.push(event.data.name);
    }
  }

  /** Enough events are waiting, or the last batch is long enough ago. */
  isDue(now: number): boolean {
    return this.pending >= FLUSH_EVERY || now - this.lastFlush >= FLUSH_MS;
  }

  /** What is waiting to be written; starts the next batch. */
  take(now: number): ScanBatch {
    const batch = { assets: this.assets, scopeRows: this.scope.takeDirty(), found: this.found };
    this.assets = [];
    this.found = { exploit_scanner: [], exploit_db: [], leakcheck: [] };
    this.pending = 0;
    this.hasUnwritten = false;
    this.lastFlush = now;
    // Technology events come per host:port; the panel counts them as the scope chip does.
    if (this.counts.technology !== undefined) this.counts.technology = this.scope.technologyCount();
    return batch;
  }
}

/** The scan's fields once the engine's summary came: skipped hosts (with the plan's cut), summary, partial. */
export function summaryFields(
  summary: ScanSummary,
  overLimit: readonly string[],
  plan: { name: string; subdomains: number },
  notices: readonly string[],
) {
  return {
    skippedHosts: [
      ...summary.skippedHosts,
      ...overLimit.map((host) => ({
        host,
        reason: subdomainLimitReason(plan),
        code: 'plan_subdomain_limit' as const,
        params: { plan: plan.name, subdomains: plan.subdomains },
      })),
    ],
    summary: { ...(summary as unknown as Record<string, unknown>), notices },
    partial: scanPartialOf(summary),
  };
}
