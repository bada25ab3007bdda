import net from 'node:net';
import type { TemplateFinding } from '../findings/types.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { defaultExecutors } from '../protocols/index.ts';
import { inputHost, intrusiveGate, isIntrusiveTemplate } from './intrusive.ts';
import type { DnsServer } from './run-types.ts';
import { clusterTemplates } from './template-cluster.ts';
import {
  countJobs,
  OOB_NOT_CONFIGURED,
  runnable,
  scopeOfInput,
  type TemplateStageInput,
  templateInputFromContext,
  templateJobs,
} from './template-jobs.ts';
import { countSkipReasons } from './template-loader.ts';
import {
  emptyScanSummary,
  type TemplateJob,
  TemplateScanner,
  type TemplateScanOptions,
  type TemplateScanSummary,
} from './template-scanner.ts';
import { DEFAULT_EXCLUDED_TAGS, selectTemplates, type TemplateSelection } from './template-selection.ts';
import { BUILTIN_TEMPLATES_DIR, loadStageTemplates } from './template-sets.ts';
import type { CompiledTemplate } from './template-types.ts';

// The stage's parts, where callers have always found them.
export {
  countJobs,
  OOB_NOT_CONFIGURED,
  scopeOfInput,
  type TemplateStageInput,
  templateInputFromContext,
  templateJobs,
} from './template-jobs.ts';
export {
  BUILTIN_TEMPLATES_DIR,
  type LoadedTemplateSets,
  loadTemplateSets,
  type TemplateOverride,
} from './template-sets.ts';

export interface TemplateStageOptions extends Omit<TemplateScanOptions, 'executors'>, TemplateSelection {
  templates: CompiledTemplate[];
}

export interface TemplateStageResult {
  summary: TemplateScanSummary;
}

export { selectTemplates };

/**
 * The exploit_scanner stage as a plain async generator: runs the templates against what
 * discovery found and yields findings. `result.summary` is filled when it finishes.
 */
export async function* runTemplateStage(
  input: TemplateStageInput,
  options: TemplateStageOptions,
  result: TemplateStageResult = { summary: emptyScanSummary() },
): AsyncGenerator<TemplateFinding> {
  const { templates, tags, severities, excludeTags, excludeFiles, ...scanOptions } = options;
  const { run: selected } = runnable(
    selectTemplates(templates, {
      ...(tags ? { tags } : {}),
      ...(severities ? { severities } : {}),
      ...(excludeTags ? { excludeTags } : {}),
      ...(excludeFiles ? { excludeFiles } : {}),
    }),
    scanOptions.oob !== undefined,
  );
  const scanner = new TemplateScanner(defaultExecutors, scanOptions);
  try {
    yield* scanner.run(templateJobs(clusterTemplates(selected), input));
  } finally {
    scanner.summary.templates = selected.length;
    result.summary = scanner.summary;
    await scanner.close();
  }
}

/** One reason line for a failed template run: its last error, addresses and ports left out. */
function errorReason(errors: string[]): string {
  const last = errors[errors.length - 1] ?? 'error';
  const cause = last.slice(last.lastIndexOf(': ') + 2) || last;
  return `check failed: ${cause.replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '<address>')}`;
}
const INCOMPLETE_TEXT: Record<string, string> = {
  host_unresponsive: 'cut short: host skipped after too many failed requests',
  request_failed: 'with a request that got no response',
  invalid_request: 'with a request that could not be sent as written',
  not_started: 'not started: the stage was stopped',
};

export interface TemplateStageConfig
  extends Omit<TemplateStageOptions, 'templates' | 'signal' | 'resolve' | 'dnsServers' | 'isUrlAllowed'> {
  /** Template directories; the built-in pack unless `noBuiltin`. */
  dirs?: string[];
  noBuiltin?: boolean;
  /**
   * When set, intrusive templates (attack payloads, see `intrusive.ts`) run only on hosts whose
   * every address is inside these CIDRs or the scan's peer and network targets; unset, they run
   * everywhere in scope (the engine alone, the CLI, benchmarks).
   */
  intrusiveAllow?: string[];
  /**
   * When set, the loaded templates are kept in this process and reused by the next stage with
   * the same key: the caller promises the folders' content is what the key names (the server
   * passes the template sets' content hashes), so a corpus is compiled once per worker.
   */
  cacheKey?: string;
}

/** The folders the stage loads: the built-in pack first unless left out, then the operator's. */
function stageDirs(dirs: string[], noBuiltin: boolean | undefined): string[] {
  return [...(noBuiltin ? [] : [BUILTIN_TEMPLATES_DIR]), ...dirs];
}

/**
 * Compiles the stage's templates into the process's cache ahead of a scan (a worker at start-up):
 * the same folders and `cacheKey` as the stage, so the stage finds them there. Returns how many loaded.
 */
export async function preloadStageTemplates(
  config: Pick<TemplateStageConfig, 'dirs' | 'noBuiltin' | 'cacheKey'>,
): Promise<number> {
  const loaded = await loadStageTemplates(stageDirs(config.dirs ?? [], config.noBuiltin), config.cacheKey);
  return loaded.templates.length;
}

/** The exploit_scanner stage in the pipeline's Stage shape (`config.extraStages`). */
export function createTemplateStage(config: TemplateStageConfig = {}): Stage {
  return {
    name: 'templates',
    class: 'class_exploitation',
    subclass: 'exploit_scanner',
    async *run(ctx: StageContext): AsyncIterable<ScanEvent> {
      const { dirs = [], noBuiltin, intrusiveAllow, cacheKey, ...options } = config;
      const loaded = await loadStageTemplates(stageDirs(dirs, noBuiltin), cacheKey);
      for (const o of loaded.overrides)
        yield {
          type: 'log',
          level: 'info',
          stage: 'templates',
          code: 'template_override',
          message: `template ${o.id}: using ${o.kept} instead of ${o.replaced}`,
          data: { id: o.id, kept: o.kept, replaced: o.replaced },
        };
      for (const i of loaded.invalid)
        yield {
          type: 'log',
          level: 'warn',
          stage: 'templates',
          code: 'template_invalid',
          message: `${i.file}: ${i.field}: ${i.reason}`,
        };
      const skippedByReason = countSkipReasons(loaded.skipped);
      for (const { reason, count } of skippedByReason)
        yield {
          type: 'log',
          level: 'info',
          stage: 'templates',
          code: 'template_skipped',
          message: `${count} template(s) skipped: ${reason}`,
          data: { count, reason },
        };
      const input = templateInputFromContext(ctx);
      const inv = ctx.inventory;
      const resolve = (host: string): string | undefined =>
        net.isIP(host) ? host : inv.addressesOf(host)?.[0];
      const dnsServers: DnsServer[] = ctx.resolver.servers.map((s) => ({ host: s.host, port: s.port }));
      // nuclei's defaults: tags such as dos and fuzz run only when asked for.
      const oobConfig = options.oob ?? ctx.config?.oob;
      const { run: selected, oobSkipped } = runnable(
        selectTemplates(loaded.templates, {
          ...options,
          excludeTags: options.excludeTags ?? [...DEFAULT_EXCLUDED_TAGS],
        }),
        oobConfig !== undefined,
      );
      const oobSkippedJobs = countJobs(oobSkipped, input);
      if (oobSkipped.length > 0)
        yield {
          type: 'log',
          level: 'info',
          stage: 'templates',
          code: 'template_skipped',
          message: `${oobSkipped.length} template(s) skipped: ${OOB_NOT_CONFIGURED}`,
          data: { count: oobSkipped.length, reason: OOB_NOT_CONFIGURED },
        };
      // Intrusive templates only where the addresses are proven (or the operator allows them).
      const permits = intrusiveAllow === undefined ? undefined : intrusiveGate(ctx.targets, intrusiveAllow);
      const addressesOfHost = (host: string) => (net.isIP(host) ? [host] : (inv.addressesOf(host) ?? []));
      const isPermitted = (job: TemplateJob) =>
        !permits || !isIntrusiveTemplate(job.template) || permits(addressesOfHost(inputHost(job.input)));
      const refused = new Map<string, Set<string>>();
      if (permits) {
        for (const job of templateJobs(selected.filter(isIntrusiveTemplate), input)) {
          if (isPermitted(job)) continue;
          const host = inputHost(job.input);
          refused.set(host, (refused.get(host) ?? new Set()).add(job.template.id));
        }
      }
      const refusedJobs = [...refused.values()].reduce((n, ids) => n + ids.size, 0);
      const total = countJobs(selected, input) - refusedJobs;
      const {
        tags: _tags,
        severities: _severities,
        excludeTags: _excludeTags,
        excludeFiles: _excludeFiles,
        ...scanOptions
      } = options;
      const scanner = new TemplateScanner(defaultExecutors, {
        ...scanOptions,
        ...(oobConfig ? { oob: oobConfig } : {}),
        signal: ctx.signal,
        resolve,
        dnsServers,
        isUrlAllowed: (url) => {
          const host = url.replace(/^https?:\/\/(\[[^\]]+\]|[^/:?#]+).*$/i, '$1').replace(/^\[|\]$/g, '');
          const ip = resolve(host);
          return ip !== undefined && ctx.policy.isAllowed(ip) && (ctx.isInTarget(host) || ctx.isInTarget(ip));
        },
      });
      const result: TemplateStageResult = { summary: scanner.summary };
      ctx.report.plan(total);
      if (oobSkippedJobs > 0) {
        ctx.report.plan(oobSkippedJobs);
        ctx.report.skip(OOB_NOT_CONFIGURED, oobSkippedJobs, oobSkipped[0]?.id);
      }
      let lastProgress = 0;
      try {
        const jobs = (function* () {
          // Identical requests of different templates are sent once (a cluster is one job).
          for (const job of templateJobs(clusterTemplates(selected), input)) if (isPermitted(job)) yield job;
        })();
        for await (const item of scanner.runWithProgress(jobs)) {
          if (item.kind === 'finding') {
            yield { type: 'finding', finding: item.finding };
            continue;
          }
          const { job, errors } = item;
          // A template that errored is not a "no": its earlier findings keep their state.
          const decided = errors.length === 0;
          ctx.report.checked(job.template.id, scopeOfInput(job.input), decided);
          if (decided) ctx.report.done();
          else ctx.report.skip(errorReason(errors), 1, `${job.template.id} on ${job.input}`);
          if (item.done === total || Date.now() - lastProgress > 1000) {
            lastProgress = Date.now();
            yield { type: 'progress', stage: 'templates', done: item.done, total };
          }
        }
      } finally {
        scanner.summary.templates = selected.length;
        await scanner.close();
      }
      const summary = result.summary;
      if (summary.tasks < total) summary.incomplete.not_started = total - summary.tasks;
      if (refused.size > 0) {
        const hosts = [...refused].map(([host, ids]) => ({
          host,
          addresses: addressesOfHost(host),
          templates: [...ids].sort(),
        }));
        yield {
          type: 'log',
          level: 'info',
          stage: 'templates',
          code: 'intrusive_skipped',
          message: `${refusedJobs} intrusive template run(s) skipped on ${hosts.length} host(s) whose addresses are not proven (verify them as peers or networks): ${hosts
            .slice(0, 10)
            .map((h) => `${h.host} (${h.addresses.join(', ') || 'unresolved'})`)
            .join(', ')}`,
          data: { skipped: refusedJobs, hosts: hosts.length },
        };
      }
      for (const h of summary.unresponsiveHosts)
        yield {
          type: 'log',
          level: 'warn',
          stage: 'templates',
          code: 'host_unresponsive',
          message: `${h.host} skipped after ${h.errors} errors: ${h.lastError}`,
        };
      const incomplete = Object.entries(summary.incomplete);
      if (incomplete.length > 0)
        yield {
          type: 'log',
          level: 'warn',
          stage: 'templates',
          code: 'templates_incomplete',
          message: `templates: ${incomplete.map(([reason, n]) => `${n} task(s) ${INCOMPLETE_TEXT[reason] ?? reason}`).join('; ')} (of ${total} planned)`,
          data: Object.fromEntries(incomplete),
        };
      yield {
        type: 'log',
        level: 'info',
        stage: 'templates',
        code: 'templates_summary',
        message: `templates: ${summary.templates} run, ${loaded.skipped.length + oobSkipped.length} skipped, ${loaded.invalid.length} invalid; ${summary.tasks} of ${total} tasks, ${summary.requests} requests, ${summary.findings} findings${summary.oobLate > 0 ? ` (${summary.oobLate} from late out-of-band call-backs)` : ''}`,
        data: {
          templates: summary.templates,
          skipped: loaded.skipped.length + oobSkipped.length,
          skippedReasons: [
            ...skippedByReason.map((r) => `${r.reason}: ${r.count}`),
            ...(oobSkipped.length > 0 ? [`${OOB_NOT_CONFIGURED}: ${oobSkipped.length}`] : []),
          ].join('; '),
          oobSkipped: oobSkipped.length,
          oobLate: summary.oobLate,
          invalid: loaded.invalid.length,
          planned: total,
          completed: summary.tasks,
          requests: summary.requests,
          findings: summary.findings,
          unresponsiveHosts: summary.unresponsiveHosts.length,
          ...Object.fromEntries(incomplete.map(([reason, n]) => [`incomplete_${reason}`, n])),
        },
      };
    },
  };
}
