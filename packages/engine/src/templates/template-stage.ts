import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TemplateFinding } from '../findings/types.js';
import type { ScanEvent } from '../pipeline/events.js';
import type { Stage, StageContext } from '../pipeline/stage.js';
import { defaultExecutors } from '../protocols/index.js';
import type { DnsServer } from './run-types.js';
import { type LoadedTemplates, loadTemplates } from './template-loader.js';
import {
  type TemplateJob,
  TemplateScanner,
  type TemplateScanOptions,
  type TemplateScanSummary,
} from './template-scanner.js';
import { DEFAULT_EXCLUDED_TAGS, selectTemplates, type TemplateSelection } from './template-selection.js';
import type { CompiledTemplate } from './template-types.js';

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

/**
 * The exploit_scanner stage as a plain async generator: runs the templates against what
 * discovery found and yields findings. `result.summary` is filled when it finishes.
 */
export async function* runTemplateStage(
  input: TemplateStageInput,
  options: TemplateStageOptions,
  result: TemplateStageResult = {
    summary: {
      templates: 0,
      targets: 0,
      tasks: 0,
      requests: 0,
      findings: 0,
      errors: 0,
      unresponsiveHosts: [],
    },
  },
): AsyncGenerator<TemplateFinding> {
  const { templates, tags, severities, excludeTags, excludeFiles, ...scanOptions } = options;
  const selected = selectTemplates(templates, {
    ...(tags ? { tags } : {}),
    ...(severities ? { severities } : {}),
    ...(excludeTags ? { excludeTags } : {}),
    ...(excludeFiles ? { excludeFiles } : {}),
  });
  const scanner = new TemplateScanner(defaultExecutors, scanOptions);
  try {
    yield* scanner.run(templateJobs(selected, input));
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
   * When set, the loaded templates are kept in this process and reused by the next stage with
   * the same key: the caller promises the folders' content is what the key names (the server
   * passes the template sets' content hashes), so a corpus is compiled once per worker.
   */
  cacheKey?: string;
}

let loadCache: { key: string; loaded: Promise<LoadedTemplates> } | null = null;

function loadStageTemplates(dirs: string[], cacheKey: string | undefined): Promise<LoadedTemplates> {
  if (cacheKey === undefined) return loadTemplateSets(dirs);
  const key = `${cacheKey}\u0000${dirs.join('\u0000')}`;
  if (loadCache?.key !== key) {
    const loaded = loadTemplateSets(dirs);
    loadCache = { key, loaded };
    // A failed load is not kept.
    loaded.catch(() => {
      if (loadCache?.loaded === loaded) loadCache = null;
    });
  }
  return loadCache.loaded;
}

/** Loads the built-in pack and extra directories, keeping the first template of each id. */
export async function loadTemplateSets(dirs: string[]): Promise<LoadedTemplates> {
  const all: LoadedTemplates = { templates: [], invalid: [], skipped: [], total: 0 };
  const ids = new Set<string>();
  for (const dir of dirs) {
    const l = await loadTemplates(dir);
    all.total += l.total;
    all.invalid.push(...l.invalid);
    all.skipped.push(...l.skipped);
    for (const t of l.templates) {
      if (ids.has(t.id)) continue;
      ids.add(t.id);
      all.templates.push(t);
    }
  }
  return all;
}

/** The exploit_scanner stage in the pipeline's Stage shape (`config.extraStages`). */
export function createTemplateStage(config: TemplateStageConfig = {}): Stage {
  return {
    name: 'templates',
    class: 'class_exploitation',
    subclass: 'exploit_scanner',
    async *run(ctx: StageContext): AsyncIterable<ScanEvent> {
      const { dirs = [], noBuiltin, cacheKey, ...options } = config;
      const loaded = await loadStageTemplates(
        [...(noBuiltin ? [] : [BUILTIN_TEMPLATES_DIR]), ...dirs],
        cacheKey,
      );
      for (const i of loaded.invalid)
        yield {
          type: 'log',
          level: 'warn',
          stage: 'templates',
          code: 'template_invalid',
          message: `${i.file}: ${i.field}: ${i.reason}`,
        };
      const skippedByReason = new Map<string, number>();
      for (const s of loaded.skipped) skippedByReason.set(s.reason, (skippedByReason.get(s.reason) ?? 0) + 1);
      for (const [reason, count] of skippedByReason)
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
      const selected = selectTemplates(loaded.templates, {
        ...options,
        excludeTags: options.excludeTags ?? [...DEFAULT_EXCLUDED_TAGS],
      });
      const total = countJobs(selected, input);
      const {
        tags: _tags,
        severities: _severities,
        excludeTags: _excludeTags,
        excludeFiles: _excludeFiles,
        ...scanOptions
      } = options;
      const scanner = new TemplateScanner(defaultExecutors, {
        ...scanOptions,
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
      let lastProgress = 0;
      try {
        for await (const item of scanner.runWithProgress(templateJobs(selected, input))) {
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
      for (const h of result.summary.unresponsiveHosts)
        yield {
          type: 'log',
          level: 'warn',
          stage: 'templates',
          code: 'host_unresponsive',
          message: `${h.host} skipped after ${h.errors} errors: ${h.lastError}`,
        };
      yield {
        type: 'log',
        level: 'info',
        stage: 'templates',
        code: 'templates_summary',
        message: `templates: ${result.summary.templates} run, ${loaded.skipped.length} skipped, ${loaded.invalid.length} invalid; ${result.summary.requests} requests, ${result.summary.findings} findings`,
        data: {
          templates: result.summary.templates,
          skipped: loaded.skipped.length,
          invalid: loaded.invalid.length,
          requests: result.summary.requests,
          findings: result.summary.findings,
          unresponsiveHosts: result.summary.unresponsiveHosts.length,
        },
      };
    },
  };
}
