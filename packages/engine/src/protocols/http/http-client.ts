import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { OriginPools } from './origin-pools.ts';
import { type RawHttpResponse, rawHttpExchange } from './raw-http-client.ts';

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

// The path runs to the fragment: spaces and other characters are encoded when sent.
const RAW_URL = /^(https?):\/\/([^/?#\s]+)([^#]*)/i;
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
  /**
   * Header pairs in arrival order (a repeated header's values together, where it first came),
   * names as nuclei's Go client reads them: canonical MIME form (`content-type` →
   * `Content-Type`), the server's own spelling for the canonical names nearly every server
   * sends, so case-sensitive matchers on `header`/`raw` (`Server: EC2ws`) fire as under nuclei.
   */
  headers: [string, string][];
  body: Buffer;
  /** True when the body was cut at the size cap. */
  truncated: boolean;
  durationMs: number;
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

/** No complete response within the exchange's time limit. */
export class RequestTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/**
 * One request in flight: its deadline, the scan's signal, and how it settles. undici takes
 * it as the request's signal (any object with addEventListener, `aborted` and `reason`; one
 * listener per request). It settles `send()` itself: undici cannot abort a request still
 * queued in a pool (only once a connection took it), so neither the deadline nor the scan's
 * abort may depend on undici. Guards are linked in a list (no Set hashing per request) that
 * the client's one sweep timer walks.
 */
class RequestGuard {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | undefined = undefined;
  private settled = false;
  prev: RequestGuard | undefined = undefined;
  next: RequestGuard | undefined = undefined;
  resolve: (res: HttpResponseData) => void = noop;
  reject: (reason: unknown) => void = noop;

  constructor(
    private readonly list: GuardList,
    readonly deadline: number,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
  ) {}

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) queueMicrotask(listener);
    else this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  abort(reason: unknown): void {
    if (this.aborted || this.settled) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.listener;
    this.listener = undefined;
    // undici destroys the socket or the body stream: the connection goes back to the pool.
    listener?.();
    this.settle(undefined, reason);
  }

  settle(res: HttpResponseData | undefined, err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.list.remove(this);
    if (res) this.resolve(res);
    else this.reject(this.aborted ? this.reason : err);
  }
}

function noop(): void {}

/** The requests in flight of one client, and the timer that ends them (deadline, scan abort). */
class GuardList {
  private head: RequestGuard | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;

  constructor(private readonly sweepMs: number) {}

  add(guard: RequestGuard): void {
    guard.next = this.head;
    if (this.head) this.head.prev = guard;
    this.head = guard;
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.sweepMs);
    this.timer.unref();
  }

  remove(guard: RequestGuard): void {
    if (guard.prev) guard.prev.next = guard.next;
    else if (this.head === guard) this.head = guard.next;
    if (guard.next) guard.next.prev = guard.prev;
    guard.prev = undefined;
    guard.next = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    for (let g = this.head; g; ) {
      const next = g.next;
      if (g.signal?.aborted) g.abort(g.signal.reason);
      else if (now >= g.deadline) g.abort(new RequestTimeoutError(g.timeoutMs));
      g = next;
    }
    if (!this.head) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

// The promise executor is shared (no closure per request): it hands its functions over here.
let capturedResolve: (res: HttpResponseData) => void = noop;
let capturedReject: (reason: unknown) => void = noop;
function capture(resolve: (res: HttpResponseData) => void, reject: (reason: unknown) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
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

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
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

// What undici would refuse, checked here: undici refuses a request inside a pool's connection
// and leaves that connection waiting for a 'drain' that never comes — after as many refusals
// as connections per origin, every later request to the origin queued forever.
const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/;

function percentEncode(char: string): string {
  let out = '';
  for (const byte of Buffer.from(char, 'utf8'))
    out += `%${byte < 16 ? '0' : ''}${byte.toString(16).toUpperCase()}`;
  return out;
}

/**
 * The request target as nuclei sends it: spaces, control and non-ASCII characters
 * percent-encoded as UTF-8 (`管理员` → `%E7%AE%A1…`), a space in the query as `+` (nuclei's
 * query encoding), everything else — `%2e`, `..`, reserved characters — untouched.
 */
export function encodeRequestTarget(target: string): string {
  if (!NOT_VISIBLE_ASCII.test(target)) return target;
  const q = target.indexOf('?');
  let out = '';
  let i = 0;
  for (const char of target) {
    const inQuery = q >= 0 && i > q;
    i += char.length;
    const code = char.codePointAt(0) as number;
    if (code > 0x20 && code < 0x7f) out += char;
    else if (code === 0x20 && inQuery) out += '+';
    else out += percentEncode(char);
  }
  return out;
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
function prepareRequest(init: HttpRequestInit): { path: string; headers: Record<string, string> } {
  if (!TOKEN.test(init.method)) throw new InvalidRequestError(`invalid request method '${init.method}'`);
  const path = encodeRequestTarget(splitRawUrl(init.url).path);
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

const canonicalNames = new Map<string, string>();

/** Go's CanonicalMIMEHeaderKey (what nuclei's responses hold): `x-powered-by` → `X-Powered-By`. */
export function canonicalHeaderName(name: string): string {
  let c = canonicalNames.get(name);
  if (c === undefined) {
    c = TOKEN.test(name)
      ? name
          .toLowerCase()
          .replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => dash + letter.toUpperCase())
      : name;
    if (canonicalNames.size < 4096) canonicalNames.set(name, c);
  }
  return c;
}

/**
 * Collects one response from undici's dispatch callbacks into HttpResponseData and settles
 * the request's guard. undici's callback form with raw headers (its newer form only wraps
 * this one and builds a header object per response). Header names as nuclei's Go client shows
 * them (canonical MIME form, whatever case the server used); a repeated header's values stay
 * together, in order, where it first appeared. The body stops at `maxBytes`: the response
 * settles there, truncated, and the exchange is cut (the connection closes).
 */
class ResponseCollector implements Dispatcher.DispatchHandler {
  private status = 0;
  private statusText = '';
  private headers: [string, string][] = [];
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private abortExchange: ((err?: Error) => void) | undefined = undefined;

  constructor(
    private readonly url: string,
    private readonly guard: RequestGuard,
    private readonly maxBytes: number,
    private readonly started: number,
    /** Takes over an error it can answer another way (true), e.g. a refused 101. */
    private readonly recover: (err: Error) => boolean = () => false,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    // The scan's abort or the deadline ends the exchange (see RequestGuard).
    this.abortExchange = abort;
    const guard = this.guard;
    guard.addEventListener('abort', () => abort(guard.reason as Error));
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    this.status = statusCode;
    this.statusText = STATUS_TEXT[statusCode] ?? '';
    const pairs: [string, string][] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = canonicalHeaderName((raw[i] as Buffer).toString('latin1'));
      const value = (raw[i + 1] as Buffer).toString('utf8');
      let at = -1;
      for (let j = pairs.length - 1; j >= 0; j--)
        if ((pairs[j] as [string, string])[0] === name) {
          at = j;
          break;
        }
      if (at < 0 || at === pairs.length - 1) pairs.push([name, value]);
      else pairs.splice(at + 1, 0, [name, value]);
    }
    this.headers = pairs;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.size + chunk.length > this.maxBytes) {
      this.chunks.push(chunk.subarray(0, this.maxBytes - this.size));
      this.size = this.maxBytes;
      this.finish(true);
      this.abortExchange?.(new Error('response larger than the size limit'));
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  onComplete(): void {
    this.finish(false);
  }

  onError(err: Error): void {
    if (this.recover(err)) return;
    this.guard.settle(undefined, err);
  }

  private finish(truncated: boolean): void {
    const chunks = this.chunks;
    this.guard.settle(
      {
        url: this.url,
        status: this.status,
        statusText: this.statusText,
        headers: this.headers,
        body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.size),
        truncated,
        durationMs: performance.now() - this.started,
      },
      undefined,
    );
  }
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
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
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
    let prepared: { path: string; headers: Record<string, string> };
    try {
      prepared = prepareRequest(init);
    } catch (err) {
      return Promise.reject(err);
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const started = performance.now();
    const guard = new RequestGuard(this.inflight, started + timeoutMs, timeoutMs, signal);
    const promise = new Promise<HttpResponseData>(capture);
    guard.resolve = capturedResolve;
    guard.reject = capturedReject;
    this.inflight.add(guard);
    void this.exchange(init, prepared, guard, maxBytes, started);
    return promise;
  }

  /**
   * The exchange itself, on undici's dispatch API: a handler collects the response and
   * settles the guard (no response stream, no promise per chunk). It never throws.
   */
  private exchange(
    init: HttpRequestInit,
    prepared: { path: string; headers: Record<string, string> },
    guard: RequestGuard,
    maxBytes: number,
    started: number,
  ): void {
    // dispatch sends the path as given: path-traversal checks need `/.%2e/` and `/../` to
    // reach the server unnormalised.
    const options: Dispatcher.DispatchOptions = {
      origin: splitRawUrl(init.url).origin,
      path: prepared.path,
      method: init.method as Dispatcher.HttpMethod,
      headers: prepared.headers,
    };
    if (init.body !== undefined && init.body !== '') options.body = init.body;
    if (init.timeoutMs !== undefined) {
      options.headersTimeout = init.timeoutMs;
      options.bodyTimeout = init.timeoutMs;
    }
    // undici takes a per-request server name (it reconnects when it changes); not in its types.
    if (init.servername) (options as { servername?: string }).servername = init.servername;
    // undici fails a request answered `101 Switching Protocols` that did not ask to upgrade
    // ('bad upgrade', or one of its parser's assertions when the answer has no Upgrade
    // header); nuclei reads that answer as the response: ask again over a socket.
    const refusedUpgrade = (err: Error): boolean => {
      if (!isRefusedUpgrade(err)) return false;
      this.rawExchange(init, serializeRequest(init, prepared), guard, maxBytes).then(
        (raw) => guard.settle({ ...raw, durationMs: performance.now() - started }, undefined),
        (e) => guard.settle(undefined, e),
      );
      return true;
    };
    try {
      this.dispatcher.dispatch(
        options,
        new ResponseCollector(init.url, guard, maxBytes, started, refusedUpgrade),
      );
    } catch (err) {
      guard.settle(undefined, err);
    }
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
      headers: res.headers.map(([k, v]) => [canonicalHeaderName(k), v]),
      body: res.body,
      truncated: res.truncated,
    };
  }

  async close(): Promise<void> {
    this.inflight.stop();
    if (this.owned) await this.dispatcher.close();
  }
}

function isRefusedUpgrade(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return (code === 'UND_ERR_SOCKET' && (err as Error).message === 'bad upgrade') || code === 'ERR_ASSERTION';
}

/** The request as undici would have written it (for a resend over a plain socket). */
function serializeRequest(
  init: HttpRequestInit,
  prepared: { path: string; headers: Record<string, string> },
): Buffer {
  const names = Object.keys(prepared.headers);
  const host = names.find((k) => k.toLowerCase() === 'host');
  let head = `${init.method} ${prepared.path} HTTP/1.1\r\nHost: ${host ? prepared.headers[host] : splitRawUrl(init.url).host}\r\n`;
  for (const k of names) if (k !== host) head += `${k}: ${prepared.headers[k]}\r\n`;
  const body = Buffer.from(init.body ?? '', 'utf8');
  if (body.length > 0) head += `Content-Length: ${body.length}\r\n`;
  return Buffer.concat([Buffer.from(`${head}Connection: close\r\n\r\n`, 'latin1'), body]);
}

const STATUS_TEXT: Record<number, string> = {
  101: 'Switching Protocols',
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
