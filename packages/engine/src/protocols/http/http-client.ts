import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { GuardList, PromisedResponse, RequestGuard, type ResponseReceiver } from './http-request-guard.ts';
import { canonicalHeaderName, ResponseCollector, STATUS_TEXT, TOKEN } from './http-response-collector.ts';
import { encodeRequestTarget, type RawUrl, splitRawUrl } from './http-url.ts';
import { OriginPools } from './origin-pools.ts';
import { type RawHttpResponse, rawHttpExchange } from './raw-http-client.ts';

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
  /**
   * Headers in arrival order (a repeated header's values together, where it first came), flat:
   * each name followed by its value (`[name, value, name, value…]`: a pair per header costs a
   * list per header). Names as nuclei's Go client reads them: canonical MIME form
   * (`content-type` → `Content-Type`), the server's own spelling for the canonical names nearly
   * every server sends, so case-sensitive matchers on `header`/`raw` (`Server: EC2ws`) fire as
   * under nuclei.
   */
  headers: string[];
  body: Buffer;
  /** True when the body was cut at the size cap. */
  truncated: boolean;
  durationMs: number;
}

/** The first value of header `name` (as spelled in `headers`), or undefined. */
export function headerValue(headers: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < headers.length; i += 2) if (headers[i] === name) return headers[i + 1];
  return undefined;
}

/** The request target and headers as undici gets them. */
export interface PreparedRequest {
  path: string;
  headers: Record<string, string>;
}

export interface HttpClientOptions {
  /**
   * Time limit of one exchange (connect, headers and the whole body), like nuclei's
   * `-timeout`; connecting, waiting for headers and any pause in the body have it too.
   */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Connections per origin. */
  connectionsPerOrigin?: number;
  /**
   * Address for a host name, e.g. from the scan's own DNS answers (lab names resolve only
   * through the lab's DNS server). Unknown names fall back to the system resolver.
   */
  resolve?: (hostname: string) => string | undefined;
  /** Origins that keep their connections open at once (see OriginPools; default 256). */
  maxOrigins?: number;
  dispatcher?: Dispatcher;
}

/** A request that cannot be sent as written (refused before any traffic; not the host's fault). */
export class InvalidRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRequestError';
  }
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

type HeaderNameUse = 'send' | 'drop' | 'invalid';
const headerNames = new Map<string, HeaderNameUse>();

/** Whether a request header is sent, left to undici, or cannot be sent (remembered per spelling). */
function headerNameUse(name: string): HeaderNameUse {
  let use = headerNames.get(name);
  if (use === undefined) {
    use = !TOKEN.test(name) ? 'invalid' : FORBIDDEN.has(name.toLowerCase()) ? 'drop' : 'send';
    if (headerNames.size < 4096) headerNames.set(name, use);
  }
  return use;
}

/**
 * The header value as undici must get it, or undefined when it holds a control character
 * (CR, LF, NUL…) and cannot be sent. undici writes values as latin1: non-ASCII text goes as
 * its UTF-8 bytes, as Go sends it.
 */
function headerValueBytes(value: string): string | undefined {
  let ascii = true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return undefined;
    if (c > 0x7e) ascii = false;
  }
  return ascii ? value : Buffer.from(value, 'utf8').toString('latin1');
}

/** The path and headers undici will accept, or an InvalidRequestError before any traffic. */
function prepareRequest(init: HttpRequestInit, url: Readonly<RawUrl>): PreparedRequest {
  if (!TOKEN.test(init.method)) throw new InvalidRequestError(`invalid request method '${init.method}'`);
  const path = encodeRequestTarget(url.path);
  // The caller's headers as they are unless one must change (undici does not change them).
  let headers = init.headers;
  let copied = false;
  for (const name in init.headers) {
    const value = init.headers[name] as string;
    const use = headerNameUse(name);
    if (use === 'invalid') throw new InvalidRequestError(`invalid header name '${name}'`);
    const bytes = headerValueBytes(value);
    if (bytes === undefined)
      throw new InvalidRequestError(`header '${name}' holds a control character (CR, LF, NUL…)`);
    if (use === 'send' && bytes === value && !copied) continue;
    if (!copied) {
      headers = {};
      for (const n in init.headers) {
        if (n === name) break;
        headers[n] = init.headers[n] as string;
      }
      copied = true;
    }
    if (use === 'send') headers[name] = bytes;
  }
  return { path, headers };
}

export class HttpClient {
  readonly dispatcher: Pick<Dispatcher, 'dispatch'> & { close(): Promise<void> };
  private readonly owned: boolean;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Requests in flight, for the deadline and abort sweep (one timer per client). */
  private readonly inflight: GuardList;
  private readonly resolve: ((hostname: string) => string | undefined) | undefined;

  constructor(options: HttpClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10000;
    this.maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
    // A scan's abort is seen within a sweep (≤ 250 ms); deadlines within a quarter of the limit.
    this.inflight = new GuardList(Math.max(10, Math.min(250, Math.floor(this.timeoutMs / 4))));
    this.resolve = options.resolve;
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
      this.dispatcher = new OriginPools(
        {
          connections: options.connectionsPerOrigin ?? 8,
          keepAliveTimeout: 4000,
          connect: { rejectUnauthorized: false, timeout: this.timeoutMs, ...(lookup ? { lookup } : {}) },
          // The request's guard ends an exchange at its deadline (headers and body included):
          // undici's own header and body timers would only repeat it, at a timer and a WeakRef
          // made per request.
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        options.maxOrigins ?? 256,
      );
      this.owned = true;
    }
  }

  /**
   * Sends one request. It settles within its time limit whatever the server does (refuses,
   * accepts and never answers, sends a body that never ends), and every way out gives its
   * connection back; a request undici would refuse fails with InvalidRequestError untried.
   */
  send(
    init: HttpRequestInit,
    signal?: AbortSignal,
    maxBytes = this.maxResponseBytes,
  ): Promise<HttpResponseData> {
    const promised = new PromisedResponse();
    this.sendTo(promised, init, signal, maxBytes);
    return promised.promise;
  }

  /**
   * `send` with the outcome handed to `receiver` instead of a promise (the template engine's
   * exchange settles the one promise its runner awaits); a request that cannot be sent fails
   * before this returns.
   */
  sendTo(
    receiver: ResponseReceiver,
    init: HttpRequestInit,
    signal?: AbortSignal,
    maxBytes = this.maxResponseBytes,
  ): void {
    let prepared: PreparedRequest;
    let url: Readonly<RawUrl>;
    try {
      url = splitRawUrl(init.url);
      prepared = prepareRequest(init, url);
    } catch (err) {
      receiver.failed(err);
      return;
    }
    if (signal?.aborted) {
      receiver.failed(signal.reason);
      return;
    }
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const started = performance.now();
    const guard = new RequestGuard(this.inflight, started + timeoutMs, timeoutMs, signal, receiver);
    this.inflight.add(guard);
    this.exchange(init, url.origin, prepared, guard, maxBytes, started);
  }

  /**
   * The exchange itself, on undici's dispatch API: a handler collects the response and
   * settles the guard (no response stream, no promise per chunk). It never throws.
   */
  private exchange(
    init: HttpRequestInit,
    origin: string,
    prepared: PreparedRequest,
    guard: RequestGuard,
    maxBytes: number,
    started: number,
  ): void {
    // dispatch sends the path as given: path-traversal checks need `/.%2e/` and `/../` to
    // reach the server unnormalised.
    const options: Dispatcher.DispatchOptions = {
      origin,
      path: prepared.path,
      method: init.method as Dispatcher.HttpMethod,
      headers: prepared.headers,
    };
    if (init.body !== undefined && init.body !== '') options.body = init.body;
    // undici takes a per-request server name (it reconnects when it changes); not in its types.
    if (init.servername) (options as { servername?: string }).servername = init.servername;
    try {
      this.dispatcher.dispatch(
        options,
        new ResponseCollector(init, prepared, guard, maxBytes, started, this),
      );
    } catch (err) {
      guard.settle(undefined, err);
    }
  }

  /** A refused `101 Switching Protocols` answer asked for again over a socket (see ResponseCollector). */
  resendRaw(
    init: HttpRequestInit,
    prepared: PreparedRequest,
    guard: RequestGuard,
    maxBytes: number,
    started: number,
  ): void {
    this.rawExchange(init, serializeRequest(init, prepared), guard, maxBytes).then(
      (raw) => guard.settle({ ...raw, durationMs: performance.now() - started }, undefined),
      (e) => guard.settle(undefined, e),
    );
  }

  /**
   * Sends `bytes` exactly as given to the URL's host and port (an `unsafe: true` raw
   * request) and reads one response leniently; same time limit and abort as `send`.
   */
  async sendRaw(
    init: HttpRequestInit,
    bytes: Buffer,
    options: { readAll?: boolean; signal?: AbortSignal; maxBytes?: number } = {},
  ): Promise<HttpResponseData> {
    const started = performance.now();
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const raw = await this.rawExchange(
      init,
      bytes,
      { deadline: started + timeoutMs, signal: options.signal },
      options.maxBytes ?? this.maxResponseBytes,
      options.readAll,
    );
    return { ...raw, durationMs: performance.now() - started };
  }

  private async rawExchange(
    init: HttpRequestInit,
    bytes: Buffer,
    limits: { deadline: number; signal: AbortSignal | undefined },
    maxBytes: number,
    readAll?: boolean,
  ): Promise<Omit<HttpResponseData, 'durationMs'>> {
    const u = splitRawUrl(init.url);
    const res: RawHttpResponse = await rawHttpExchange(
      {
        tls: u.scheme === 'https',
        host: this.resolve?.(u.hostname) ?? u.hostname,
        port: u.port,
        servername: init.servername ?? u.hostname,
      },
      bytes,
      {
        timeoutMs: Math.max(1, Math.round(limits.deadline - performance.now())),
        maxBytes,
        ...(readAll ? { readAll } : {}),
        ...(init.method.toUpperCase() === 'HEAD' ? { isHead: true } : {}),
        ...(limits.signal ? { signal: limits.signal } : {}),
      },
    );
    return {
      url: init.url,
      status: res.status,
      statusText: res.statusText || (STATUS_TEXT[res.status] ?? ''),
      headers: res.headers.flatMap(([k, v]) => [canonicalHeaderName(k), v]),
      body: res.body,
      truncated: res.truncated,
    };
  }

  async close(): Promise<void> {
    this.inflight.stop();
    if (this.owned) await this.dispatcher.close();
  }
}

/** The request as undici would have written it (for a resend over a plain socket). */
function serializeRequest(init: HttpRequestInit, prepared: PreparedRequest): Buffer {
  const names = Object.keys(prepared.headers);
  const host = names.find((k) => k.toLowerCase() === 'host');
  let head = `${init.method} ${prepared.path} HTTP/1.1\r\nHost: ${host ? prepared.headers[host] : splitRawUrl(init.url).host}\r\n`;
  for (const k of names) if (k !== host) head += `${k}: ${prepared.headers[k]}\r\n`;
  const body = Buffer.from(init.body ?? '', 'utf8');
  if (body.length > 0) head += `Content-Length: ${body.length}\r\n`;
  return Buffer.concat([Buffer.from(`${head}Connection: close\r\n\r\n`, 'latin1'), body]);
}
