import { setMaxListeners } from 'node:events';
import type { TemplateFinding } from '../findings/types.ts';
import { DnsAnswers } from '../protocols/dns/dns-answers.ts';
import { HttpClient } from '../protocols/http/http-client.ts';
import { OobCorrelator } from '../protocols/oob/oob-correlator.ts';
import type { OobProvider } from '../protocols/oob/oob-types.ts';
import { mapConcurrent } from './concurrency.ts';
import { HostGate, type RateScope, RequestRate, type UnresponsiveHost } from './politeness.ts';
import type { DnsServer, RunContext } from './run-types.ts';
import { clusterTemplates } from './template-cluster.ts';
import {
  type ExecutorRegistry,
  type IncompleteReason,
  runCluster,
  runTemplate,
  type TemplateRunResult,
} from './template-runner.ts';
import type { CompiledTemplate } from './template-types.ts';

export interface TemplateScanOptions {
  signal?: AbortSignal;
  /** Requests per second (default 150; 0: no limit), counted per `rateLimitPer`. */
  rateLimit?: number;
  /** `host` (default): each host name gets `rateLimit` on its own; `scan`: one budget across every host. */
  rateLimitPer?: RateScope;
  /** Concurrent requests per host (default 4). */
  perHostConcurrency?: number;
  /** Template × target tasks in flight (default 25). */
  concurrency?: number;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Failed requests after which a host is skipped (default 10). */
  hostErrorBudget?: number;
  dnsServers?: DnsServer[];
  isUrlAllowed?: RunContext['isUrlAllowed'];
  /**
   * Without `isUrlAllowed`, requests go only to each input's own host name; this lets them
   * go anywhere a template says (as nuclei does). Off by default.
   */
  allowOtherHosts?: boolean;
  resolve?: (hostname: string) => string | undefined;
  httpClient?: HttpClient;
  executors?: ExecutorRegistry;
  log?: RunContext['log'];
  /**
   * The out-of-band server: `{{interactsh-url}}` is filled in and runs whose matchers read
   * `interactsh_*` parts wait `waitMs` (default 5 s, at most 60 s) for call-backs.
   */
  oob?: { provider: OobProvider; waitMs?: number; pollIntervalMs?: number };
}

export interface TemplateScanSummary {
  templates: number;
  targets: number;
  /** Template × input tasks finished. */
  tasks: number;
  requests: number;
  findings: number;
  errors: number;
  unresponsiveHosts: UnresponsiveHost[];
  /**
   * Finished tasks that did not run all their requests to a response, by reason (a task
   * counts once per reason). `not_started` (set by the stage): planned tasks never started
   * because the stage was stopped.
   */
  incomplete: Partial<Record<IncompleteReason | 'not_started', number>>;
  /** Findings from out-of-band call-backs that arrived after their run's wait. */
  oobLate: number;
}

/** A fresh, empty summary. */
export function emptyScanSummary(): TemplateScanSummary {
  return {
    templates: 0,
    targets: 0,
    tasks: 0,
    requests: 0,
    findings: 0,
    errors: 0,
    unresponsiveHosts: [],
    incomplete: {},
    oobLate: 0,
  };
}

export interface TemplateJob {
  template: CompiledTemplate;
  input: string;
}

/** What `runWithProgress` yields: a finding, or a finished template × input task. */
export type ProgressItem =
  | { kind: 'finding'; finding: TemplateFinding }
  | { kind: 'task'; done: number; job: TemplateJob; errors: string[] };

/**
 * Inputs in batches, templates outer within a batch: each host sees its templates spread
 * over time (politeness), while only one batch of hosts has open connections and state at a
 * time — memory depends on the batch size, not on the number of hosts.
 */
export function* batchedJobs(
  templates: CompiledTemplate[],
  inputs: string[],
  batchSize: number,
): Generator<TemplateJob> {
  for (let i = 0; i < inputs.length; i += batchSize) {
    const batch = inputs.slice(i, i + batchSize);
    for (const template of templates) for (const input of batch) yield { template, input };
  }
}

/**
 * Runs templates against inputs with the politeness limits; findings stream out as they are
 * found. Read `summary` once the iteration has finished.
 */
export class TemplateScanner {
  readonly summary: TemplateScanSummary = emptyScanSummary();
  private readonly ctx: RunContext;
  private readonly ownsClient: boolean;
  private readonly oob: OobCorrelator | undefined;

  constructor(
    private readonly executors: ExecutorRegistry,
    private readonly options: TemplateScanOptions = {},
  ) {
    const timeoutMs = options.timeoutMs ?? 10000;
    const maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
    this.ownsClient = !options.httpClient;
    const http =
      options.httpClient ??
      new HttpClient({
        timeoutMs,
        maxResponseBytes,
        connectionsPerOrigin: options.perHostConcurrency ?? 4,
        // Connections stay open for this batch of hosts and the one before (see batchedJobs;
        // the stage's templateJobs batches 128 inputs).
        maxOrigins: Math.max(256, this.batchSize() * 2),
        ...(options.resolve ? { resolve: options.resolve } : {}),
      });
    // One internal signal linked to the caller's: every in-flight request listens to it.
    const internal = new AbortController();
    setMaxListeners(10000, internal.signal);
    if (options.signal?.aborted) internal.abort(options.signal.reason);
    else
      options.signal?.addEventListener('abort', () => internal.abort(options.signal?.reason), { once: true });
    this.oob = options.oob
      ? new OobCorrelator(options.oob.provider, {
          ...(options.oob.waitMs !== undefined ? { waitMs: options.oob.waitMs } : {}),
          ...(options.oob.pollIntervalMs !== undefined ? { pollIntervalMs: options.oob.pollIntervalMs } : {}),
          ...(options.log ? { log: options.log } : {}),
        })
      : undefined;
    if (this.oob) {
      const oob = this.oob;
      internal.signal.addEventListener('abort', () => oob.close(), { once: true });
    }
    this.ctx = {
      signal: internal.signal,
      http,
      rate: new RequestRate(options.rateLimit ?? 150, options.rateLimitPer ?? 'host'),
      hosts: new HostGate(options.perHostConcurrency ?? 4, options.hostErrorBudget ?? 10),
      timeoutMs,
      maxResponseBytes,
      dnsServers: options.dnsServers ?? [],
      dnsAnswers: new DnsAnswers(),
      ...(options.isUrlAllowed ? { isUrlAllowed: options.isUrlAllowed } : {}),
      ...(options.allowOtherHosts ? { allowOtherHosts: true } : {}),
      ...(options.resolve ? { resolve: options.resolve } : {}),
      log: options.log ?? (() => {}),
      ...(this.oob ? { oob: this.oob } : {}),
    };
  }

  /**
   * Runs every template against every input (see `batchedJobs` for the order); identical
   * requests of different templates are sent once (see template-cluster.ts).
   */
  scan(templates: CompiledTemplate[], inputs: string[]): AsyncGenerator<TemplateFinding> {
    this.summary.templates += templates.length;
    this.summary.targets += inputs.length;
    return this.run(batchedJobs(clusterTemplates(templates), inputs, this.batchSize()));
  }

  /** Inputs scanned together: enough to spread load across hosts, few enough to bound memory. */
  batchSize(): number {
    return Math.max(64, (this.options.concurrency ?? 25) * 2);
  }

  /** Runs explicit template/input pairs (a lazy source keeps memory bounded). */
  async *run(jobs: Iterable<TemplateJob>): AsyncGenerator<TemplateFinding> {
    for await (const item of this.runWithProgress(jobs)) if (item.kind === 'finding') yield item.finding;
  }

  /** Like `run`, also reporting each finished template × input task (for progress and watchdogs). */
  async *runWithProgress(jobs: Iterable<TemplateJob>): AsyncGenerator<ProgressItem> {
    // Runs waiting for out-of-band call-backs do not hold a task slot: their findings are
    // handed out as their waits end, between tasks and after the last one.
    const waiting = new Set<Promise<void>>();
    const ready: TemplateFinding[] = [];
    const oob = this.oob;
    const wait = (pending: NonNullable<TemplateRunResult['pending']>) => {
      if (!oob) return;
      const p: Promise<void> = oob.watch(pending).then((findings) => {
        waiting.delete(p);
        this.summary.findings += findings.length;
        ready.push(...findings);
      });
      waiting.add(p);
    };
    const drain = function* () {
      while (ready.length > 0) yield { kind: 'finding' as const, finding: ready.shift() as TemplateFinding };
    };
    try {
      for await (const items of mapConcurrent(
        jobs,
        this.options.concurrency ?? 25,
        async (job) => {
          const members = job.template.cluster;
          if (!members) {
            const r = await runTemplate(job.template, job.input, this.ctx, this.executors);
            if (r.pending) wait(r.pending);
            return this.finished(job, r, []);
          }
          // A cluster is one run for its members: one task each.
          const results = await runCluster(job.template, job.input, this.ctx, this.executors);
          const items: ProgressItem[] = [];
          results.forEach((r, i) => {
            if (r.pending) wait(r.pending);
            this.finished({ template: members[i] as CompiledTemplate, input: job.input }, r, items);
          });
          return items;
        },
        this.ctx.signal,
      )) {
        for (const item of items) yield item;
        if (ready.length > 0) yield* drain();
      }
      if (oob) {
        while (waiting.size > 0) {
          await Promise.race(waiting);
          yield* drain();
        }
        // The stage's last poll: call-backs that came after their run's wait.
        const late = await oob.finish();
        this.summary.findings += late.length;
        this.summary.oobLate += late.length;
        for (const finding of late) yield { kind: 'finding' as const, finding };
      }
    } finally {
      oob?.close();
      this.summary.unresponsiveHosts = this.ctx.hosts.unresponsive();
    }
  }

  /** Counts one finished template × input task; its findings, then the task itself, go into `items`. */
  private finished(job: TemplateJob, r: TemplateRunResult, items: ProgressItem[]): ProgressItem[] {
    this.summary.tasks++;
    this.summary.requests += r.requests;
    this.summary.errors += r.errors.length;
    this.summary.findings += r.findings.length;
    for (const reason of r.incomplete)
      this.summary.incomplete[reason] = (this.summary.incomplete[reason] ?? 0) + 1;
    for (const e of r.errors) this.ctx.log('warn', e);
    for (const finding of r.findings) items.push({ kind: 'finding', finding });
    items.push({ kind: 'task', done: this.summary.tasks, job, errors: r.errors });
    return items;
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.ctx.http.close();
  }
}
