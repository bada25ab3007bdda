import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';

export interface RawUrl {
  scheme: 'http' | 'https';
  origin: string;
  /** Path and query exactly as written (never normalised). */
  path: string;
  /** host[:port] as written. */
  host: string;
  hostname: string;
  port: number;
  /** `hostname:port` (the error budget's and fingerprint's key). */
  endpoint: string;
}

const AUTHORITY_CACHE_SIZE = 1024;
const authorities = new Map<string, Omit<RawUrl, 'path'>>();

/** Scheme and authority parsed once (WHATWG rules for the host), then served from a small cache. */
function parseAuthority(scheme: 'http' | 'https', written: string): Omit<RawUrl, 'path'> {
  const key = `${scheme}://${written}`;
  const hit = authorities.get(key);
  if (hit) return hit;
  const authority = written.replace(/^[^@]*@/, '');
  const parsed = new URL(`${scheme}://${authority}/`);
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = parsed.port ? Number(parsed.port) : scheme === 'https' ? 443 : 80;
  const value = {
    scheme,
    origin: `${scheme}://${parsed.host}`,
    host: parsed.host,
    hostname,
    port,
    endpoint: `${hostname}:${port}`,
  };
  // Bounded: a scan of many hosts starts over rather than growing.
  if (authorities.size >= AUTHORITY_CACHE_SIZE) authorities.clear();
  authorities.set(key, value);
  return value;
}

const RAW_URL = /^(https?):\/\/([^/?#\s]+)([^#\s]*)/i;
const SPLIT_CACHE_SIZE = 512;
const splits = new Map<string, RawUrl>();

/**
 * Splits a URL without the WHATWG normalisation that would resolve `..` and `%2e` segments.
 * A request's URL is split several times on its way (build, send, parts, evidence): the
 * answers of the last few hundred URLs are kept (frozen, shared).
 */
export function splitRawUrl(url: string): RawUrl {
  const hit = splits.get(url);
  if (hit) return hit;
  const m = RAW_URL.exec(url.trim());
  if (!m) throw new Error(`invalid URL '${url}'`);
  const scheme = (m[1] as string).toLowerCase() as 'http' | 'https';
  let path = m[3] ?? '';
  if (path === '' || path.startsWith('?')) path = `/${path}`;
  const a = parseAuthority(scheme, m[2] as string);
  const value: RawUrl = Object.freeze({
    scheme,
    origin: a.origin,
    path,
    host: a.host,
    hostname: a.hostname,
    port: a.port,
    endpoint: a.endpoint,
  });
  if (splits.size >= SPLIT_CACHE_SIZE) splits.clear();
  splits.set(url, value);
  return value;
}

export interface HttpRequestInit {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** TLS server name when it must differ from the Host header's (`@tls-sni`). */
  servername?: string;
  /** This request's time limit instead of the client's (`@timeout`). */
  timeoutMs?: number;
}

export interface HttpResponseData {
  url: string;
  status: number;
  statusText: string;
  /** Header pairs in arrival order, names lowercased. */
  headers: [string, string][];
  body: Buffer;
  /** True when the body was cut at the size cap. */
  truncated: boolean;
  durationMs: number;
}

export interface HttpClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Connections per origin. */
  connectionsPerOrigin?: number;
  /**
   * Address for a host name, e.g. from the scan's own DNS answers (lab names resolve only
   * through the lab's DNS server). Unknown names fall back to the system resolver.
   */
  resolve?: (hostname: string) => string | undefined;
  dispatcher?: Dispatcher;
}

/**
 * One listener on the scan's signal that fans out to the requests in flight. undici adds and
 * removes an 'abort' listener per request; on an AbortSignal (an EventTarget) with dozens of
 * requests in flight that cost about as much as the rest of the request's client work. A Set
 * does it in O(1). undici accepts any object with addEventListener, `aborted` and `reason`.
 */
class AbortFanout {
  aborted = false;
  reason: unknown;
  private readonly listeners = new Set<() => void>();

  constructor(signal: AbortSignal) {
    if (signal.aborted) {
      this.aborted = true;
      this.reason = signal.reason;
      return;
    }
    signal.addEventListener(
      'abort',
      () => {
        this.aborted = true;
        this.reason = signal.reason;
        for (const listener of [...this.listeners]) listener();
        this.listeners.clear();
      },
      { once: true },
    );
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) queueMicrotask(listener);
    else this.listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.delete(listener);
  }
}

const fanouts = new WeakMap<AbortSignal, AbortFanout>();

function fanoutOf(signal: AbortSignal): AbortFanout {
  let f = fanouts.get(signal);
  if (!f) {
    f = new AbortFanout(signal);
    fanouts.set(signal, f);
  }
  return f;
}

// Headers undici manages itself or refuses.
const FORBIDDEN = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);

const allowedNames = new Map<string, boolean>();

/** Whether a request header may be passed to undici (answer remembered per spelling). */
function allowedHeader(name: string): boolean {
  let ok = allowedNames.get(name);
  if (ok === undefined) {
    ok = !FORBIDDEN.has(name.toLowerCase());
    if (allowedNames.size < 4096) allowedNames.set(name, ok);
  }
  return ok;
}

export class HttpClient {
  readonly dispatcher: Dispatcher;
  private readonly owned: boolean;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;

  constructor(options: HttpClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10000;
    this.maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.owned = false;
    } else {
      const resolve = options.resolve;
      const lookup: LookupFunction | undefined = resolve
        ? (hostname, opts, cb) => {
            const ip = resolve(hostname);
            if (ip) {
              const family = ip.includes(':') ? 6 : 4;
              if ((opts as { all?: boolean }).all)
                (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
                  { address: ip, family },
                ]);
              else cb(null, ip, family);
              return;
            }
            dnsLookup(hostname, opts, cb);
          }
        : undefined;
      this.dispatcher = new Agent({
        connections: options.connectionsPerOrigin ?? 8,
        keepAliveTimeout: 4000,
        connect: { rejectUnauthorized: false, timeout: this.timeoutMs, ...(lookup ? { lookup } : {}) },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.owned = true;
    }
  }

  async send(
    init: HttpRequestInit,
    signal?: AbortSignal,
    maxBytes = this.maxResponseBytes,
  ): Promise<HttpResponseData> {
    // The caller's headers as they are unless one must be left out (undici does not change them).
    let headers = init.headers;
    for (const k in init.headers) {
      if (allowedHeader(k)) continue;
      headers = {};
      for (const n in init.headers) if (allowedHeader(n)) headers[n] = init.headers[n] as string;
      break;
    }
    // Time limits are the dispatcher's headersTimeout/bodyTimeout (no timer per request).
    const started = performance.now();
    // dispatcher.request sends the path exactly as given: path-traversal checks need
    // `/.%2e/` and `/../` to reach the server unnormalised.
    const { origin, path } = splitRawUrl(init.url);
    const options: Dispatcher.RequestOptions = {
      origin,
      path,
      method: init.method as Dispatcher.HttpMethod,
      headers,
    };
    if (init.body !== undefined && init.body !== '') options.body = init.body;
    if (signal) options.signal = fanoutOf(signal) as unknown as AbortSignal;
    if (init.timeoutMs !== undefined) {
      options.headersTimeout = init.timeoutMs;
      options.bodyTimeout = init.timeoutMs;
    }
    // undici takes a per-request server name (it reconnects when it changes); not in its types.
    if (init.servername) (options as { servername?: string }).servername = init.servername;
    const res = await this.dispatcher.request(options);
    let body: Buffer;
    let truncated = false;
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared <= maxBytes) {
      // The length is known and under the cap: one read, no stream iteration.
      body = Buffer.from(await res.body.arrayBuffer());
    } else {
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          if (size + buf.length > maxBytes) {
            chunks.push(buf.subarray(0, maxBytes - size));
            size = maxBytes;
            truncated = true;
            break;
          }
          chunks.push(buf);
          size += buf.length;
        }
      } finally {
        if (truncated) res.body.destroy();
      }
      body = Buffer.concat(chunks);
    }
    const pairs: [string, string][] = [];
    const h = res.headers;
    for (const k in h) {
      const v = h[k];
      if (v === undefined) continue;
      const name = k.toLowerCase();
      if (typeof v === 'string') pairs.push([name, v]);
      else for (const one of v) pairs.push([name, one]);
    }
    return {
      url: init.url,
      status: res.statusCode,
      statusText: STATUS_TEXT[res.statusCode] ?? '',
      headers: pairs,
      body,
      truncated,
      durationMs: performance.now() - started,
    };
  }

  async close(): Promise<void> {
    if (this.owned) await this.dispatcher.close();
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};
