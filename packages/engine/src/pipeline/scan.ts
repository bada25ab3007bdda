import { setMaxListeners } from 'node:events';
import net from 'node:net';
import { subdomainStage } from '../discovery/subdomain-stage.ts';
import { DnsResolver } from '../dns/dns-resolver.ts';
import { resolveStage } from '../dns/resolve-stage.ts';
import { FingerprintEngine } from '../fingerprint/fingerprint-engine.ts';
import { BUILTIN_FINGERPRINTS_DIR, loadFingerprints } from '../fingerprint/fingerprint-loader.ts';
import { fingerprintStage } from '../fingerprint/fingerprint-stage.ts';
import { Channel, onAbort } from '../lib/async.ts';
import { portsStage } from '../ports/ports-stage.ts';
import { HttpProber } from '../probe/http-probe.ts';
import { httpStage } from '../probe/http-stage.ts';
import { ScopePolicy } from '../scope/scope-policy.ts';
import { isWithinDomain, parseTarget, type Target, type TargetInput } from '../scope/targets.ts';
import type { AssetKind, ScanEvent, ScanSummary, StageOutcome } from './events.ts';
import { Inventory } from './inventory.ts';
import { type ScanConfig, SUBCLASS_CLASS } from './scan-config.ts';
import type { Stage, StageContext } from './stage.ts';
import { ScanCoverage, StageReport } from './stage-report.ts';

export interface ScanOptions {
  signal?: AbortSignal;
  /** Filled with which checks ran to an answer against which scopes (for the finding lifecycle). */
  coverage?: ScanCoverage;
}

const DEFAULT_STAGE_TIMEOUT = 10 * 60_000;
const DEFAULT_WATCHDOG = 2 * 60_000;
/** Events of the finding stages waiting for the scan's reader before the stages wait for it. */
const FINDING_EVENTS_AHEAD = 256;

/** The discovery stages of class_resources, in order. */
export function resourceStages(): Stage[] {
  return [subdomainStage(), resolveStage(), portsStage(), httpStage(), fingerprintStage()];
}

/** Extra stages selected by classes/subclasses (default: all of them). */
export function selectStages(config: ScanConfig): Stage[] {
  const extra = config.extraStages ?? [];
  return extra.filter((s) => {
    if (config.subclasses?.length && s.subclass) return config.subclasses.includes(s.subclass);
    if (config.classes?.length) {
      const cls = s.subclass ? SUBCLASS_CLASS[s.subclass] : s.class;
      return config.classes.includes(cls);
    }
    return true;
  });
}

let fingerprintCache: { key: string; engine: FingerprintEngine } | null = null;

function fingerprintEngine(config: Pick<ScanConfig, 'fingerprints'>): FingerprintEngine {
  const dirs = [
    ...(config.fingerprints?.noBuiltin ? [] : [BUILTIN_FINGERPRINTS_DIR]),
    ...(config.fingerprints?.dirs ?? []),
  ];
  const key = dirs.join('|');
  if (fingerprintCache?.key !== key)
    fingerprintCache = { key, engine: new FingerprintEngine(loadFingerprints(dirs)) };
  return fingerprintCache.engine;
}

/**
 * Loads the fingerprint set that scans with `config` use (the built-in one by default) into the
 * process's cache before its first scan, which would otherwise read and compile it (~60 ms) while
 * it runs; returns how many technologies it holds.
 */
export function preloadFingerprints(config: Pick<ScanConfig, 'fingerprints'> = {}): number {
  return fingerprintEngine(config).size;
}

/** Fills the outcome's counts from the stage's report and decides whether it is partial. */
export function settleOutcome(outcome: StageOutcome, report: StageReport): void {
  const ended = outcome.status === 'timeout' || outcome.status === 'stalled' || outcome.status === 'failed';
  if (report.planned !== undefined) {
    outcome.planned = report.planned;
    outcome.ran = report.ran;
    const left = report.planned - report.ran - report.skippedUnits;
    if (left > 0 && outcome.status !== 'aborted')
      report.skip(ended ? `not run: ${outcome.reason ?? outcome.status}` : 'not run', left);
  }
  outcome.skipped = report.skipped;
  outcome.partial = outcome.status !== 'aborted' && (ended || outcome.skipped.length > 0);
}

/**
 * Runs one stage: its own signal (scan abort, time limit, watchdog), events passed through,
 * and an outcome. A stage that fails or stalls is ended and the scan goes on.
 */
async function* runStage(
  stage: Stage,
  base: Omit<StageContext, 'signal' | 'report'>,
  scanSignal: AbortSignal,
  config: ScanConfig,
  outcome: StageOutcome,
  report: StageReport,
): AsyncGenerator<ScanEvent> {
  const started = Date.now();
  const controller = new AbortController();
  const timeoutMs = stage.timeoutMs ?? config.stageTimeoutMs ?? DEFAULT_STAGE_TIMEOUT;
  const watchdogMs = config.watchdogMs ?? DEFAULT_WATCHDOG;
  const signal = AbortSignal.any([scanSignal, controller.signal]);
  // Many concurrent operations listen to the same signal.
  setMaxListeners(0, signal, controller.signal);
  const iterator = stage.run({ ...base, signal, report })[Symbol.asyncIterator]();
  const stop = onAbort(scanSignal);
  let timer: NodeJS.Timeout | undefined;
  const deadline = started + timeoutMs;
  try {
    while (true) {
      // Which limit ends the wait is decided here, not by reading the clock when it fires: the
      // timer runs on the monotonic clock and Date.now() on the wall clock (each rounds off its
      // millisecond; an NTP step moves only the wall clock), so at the deadline's timer the wall
      // clock may still read a moment before the deadline — which made a time limit a "stall".
      const untilDeadline = Math.max(0, deadline - Date.now());
      const limit = untilDeadline <= watchdogMs ? 'timeout' : 'stalled';
      const timed = new Promise<'timeout' | 'stalled'>((resolve) => {
        timer = setTimeout(() => resolve(limit), limit === 'timeout' ? untilDeadline : watchdogMs);
      });
      const next = iterator.next();
      next.catch(() => {});
      const r = await Promise.race([next, timed, stop.promise.then(() => 'aborted' as const)]);
      clearTimeout(timer);
      if (r === 'aborted' || r === 'timeout' || r === 'stalled') {
        controller.abort();
        outcome.status = r;
        if (r !== 'aborted') {
          outcome.reason =
            r === 'timeout' ? `time limit ${timeoutMs} ms reached` : `no progress for ${watchdogMs} ms`;
          yield {
            type: 'log',
            level: 'warn',
            stage: stage.name,
            code: `stage_${r}`,
            message: `stage ${stage.name} ended: ${outcome.reason}`,
          };
        }
        iterator.return?.(undefined).catch(() => {});
        break;
      }
      if (r.done) break;
      yield r.value;
    }
  } catch (e) {
    controller.abort();
    outcome.status = scanSignal.aborted ? 'aborted' : 'failed';
    outcome.reason = (e as Error).message;
    if (!scanSignal.aborted) {
      yield {
        type: 'log',
        level: 'error',
        stage: stage.name,
        code: 'stage_failed',
        message: `stage ${stage.name} failed: ${outcome.reason}`,
      };
    }
  } finally {
    clearTimeout(timer);
    stop.dispose();
    outcome.durationMs = Date.now() - started;
    settleOutcome(outcome, report);
  }
  if (outcome.partial)
    yield {
      type: 'log',
      level: 'warn',
      stage: stage.name,
      code: 'stage_partial',
      message: `stage ${stage.name} is partial: ${partialText(outcome)}`,
    };
}

function newOutcome(stage: Stage, outcomes: StageOutcome[]): StageOutcome {
  const outcome: StageOutcome = {
    name: stage.name,
    status: 'done',
    durationMs: 0,
    skipped: [],
    partial: false,
  };
  outcomes.push(outcome);
  return outcome;
}

/** `ran 10 of 12; 2 skipped: dns timeout after 4000 ms (2)`. */
export function partialText(o: StageOutcome): string {
  const parts: string[] = [];
  if (o.status !== 'done') parts.push(`${o.status}${o.reason ? ` (${o.reason})` : ''}`);
  if (o.planned !== undefined) parts.push(`ran ${o.ran ?? 0} of ${o.planned}`);
  for (const s of o.skipped)
    parts.push(
      `${s.count} skipped: ${s.reason}${s.examples.length ? ` (e.g. ${s.examples.join(', ')})` : ''}`,
    );
  return parts.join('; ');
}

/**
 * Scans one or more targets and yields events as they happen: assets, findings, progress,
 * logs, and a final summary. Aborting `signal` ends the iteration promptly with a summary of
 * the partial results.
 */
export async function* scan(
  target: string | TargetInput | (string | TargetInput)[],
  config: ScanConfig = {},
  options: ScanOptions = {},
): AsyncGenerator<ScanEvent> {
  const started = Date.now();
  const scanSignal = options.signal ?? new AbortController().signal;
  // Ends the finding stages running beside each other when the caller stops reading early.
  const stopFindings = new AbortController();
  /** The finding stages' events, for this generator to pass on. */
  const told = new Channel<ScanEvent>();
  const findingsSignal = AbortSignal.any([scanSignal, stopFindings.signal]);
  setMaxListeners(0, scanSignal, findingsSignal);
  const targets: Target[] = (Array.isArray(target) ? target : [target]).map((t) =>
    parseTarget(t, config.limits?.maxNetworkSize ?? 65_536),
  );
  const policy = new ScopePolicy(config.scope ?? {});
  const resolver = new DnsResolver(config.dns ?? {});
  const inventory = new Inventory();
  const domains = targets.flatMap((t) => (t.type === 'domain' ? [t.domain] : []));
  const peers = new Set(targets.flatMap((t) => (t.type === 'peer' ? [t.address] : [])));
  const networks = new ScopePolicy({
    allowPrivate: true,
    allow: targets.flatMap((t) => (t.type === 'network' ? [t.cidr] : [])),
    deny: [],
  });
  const hasNetworks = targets.some((t) => t.type === 'network');
  const resolveHost = async (host: string) => {
    const known = inventory.addressesOf(host);
    return known?.length ? known : (await resolver.resolveHost(host, scanSignal)).addresses;
  };
  const http = new HttpProber(policy, resolveHost, {
    timeoutMs: config.http?.timeoutMs ?? 5000,
    maxRedirects: config.http?.maxRedirects ?? 5,
    ...(config.http?.userAgent ? { userAgent: config.http.userAgent } : {}),
  });
  const isInTarget = (h: string): boolean => {
    const host = h.toLowerCase().replace(/^\[|\]$/g, '');
    if (net.isIP(host)) {
      if (peers.has(host) || inventory.ips.has(host)) return true;
      return hasNetworks && networks.isAllowed(host);
    }
    return domains.some((d) => isWithinDomain(host, d));
  };
  const base: Omit<StageContext, 'signal' | 'report'> = {
    targets,
    config,
    policy,
    resolver,
    http,
    fingerprints: fingerprintEngine(config),
    inventory,
    isInTarget,
  };

  const discovery = resourceStages();
  const findingStages = selectStages(config);
  const outcomes: StageOutcome[] = [];
  const coverage = options.coverage ?? new ScanCoverage();
  const counts: ScanSummary['counts'] = {
    subdomain: 0,
    ip: 0,
    service: 0,
    url: 0,
    technology: 0,
    email: 0,
    findings: 0,
  };
  try {
    yield {
      type: 'log',
      level: 'info',
      code: 'scan_started',
      message: `scanning ${targets.map((t) => (t.type === 'domain' ? t.domain : t.type === 'peer' ? t.address : t.cidr)).join(', ')}`,
    };
    const count = (event: ScanEvent) => {
      if (event.type === 'asset') counts[event.asset.kind as AssetKind]++;
      if (event.type === 'finding') counts.findings++;
    };
    for (const stage of discovery) {
      const outcome = newOutcome(stage, outcomes);
      if (scanSignal.aborted) {
        outcome.status = 'aborted';
        continue;
      }
      const report = new StageReport(stage.name, coverage);
      for await (const event of runStage(stage, base, scanSignal, config, outcome, report)) {
        count(event);
        yield event;
      }
    }
    // The finding stages read what discovery found and nothing of each other's: they run at once
    // (the leak providers' and the CVE lookups' waits no longer come after the templates'), each
    // under its own limits. Their findings and assets pass as they come; their logs and progress
    // are told stage after stage, as before, so a reader sees one stage's progress at a time.
    const held = findingStages.map((): ScanEvent[] => []);
    const ended = findingStages.map(() => false);
    let current = 0;
    const stageEnded = (i: number) => {
      ended[i] = true;
      while (current < findingStages.length && ended[current]) {
        current++;
        for (const e of held[current]?.splice(0) ?? []) told.push(e);
      }
      if (current >= findingStages.length) told.close();
    };
    findingStages.forEach((stage, i) => {
      const outcome = newOutcome(stage, outcomes);
      if (scanSignal.aborted) {
        outcome.status = 'aborted';
        stageEnded(i);
        return;
      }
      const report = new StageReport(stage.name, coverage);
      (async () => {
        for await (const event of runStage(stage, base, findingsSignal, config, outcome, report)) {
          if (i === current || event.type === 'finding' || event.type === 'asset') {
            told.push(event);
            // The reader's pace holds the stages back, as when it pulled each stage itself.
            const room = told.room(FINDING_EVENTS_AHEAD);
            if (room) await room;
          } else held[i]?.push(event);
        }
      })().then(
        () => stageEnded(i),
        (e) => told.close(e),
      );
    });
    if (findingStages.length === 0) told.close();
    for await (const event of told) {
      count(event);
      yield event;
    }
    const finished = Date.now();
    const summary: ScanSummary = {
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date(finished).toISOString(),
      durationMs: finished - started,
      aborted: scanSignal.aborted,
      partial: !scanSignal.aborted && outcomes.some((o) => o.partial),
      counts,
      stages: outcomes,
      skippedHosts: inventory.skippedHosts,
      refused: inventory.refused,
    };
    yield { type: 'summary', summary };
  } finally {
    stopFindings.abort();
    told.close();
    resolver.close();
    // Never let connection teardown hold up the end of the scan.
    await Promise.race([http.close().catch(() => {}), new Promise((r) => setTimeout(r, 200).unref())]);
  }
}
