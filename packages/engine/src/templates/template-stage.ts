import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TemplateFinding } from '../findings/types.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { defaultExecutors } from '../protocols/index.ts';
import { inputHost, intrusiveGate, isIntrusiveTemplate } from './intrusive.ts';
import type { DnsServer } from './run-types.ts';
import { clusterTemplates } from './template-cluster.ts';
import { countSkipReasons, type LoadedTemplates, loadTemplates } from './template-loader.ts';
import {
  emptyScanSummary,
  type TemplateJob,
  TemplateScanner,
  type TemplateScanOptions,
  type TemplateScanSummary,
} from './template-scanner.ts';
import { DEFAULT_EXCLUDED_TAGS, selectTemplates, type TemplateSelection } from './template-selection.ts';
import type { CompiledTemplate } from './template-types.ts';

/** The built-in pack shipped with the engine (packages/engine/templates). */
export const BUILTIN_TEMPLATES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../templates',
);

/** What discovery found, in the shape the template stage needs. */
export interface TemplateStageInput {
  /** Base URLs of web endpoints (`http://www.acme.test/`). */
  urls: string[];
  /** TLS endpoints `host:port`. */
  tlsEndpoints: string[];
  /** Names for DNS templates (target domains and subdomains). */
  dnsNames: string[];
  /** Open TCP services `host:port` (host name when known, else the address). */
  services: string[];
}

export interface TemplateStageOptions extends Omit<TemplateScanOptions, 'executors'>, TemplateSelection {
  templates: CompiledTemplate[];
}

export interface TemplateStageResult {
  summary: TemplateScanSummary;
}

/** How many template × input tasks `templateJobs` yields, without building them. */
export function countJobs(templates: CompiledTemplate[], input: TemplateStageInput): number {
  const n = (xs: string[]) => new Set(xs).size;
  const urls = n(input.urls);
  const tls = n(input.tlsEndpoints);
  const names = n(input.dnsNames);
  const services = n(input.services);
  let total = 0;
  for (const t of templates) {
    const all = new Set<string>();
    if (t.protocols.has('http')) for (const u of input.urls) all.add(u);
    if (t.protocols.has('ssl')) for (const x of input.tlsEndpoints) all.add(x);
    if (t.protocols.has('dns')) for (const x of input.dnsNames) all.add(x);
    if (t.protocols.has('network')) for (const x of input.services) all.add(x);
    total +=
      t.protocols.size === 1
        ? t.protocols.has('http')
          ? urls
          : t.protocols.has('ssl')
            ? tls
            : t.protocols.has('dns')
              ? names
              : services
        : all.size;
  }
  return total;
}

/** Pairs every template with the inputs its protocols apply to; lazy, in batches of inputs. */
export function* templateJobs(
  templates: CompiledTemplate[],
  input: TemplateStageInput,
  batchSize = 128,
): Generator<TemplateJob> {
  const byProtocol: Record<string, Set<string>> = {
    http: new Set(input.urls),
    ssl: new Set(input.tlsEndpoints),
    dns: new Set(input.dnsNames),
    network: new Set(input.services),
  };
  const all = [...new Set([...input.urls, ...input.tlsEndpoints, ...input.dnsNames, ...input.services])];
  for (let i = 0; i < all.length; i += batchSize) {
    const batch = all.slice(i, i + batchSize);
    for (const template of templates) {
      for (const x of batch) {
        for (const p of template.protocols) {
          if (byProtocol[p]?.has(x)) {
            yield { template, input: x };
            break;
          }
        }
      }
    }
  }
}

export { selectTemplates };

/** Why out-of-band templates did not run: the scan has no interaction server. */
export const OOB_NOT_CONFIGURED = 'out-of-band checks not configured';

/** The templates that can run: out-of-band ones only when there is a server for them. */
function runnable(
  templates: CompiledTemplate[],
  hasOob: boolean,
): { run: CompiledTemplate[]; oobSkipped: CompiledTemplate[] } {
  if (hasOob) return { run: templates, oobSkipped: [] };
  const run: CompiledTemplate[] = [];
  const oobSkipped: CompiledTemplate[] = [];
  for (const t of templates) (t.oob ? oobSkipped : run).push(t);
  return { run, oobSkipped };
}

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

/** The host a template input names: `http://h:8080/` → `h`, `h:443` → `h`, `[::1]:80` → `::1`. */
export function scopeOfInput(input: string): string {
  const rest = input.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const authority = rest.split(/[/?#]/, 1)[0] ?? rest;
  const host = authority.startsWith('[')
    ? authority.slice(1, authority.indexOf(']'))
    : authority.replace(/:\d+$/, '');
  return host.toLowerCase();
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

/** Builds the stage input from the pipeline's inventory. */
export function templateInputFromContext(ctx: StageContext): TemplateStageInput {
  const inv = ctx.inventory;
  const urls: string[] = [];
  const tlsEndpoints: string[] = [];
  for (const u of inv.urls.values()) {
    urls.push(u.url);
    if (u.url.startsWith('https://')) tlsEndpoints.push(`${u.host}:${u.port}`);
  }
  const dnsNames = [
    ...ctx.targets.flatMap((t) => (t.type === 'domain' ? [t.domain] : [])),
    ...inv.subdomains.keys(),
  ];
  const services: string[] = [];
  for (const s of inv.services.values()) {
    // Network templates filter by their own port lists, so every open port is an input.
    const name = inv.namesOf(s.ip)[0];
    services.push(`${name ?? (net.isIPv6(s.ip) ? `[${s.ip}]` : s.ip)}:${s.port}`);
  }
  return { urls, tlsEndpoints, dnsNames, services };
}

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

let loadCache: { key: string; loaded: Promise<LoadedTemplateSets> } | null = null;

function loadStageTemplates(dirs: string[], cacheKey: string | undefined): Promise<LoadedTemplateSets> {
  if (cacheKey === undefined) return loadTemplateSets(dirs, { builtinDirs: [BUILTIN_TEMPLATES_DIR] });
  const key = `${cacheKey}\u0000${dirs.join('\u0000')}`;
  if (loadCache?.key !== key) {
    const loaded = loadTemplateSets(dirs, { builtinDirs: [BUILTIN_TEMPLATES_DIR] });
    loadCache = { key, loaded };
    // A failed load is not kept.
    loaded.catch(() => {
      if (loadCache?.loaded === loaded) loadCache = null;
    });
  }
  return loadCache.loaded;
}

/** A template that replaced another of the same id (the operator's copy wins). */
export interface TemplateOverride {
  id: string;
  /** The file that runs. */
  kept: string;
  /** The file left out. */
  replaced: string;
}

export interface LoadedTemplateSets extends LoadedTemplates {
  overrides: TemplateOverride[];
}

/**
 * Loads template directories. When two templates share an id, the operator's copy (from a
 * directory not in `builtinDirs`, such as `--templates`) wins over the built-in pack; between
 * two of the same kind the first directory wins. Each such choice is listed in `overrides`.
 */
export async function loadTemplateSets(
  dirs: string[],
  options: { builtinDirs?: string[] } = {},
): Promise<LoadedTemplateSets> {
  const all: LoadedTemplateSets = { templates: [], invalid: [], skipped: [], total: 0, overrides: [] };
  const builtin = new Set((options.builtinDirs ?? []).map((d) => path.resolve(d)));
  const byId = new Map<string, { template: CompiledTemplate; isBuiltin: boolean }>();
  for (const dir of dirs) {
    const isBuiltin = builtin.has(path.resolve(dir));
    const l = await loadTemplates(dir);
    all.total += l.total;
    all.invalid.push(...l.invalid);
    all.skipped.push(...l.skipped);
    for (const t of l.templates) {
      const seen = byId.get(t.id);
      if (!seen) {
        byId.set(t.id, { template: t, isBuiltin });
        continue;
      }
      const replace = seen.isBuiltin && !isBuiltin;
      const kept = replace ? t : seen.template;
      const dropped = replace ? seen.template : t;
      if (replace) byId.set(t.id, { template: t, isBuiltin });
      all.overrides.push({ id: t.id, kept: kept.file, replaced: dropped.file });
    }
  }
  all.templates = [...byId.values()].map((x) => x.template);
  return all;
}

/** The exploit_scanner stage in the pipeline's Stage shape (`config.extraStages`). */
export function createTemplateStage(config: TemplateStageConfig = {}): Stage {
  return {
    name: 'templates',
    class: 'class_exploitation',
    subclass: 'exploit_scanner',
    async *run(ctx: StageContext): AsyncIterable<ScanEvent> {
      const { dirs = [], noBuiltin, intrusiveAllow, cacheKey, ...options } = config;
      const loaded = await loadStageTemplates(
        [...(noBuiltin ? [] : [BUILTIN_TEMPLATES_DIR]), ...dirs],
        cacheKey,
      );
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
