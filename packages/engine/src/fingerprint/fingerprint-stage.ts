import type { ScanEvent, TechnologyAsset } from '../pipeline/events.ts';
import type { HttpEndpoint } from '../pipeline/inventory.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { extractEmails, extractInlineScripts, extractMeta, extractScriptSrc } from '../probe/html.ts';
import { type DetectedTechnology, type FingerprintInput, parseSetCookies } from './fingerprint-engine.ts';

const STAGE = 'fingerprint';

export function endpointInput(e: HttpEndpoint, known?: { name: string; version?: string }): FingerprintInput {
  const f = e.result.final;
  const html = /html|xml|text/i.test(f.contentType) || /<html/i.test(f.body.slice(0, 2048)) ? f.body : '';
  const input: FingerprintInput = {
    url: f.url,
    headers: f.headers,
    cookies: parseSetCookies(f.headers['set-cookie']),
    html,
    scriptSrc: html ? extractScriptSrc(html) : [],
    scripts: html ? extractInlineScripts(html) : [],
    meta: html ? extractMeta(html) : {},
  };
  if (e.tls?.issuer) input.certIssuer = e.tls.issuer;
  if (known) input.known = [known];
  return input;
}

/** The Server or X-Powered-By header the version was read from: the match rests on that banner. */
function versionHeader(e: HttpEndpoint, version: string): string | undefined {
  const h = e.result.final.headers;
  for (const name of ['server', 'x-powered-by']) {
    const v = h[name];
    const text = Array.isArray(v) ? v.join(', ') : v;
    if (text?.includes(version)) return text.slice(0, 200);
  }
  return undefined;
}

function toAsset(
  d: DetectedTechnology,
  target: string,
  host: string,
  port: number | undefined,
  source: TechnologyAsset['source'],
): TechnologyAsset {
  const t: TechnologyAsset = {
    kind: 'technology',
    name: d.name,
    confidence: d.confidence,
    categories: d.categories,
    target,
    host,
    source,
  };
  if (port !== undefined) t.port = port;
  if (d.version) t.version = d.version;
  if (d.cpe) t.cpe = d.cpe;
  if (d.website) t.website = d.website;
  return t;
}

/** Technologies from every HTTP response and from each target domain's DNS records; e-mails seen in pages. */
export function fingerprintStage(): Stage {
  return {
    name: STAGE,
    class: 'class_resources',
    async *run(ctx: StageContext): AsyncGenerator<ScanEvent> {
      const endpoints = [...ctx.inventory.endpoints.values()].sort((a, b) => a.url.localeCompare(b.url));
      let done = 0;
      for (const e of endpoints) {
        if (ctx.signal.aborted) return;
        const target = `${e.host}:${e.port}`;
        const known = ctx.inventory.serviceTechnologies.get(`${e.ip}:${e.port}`);
        for (const d of ctx.fingerprints.analyze(endpointInput(e, known))) {
          const asset = toAsset(d, target, e.host, e.port, 'http');
          const banner = d.version ? versionHeader(e, d.version) : undefined;
          if (banner) asset.banner = banner;
          if (ctx.inventory.addTechnology(asset)) yield { type: 'asset', asset };
        }
        for (const email of extractEmails(e.result.final.body)) {
          if (!ctx.isInTarget(email.split('@')[1] ?? '')) continue;
          const asset = ctx.inventory.addEmail(email, `http:${e.url}`);
          if (asset) yield { type: 'asset', asset };
        }
        done++;
        yield { type: 'progress', stage: STAGE, done, total: endpoints.length };
        // Let other work (and cancellation) run between pages.
        await new Promise((r) => setImmediate(r));
      }
      for (const [domain, records] of ctx.inventory.dnsRecords) {
        for (const d of ctx.fingerprints.analyze({ dns: records })) {
          const asset = toAsset(d, domain, domain, undefined, 'dns');
          if (ctx.inventory.addTechnology(asset)) yield { type: 'asset', asset };
        }
      }
    },
  };
}
