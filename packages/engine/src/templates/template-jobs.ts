import net from 'node:net';
import type { StageContext } from '../pipeline/stage.ts';
import type { TemplateJob } from './template-scanner.ts';
import type { CompiledTemplate } from './template-types.ts';

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

/** Why out-of-band templates did not run: the scan has no interaction server. */
export const OOB_NOT_CONFIGURED = 'out-of-band checks not configured';

/** The templates that can run: out-of-band ones only when there is a server for them. */
export function runnable(
  templates: CompiledTemplate[],
  hasOob: boolean,
): { run: CompiledTemplate[]; oobSkipped: CompiledTemplate[] } {
  if (hasOob) return { run: templates, oobSkipped: [] };
  const run: CompiledTemplate[] = [];
  const oobSkipped: CompiledTemplate[] = [];
  for (const t of templates) (t.oob ? oobSkipped : run).push(t);
  return { run, oobSkipped };
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
