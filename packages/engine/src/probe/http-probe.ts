import { createHash } from 'node:crypto';
import net from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';
import { createGuardedConnector, type HostResolver } from '../scope/guarded-net.ts';
import { ScopeError, type ScopePolicy } from '../scope/scope-policy.ts';
import { extractFaviconHref, extractTitle } from './html.ts';
import { faviconHash } from './mmh3.ts';

export interface HttpProbeOptions {
  timeoutMs?: number;
  maxRedirects?: number;
  maxBodyBytes?: number;
  userAgent?: string;
  /** Connections kept per origin. */
  connections?: number;
}

export interface RedirectHop {
  url: string;
  status: number;
  location: string;
}

export interface HttpResponseInfo {
  url: string;
  status: number;
  headers: Record<string, string[]>;
  body: string;
  bodySize: number;
  bodySha256: string;
  title: string;
  contentType: string;
}

export interface ProbeRefusal {
  url: string;
  address: string;
  reason: string;
  kind: 'scope_refused' | 'out_of_target';
}

export interface HttpProbeResult {
  /** The URL probed first. */
  url: string;
  /** The last response after redirects. */
  final: HttpResponseInfo;
  redirects: RedirectHop[];
  faviconHash?: number;
  faviconUrl?: string;
  /** Set when a redirect was not followed because of the scope. */
  refused?: ProbeRefusal;
}

export type InTargetCheck = (hostname: string) => boolean;

function headerMap(raw: Record<string, string | string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v : [v];
  }
  return out;
}

/**
 * The HTTP prober: one undici Agent (keep-alive pools per origin) whose connector resolves
 * names through the scan's resolver and checks the scope policy before each connect.
 * Redirects are followed here (bounded), each hop checked against the policy and the target.
 */
export class HttpProber {
  readonly dispatcher: Dispatcher;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly maxBodyBytes: number;
  private readonly userAgent: string;

  constructor(
    private readonly policy: ScopePolicy,
    private readonly resolveHost: HostResolver,
    options: HttpProbeOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
    this.userAgent = options.userAgent ?? 'Mozilla/5.0 (compatible; Perimeter/0.1)';
    this.dispatcher = new Agent({
      connect: createGuardedConnector(policy, resolveHost, this.timeoutMs),
      connections: options.connections ?? 8,
      keepAliveTimeout: 4000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  /** One request, body read up to the limit. */
  async fetch(
    url: string,
    signal?: AbortSignal,
    headers: Record<string, string> = {},
    method: 'GET' | 'HEAD' = 'GET',
  ): Promise<HttpResponseInfo & { raw: Buffer }> {
    const res = await request(url, {
      dispatcher: this.dispatcher,
      method,
      headers: { 'user-agent': this.userAgent, accept: '*/*', ...headers },
      signal,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.maxBodyBytes) {
        truncated = true;
        chunks.push(chunk.subarray(0, chunk.length - (size - this.maxBodyBytes)));
        break;
      }
      chunks.push(chunk);
    }
    if (truncated) res.body.destroy();
    const raw = Buffer.concat(chunks);
    const hdrs = headerMap(res.headers);
    const contentType = hdrs['content-type']?.[0] ?? '';
    const body = raw.toString('utf8');
    return {
      url,
      status: res.statusCode,
      headers: hdrs,
      body,
      raw,
      bodySize: truncated ? size : raw.length,
      bodySha256: createHash('sha256').update(raw).digest('hex'),
      title: /html/i.test(contentType) || /<title/i.test(body.slice(0, 4096)) ? extractTitle(body) : '',
      contentType,
    };
  }

  /** Checks a redirect target: policy on its addresses, then membership of the target. */
  private async checkHop(url: URL, inTarget: InTargetCheck): Promise<ProbeRefusal | null> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = net.isIP(host) ? [host] : await this.resolveHost(host).catch(() => []);
    const allowed = addresses.filter((a) => this.policy.isAllowed(a));
    if (addresses.length && !allowed.length) {
      const first = addresses[0] as string;
      const d = this.policy.check(first);
      return { url: url.href, address: first, reason: d.allowed ? '' : d.reason, kind: 'scope_refused' };
    }
    if (!inTarget(host)) {
      return {
        url: url.href,
        address: addresses[0] ?? host,
        reason: 'redirect leaves the scan target',
        kind: 'out_of_target',
      };
    }
    return null;
  }

  async probe(url: string, inTarget: InTargetCheck, signal?: AbortSignal): Promise<HttpProbeResult> {
    const redirects: RedirectHop[] = [];
    let current = url;
    let refused: ProbeRefusal | undefined;
    let response = await this.fetch(current, signal);
    for (let hop = 0; hop < this.maxRedirects; hop++) {
      const location = response.headers.location?.[0];
      if (response.status < 300 || response.status >= 400 || !location) break;
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        break;
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') break;
      redirects.push({ url: current, status: response.status, location: next.href });
      const refusal = await this.checkHop(next, inTarget);
      if (refusal) {
        refused = refusal;
        break;
      }
      current = next.href;
      try {
        response = await this.fetch(current, signal);
      } catch (e) {
        if (e instanceof ScopeError) {
          refused = { url: current, address: e.address, reason: e.reason, kind: 'scope_refused' };
          break;
        }
        throw e;
      }
    }
    const { raw: _raw, ...final } = response;
    const result: HttpProbeResult = { url, final, redirects };
    if (refused) result.refused = refused;
    if (response.status < 400 && response.status >= 200) {
      const href = extractFaviconHref(response.body) ?? '/favicon.ico';
      try {
        const favUrl = new URL(href, current);
        if (favUrl.origin === new URL(current).origin) {
          const fav = await this.fetch(favUrl.href, signal);
          if (fav.status === 200 && fav.raw.length > 0 && !/html/i.test(fav.contentType)) {
            result.faviconHash = faviconHash(fav.raw);
            result.faviconUrl = favUrl.href;
          }
        }
      } catch {
        // no favicon
      }
    }
    return result;
  }

  async close(): Promise<void> {
    await this.dispatcher.destroy();
  }
}
