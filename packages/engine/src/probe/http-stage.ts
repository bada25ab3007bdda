import net from 'node:net';
import { refuse, resolvePendingNames } from '../dns/resolve-stage.ts';
import { Channel, mapConcurrent } from '../lib/async.ts';
import { noAnswerCode } from '../lib/net-errors.ts';
import type { ScanEvent, UrlAsset } from '../pipeline/events.ts';
import type { HttpEndpoint } from '../pipeline/inventory.ts';
import { log, ProgressTracker } from '../pipeline/progress.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { scanPendingHosts } from '../ports/ports-stage.ts';
import { fetchTlsInfo, type TlsCertificateInfo } from './tls-info.ts';

const STAGE = 'http';

interface EndpointPlan {
  url: string;
  host: string;
  ip: string;
  port: number;
  scheme: 'http' | 'https';
}

function urlFor(scheme: 'http' | 'https', host: string, port: number): string {
  const h = net.isIPv6(host) ? `[${host}]` : host;
  const defaultPort = scheme === 'https' ? 443 : 80;
  return `${scheme}://${h}${port === defaultPort ? '' : `:${port}`}/`;
}

/**
 * The scheme of a service that speaks HTTP, whatever it is called: nmap calls a proxy's port
 * `http-proxy` (and `ssl/http` a TLS one), which is still HTTP to probe and fingerprint.
 */
export function httpScheme(service: string, tls: boolean): 'http' | 'https' | null {
  const m = /^(ssl\/)?(https?|http-proxy|http-alt|https-alt)$/.exec(service);
  if (!m) return null;
  return m[1] || tls || m[2]?.startsWith('https') ? 'https' : 'http';
}

/** HTTP services × the names that resolve to them (or the bare address when it has none). */
function planEndpoints(ctx: StageContext): EndpointPlan[] {
  const plans: EndpointPlan[] = [];
  for (const s of ctx.inventory.services.values()) {
    const scheme = httpScheme(s.service, s.tls);
    if (!scheme) continue;
    const names = ctx.inventory.namesOf(s.ip).filter((n) => ctx.isInTarget(n));
    const hosts = names.length ? names : [s.ip];
    for (const host of hosts) {
      const url = urlFor(scheme, host, s.port);
      if (!ctx.inventory.endpoints.has(url)) plans.push({ url, host, ip: s.ip, port: s.port, scheme });
    }
  }
  return plans.sort((a, b) => a.url.localeCompare(b.url));
}

async function probeOne(
  ctx: StageContext,
  plan: EndpointPlan,
): Promise<HttpEndpoint | (Error & { url: string })> {
  try {
    const result = await ctx.http.probe(plan.url, (h) => ctx.isInTarget(h), ctx.signal);
    const endpoint: HttpEndpoint = { ...plan, result };
    if (plan.scheme === 'https') {
      try {
        const timeout = ctx.config.http?.timeoutMs ?? 5000;
        const sni = net.isIP(plan.host) ? undefined : plan.host;
        endpoint.tls = await fetchTlsInfo(ctx.policy, plan.ip, plan.port, sni, timeout, ctx.signal);
      } catch {
        // certificate details unavailable; the response still counts
      }
    }
    return endpoint;
  } catch (e) {
    return Object.assign(new Error(`${plan.url}: ${(e as Error).message}`), { cause: e, url: plan.url });
  }
}

function toUrlAsset(e: HttpEndpoint): UrlAsset {
  const f = e.result.final;
  const a: UrlAsset = {
    kind: 'url',
    url: e.url,
    finalUrl: f.url,
    host: e.host,
    ip: e.ip,
    port: e.port,
    status: f.status,
    title: f.title,
    contentType: f.contentType,
    bodySize: f.bodySize,
    bodySha256: f.bodySha256,
    headers: f.headers,
    redirects: e.result.redirects,
  };
  if (e.result.faviconHash !== undefined) a.faviconHash = e.result.faviconHash;
  if (e.tls) a.tls = e.tls;
  return a;
}

async function* probePlans(ctx: StageContext, plans: EndpointPlan[]): AsyncGenerator<ScanEvent> {
  const progress = new ProgressTracker(STAGE, plans.length);
  let done = 0;
  // An endpoint that gave no answer was not checked (skipped: the scan is partial); one that
  // answered other than HTTP was.
  ctx.report.plan(plans.length);
  const events = new Channel<ScanEvent>();
  const work = (async () => {
    for await (const r of mapConcurrent(
      plans,
      ctx.config.http?.concurrency ?? 20,
      (p) => probeOne(ctx, p),
      ctx.signal,
    )) {
      done++;
      if (r instanceof Error) {
        events.push(log('info', STAGE, `HTTP probe failed: ${r.message}`, 'http_failed'));
        const code = noAnswerCode(r.cause);
        if (code) ctx.report.skip(`no answer: ${code}`, 1, r.url);
        else ctx.report.done();
      } else {
        ctx.report.done();
        ctx.inventory.endpoints.set(r.url, r);
        const asset = toUrlAsset(r);
        ctx.inventory.urls.set(r.url, asset);
        events.push({ type: 'asset', asset });
        const refused = r.result.refused;
        if (refused?.kind === 'scope_refused') {
          events.push(refuse(ctx, STAGE, refused.address, `redirect:${refused.url}`, refused.reason, r.host));
        } else if (refused) {
          events.push(
            log(
              'info',
              STAGE,
              `redirect from ${r.url} to ${refused.url} not followed: ${refused.reason}`,
              'redirect_out_of_target',
              {
                url: r.url,
                location: refused.url,
              },
            ),
          );
        }
        // Certificate names inside the target feed discovery.
        for (const san of r.tls?.sans ?? []) {
          const name = san.replace(/^\*\./, '');
          if (ctx.isInTarget(name)) ctx.inventory.addCandidate(name, 'tls-san');
        }
      }
      const p = progress.tick(done);
      if (p) events.push(p);
    }
  })();
  work.then(
    () => events.close(),
    (e) => events.close(e),
  );
  yield* events;
}

/**
 * Probes every HTTP(S) endpoint, then follows what the certificates revealed: new names are
 * resolved, their new addresses port-scanned and probed in turn (a few rounds at most).
 */
export function httpStage(): Stage {
  return {
    name: STAGE,
    class: 'class_resources',
    async *run(ctx) {
      for (let round = 0; round < 3 && !ctx.signal.aborted; round++) {
        yield* probePlans(ctx, planEndpoints(ctx));
        if (!ctx.inventory.pendingNames.size) break;
        yield log(
          'info',
          STAGE,
          `${ctx.inventory.pendingNames.size} new names from certificates`,
          'tls_san_names',
        );
        yield* resolvePendingNames(ctx, STAGE);
        yield* scanPendingHosts(ctx, STAGE);
      }
    },
  };
}

export type { TlsCertificateInfo };
