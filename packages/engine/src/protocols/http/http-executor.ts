import { setTimeout as sleep } from 'node:timers/promises';
import { interpolateInto } from '../../operators/dsl/dsl-interpolate.ts';
import { HostSkippedError, type Semaphore } from '../../templates/politeness.ts';
import type { ProtocolResponse, RunContext, Variables } from '../../templates/run-types.ts';
import type {
  CompiledHttpRequest,
  HttpPartsWanted,
  PathHttpSpec,
  RawHttpSpec,
} from '../../templates/template-types.ts';
import {
  type HttpRequestInit,
  type HttpResponseData,
  headerValue,
  InvalidRequestError,
} from './http-client.ts';
import { HttpProtocolResponse, httpEventValues, layerIsReused } from './http-parts.ts';
import { type ResponseReceiver, Settler } from './http-request-guard.ts';
import { type RawUrl, splitRawUrl } from './http-url.ts';

export class UnresolvedVariableError extends Error {
  constructor(readonly names: string[]) {
    super(`unresolved variables: ${names.join(', ')}`);
    this.name = 'UnresolvedVariableError';
  }
}

/** A request to a host the scan does not cover, refused before any traffic (even a DNS lookup). */
export class OutOfScopeError extends InvalidRequestError {
  constructor(url: string) {
    super(`out of scope: ${url}`);
    this.name = 'OutOfScopeError';
  }
}

/**
 * Whether a request may go to `url`: the scan's scope policy when it has one, else only the
 * input's own host name (any port), as nuclei scopes a template to its input — unless the
 * run allows other hosts.
 */
export function isRequestAllowed(
  url: string,
  targetHost: string,
  ctx: RunContext,
): boolean | Promise<boolean> {
  if (ctx.isUrlAllowed) return ctx.isUrlAllowed(url);
  if (ctx.allowOtherHosts) return true;
  const hostname = splitRawUrl(url).hostname;
  // Most requests go to the input's host as written: no lower-cased copies to compare.
  return hostname === targetHost || hostname.toLowerCase() === targetHost.toLowerCase();
}

const DEFAULT_UA = 'Mozilla/5.0 (compatible; perimeter-scan/0.1)';

/** Unresolved names of the current fill (fill is synchronous: one list serves every call). */
const unresolved: string[] = [];

function fill(text: string, vars: Variables): string {
  if (unresolved.length > 0) unresolved.length = 0;
  const filled = interpolateInto(text, vars, unresolved);
  if (unresolved.length > 0) throw new UnresolvedVariableError(unresolved.splice(0));
  return filled;
}

/** Builds the request for one path or raw spec with the variables filled in. */
export function buildHttpRequest(
  req: CompiledHttpRequest,
  spec: PathHttpSpec | RawHttpSpec,
  vars: Variables,
): HttpRequestInit {
  if (spec.kind === 'path') {
    const url = fill(spec.path, vars);
    const headers: Record<string, string> = { 'User-Agent': DEFAULT_UA };
    const own = req.headers;
    for (const k in own) headers[k] = fill(own[k] as string, vars);
    const init: HttpRequestInit = { method: req.method, url: checkedUrl(url), headers };
    if (req.body !== undefined) init.body = fill(req.body, vars);
    return init;
  }
  const text = fill(spec.text, vars).replace(/\r\n/g, '\n');
  const sep = text.indexOf('\n\n');
  const head = sep < 0 ? text : text.slice(0, sep);
  const body = sep < 0 ? '' : text.slice(sep + 2);
  const lines = head.split('\n');
  const requestLine = lines[0] ?? '';
  // As nuclei reads it: the method, then the target; what follows the target (the version,
  // a second version, a comment) is ignored. `GET HTTP/1.1` keeps the input's own path.
  const fields = requestLine.trim().split(/\s+/);
  const verb = fields[0] ?? '';
  if (fields.length < 2 || !/^[A-Za-z]+$/.test(verb))
    throw new Error(`invalid raw request line '${requestLine}'`);
  const method = verb.toUpperCase();
  let target = fields[1] as string;
  if (fields.length === 2 && target.includes('HTTP/')) target = '';
  const headers: Record<string, string> = {};
  for (let l = 1; l < lines.length; l++) {
    const line = lines[l] as string;
    const i = line.indexOf(':');
    if (i <= 0) continue;
    headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  for (const [k, v] of Object.entries(req.headers)) headers[k] = fill(v, vars);
  const root = String(vars.RootURL ?? '');
  let url =
    target === ''
      ? String(vars.BaseURL ?? root)
      : /^https?:\/\//i.test(target)
        ? target
        : `${root}${target.startsWith('/') ? '' : '/'}${target}`;
  const a = spec.annotated;
  if (a.host) url = withAuthority(url, fill(a.host, vars));
  let hostHeader: string | undefined;
  // undici derives Host from the URL; keep an explicit Host only when it differs (virtual hosts).
  for (const k of Object.keys(headers)) {
    if (k.toLowerCase() !== 'host') continue;
    hostHeader = headers[k];
    if (headers[k] === vars.Hostname || headers[k] === vars.Host) delete headers[k];
  }
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent')) headers['User-Agent'] = DEFAULT_UA;
  const init: HttpRequestInit = {
    method,
    url: checkedUrl(url),
    headers,
    ...(body !== '' ? { body: body.replace(/\n$/, '') } : {}),
  };
  if (a.tlsSni) {
    const sni = fill(a.tlsSni, vars);
    // `request.host`: the Host header as sent (without a port), else the URL's host.
    init.servername =
      sni === 'request.host' ? stripPort(hostHeader ?? splitRawUrl(init.url).host) : stripPort(sni);
  }
  if (a.timeoutMs !== undefined) init.timeoutMs = a.timeoutMs;
  return init;
}

/** `@Host:` — the request goes to another scheme://host:port (or host:port on the same scheme). */
function withAuthority(url: string, annotated: string): string {
  const u = splitRawUrl(url);
  const value = annotated.trim().replace(/\/+$/, '');
  if (/^https?:\/\//i.test(value)) return `${value}${u.path}`;
  return `${u.scheme}://${value}${u.path}`;
}

function stripPort(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const i = host.lastIndexOf(':');
  return i > 0 && host.indexOf(':') === i ? host.slice(0, i) : host;
}

function checkedUrl(url: string): string {
  splitRawUrl(url);
  return url;
}

export const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * A slot for one exchange with an endpoint under the politeness rules (the host's error
 * budget, the rate limit, the host's concurrency): the host's semaphore (give it back with
 * `ctx.hosts.leave`), at once when no rate is set and the host has a free slot (no await on
 * the hot path), else a promise.
 */
export function enterHost(ctx: RunContext, endpoint: string): Semaphore | Promise<Semaphore> {
  if (ctx.hosts.isBlocked(endpoint)) throw new HostSkippedError(endpoint);
  const slot = ctx.rate.isLimited ? undefined : ctx.hosts.tryEnter(endpoint);
  return slot ?? enterHostSlowly(ctx, endpoint);
}

async function enterHostSlowly(ctx: RunContext, endpoint: string): Promise<Semaphore> {
  if (ctx.rate.isLimited) await ctx.rate.acquire(endpoint, ctx.signal);
  const slot = ctx.hosts.tryEnter(endpoint) ?? (await ctx.hosts.enter(endpoint));
  // The host may have run out of its error budget while this request waited for a slot.
  if (ctx.hosts.isBlocked(endpoint)) {
    ctx.hosts.leave(endpoint, slot);
    throw new HostSkippedError(endpoint);
  }
  return slot;
}

/** A failed exchange counts against the host, unless nothing was sent (or the scan stopped). */
export function noteFailure(ctx: RunContext, endpoint: string, err: unknown): void {
  if (!ctx.signal.aborted && !(err instanceof InvalidRequestError))
    ctx.hosts.recordError(endpoint, (err as Error).message);
}

/** The request with the jar's cookies, unless it sets its own Cookie header. */
function withCookies(init: HttpRequestInit, cookies: Map<string, string>): HttpRequestInit {
  if (cookies.size === 0 || Object.keys(init.headers).some((k) => k.toLowerCase() === 'cookie')) return init;
  return {
    ...init,
    headers: { ...init.headers, Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  };
}

function keepCookies(res: HttpResponseData, cookies: Map<string, string>): void {
  const h = res.headers;
  for (let n = 0; n + 1 < h.length; n += 2) {
    if (h[n] !== 'Set-Cookie') continue;
    const pair = (h[n + 1] as string).split(';')[0] ?? '';
    const i = pair.indexOf('=');
    if (i > 0) cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
  }
}

/** The request a redirect leads to, or undefined when the chain ends at `res`. */
function redirectOf(
  req: CompiledHttpRequest,
  init: HttpRequestInit,
  res: HttpResponseData,
  hop: number,
  originHost: string,
): HttpRequestInit | undefined {
  if (!req.redirects || !REDIRECTS.has(res.status) || hop >= req.maxRedirects) return undefined;
  const location = headerValue(res.headers, 'Location');
  if (!location) return undefined;
  const next = new URL(location, init.url);
  if (req.hostRedirects && next.host !== originHost) return undefined;
  const toGet = res.status === 303 || ((res.status === 301 || res.status === 302) && init.method === 'POST');
  const { body: _body, ...rest } = init;
  return toGet ? { ...rest, method: 'GET', url: next.toString() } : { ...init, url: next.toString() };
}

/**
 * What an exchange's promise settles with: the caller's own value for the final response (the
 * http executor's iterator step), or, when there is none, what `failure` makes of it (a
 * rejection, or the caller's next step), called on a later turn as a promise's reaction would
 * be. The exchange settles the caller's promise itself: a reaction on a promise of the
 * exchange's, with its closure, per request costs more bytes than the step it makes.
 */
export interface ExchangeOutcome<T> {
  response(resp: ProtocolResponse): T;
  failure(err: unknown): Promise<T>;
}

/** The outcome as a promise of a response from another exchange (the uncommon paths). */
function settleLater<T>(outcome: ExchangeOutcome<T>, later: Promise<ProtocolResponse>): Promise<T> {
  return later.then(
    (resp) => outcome.response(resp),
    (err: unknown) => outcome.failure(err),
  );
}

/** The outcome of no response, from a reaction (the caller may send its next request from it). */
function failLater<T>(outcome: ExchangeOutcome<T>, err: unknown): Promise<T> {
  return settleLater(outcome, Promise.reject(err));
}

/**
 * Sends one request, following redirects as the template allows; the promise settles with the
 * outcome of the final response. The common exchange (no wait, scope and a host slot answered
 * at once) is an `HttpExchange` the client hands the response to: an async frame, or a
 * reaction on a promise of the client's, per request costs more bytes than the rest of this
 * path. Anything else goes on in `followExchange`, the same steps awaited.
 */
export function executeHttpRequest<T>(
  req: CompiledHttpRequest,
  spec: PathHttpSpec | RawHttpSpec,
  vars: Variables,
  ctx: RunContext,
  targetHost: string,
  cookies: Map<string, string> | undefined,
  wanted: HttpPartsWanted | undefined,
  outcome: ExchangeOutcome<T>,
): Promise<T> {
  let first: HttpRequestInit;
  let init: HttpRequestInit;
  let slot: Semaphore;
  let firstUrl: Readonly<RawUrl>;
  try {
    first = buildHttpRequest(req, spec, vars);
    if (spec.waitMs)
      return settleLater(outcome, followExchange(req, spec, vars, ctx, targetHost, cookies, wanted, first));
    firstUrl = splitRawUrl(first.url);
    init = cookies ? withCookies(first, cookies) : first;
    const allowed = isRequestAllowed(init.url, targetHost, ctx);
    if (allowed === false) throw new OutOfScopeError(init.url);
    if (allowed !== true)
      return settleLater(
        outcome,
        followExchange(req, spec, vars, ctx, targetHost, cookies, wanted, first, allowed),
      );
    const entered = enterHost(ctx, firstUrl.host);
    if (entered instanceof Promise)
      return settleLater(
        outcome,
        followExchange(req, spec, vars, ctx, targetHost, cookies, wanted, first, true, entered),
      );
    slot = entered;
  } catch (err) {
    return failLater(outcome, err);
  }
  const exchange = new HttpExchange(
    req,
    spec,
    vars,
    ctx,
    targetHost,
    cookies,
    wanted,
    first,
    firstUrl,
    init,
    slot,
    outcome,
  );
  ctx.http.sendTo(exchange, init, ctx.signal, maxResponseSize(req, ctx));
  return exchange.promise;
}

/**
 * The common exchange's first hop once sent: the client hands it the outcome, and it settles
 * the exchange's promise with the caller's outcome of the response, or of `followExchange`
 * when a redirect is followed (the host slot given back, cookies kept and a failure noted as
 * `followExchange` does).
 */
class HttpExchange<T> extends Settler<T> implements ResponseReceiver {
  constructor(
    private readonly req: CompiledHttpRequest,
    private readonly spec: PathHttpSpec | RawHttpSpec,
    private readonly vars: Variables,
    private readonly ctx: RunContext,
    private readonly targetHost: string,
    private readonly cookies: Map<string, string> | undefined,
    private readonly wanted: HttpPartsWanted | undefined,
    private readonly first: HttpRequestInit,
    private readonly firstUrl: Readonly<RawUrl>,
    private readonly init: HttpRequestInit,
    private readonly slot: Semaphore,
    private readonly outcome: ExchangeOutcome<T>,
  ) {
    super();
  }

  /** Called by the client, inside undici's callback: nothing may throw out of it. */
  received(res: HttpResponseData): void {
    const { req, spec, vars, ctx, cookies, wanted, first, firstUrl, init } = this;
    try {
      ctx.hosts.leave(firstUrl.host, this.slot);
      if (cookies) keepCookies(res, cookies);
      const next = redirectOf(req, init, res, 0, firstUrl.host);
      if (next) {
        const redirected = { init: next, res };
        this.resolve(
          settleLater(
            this.outcome,
            followExchange(
              req,
              spec,
              vars,
              ctx,
              this.targetHost,
              cookies,
              wanted,
              first,
              undefined,
              undefined,
              redirected,
            ),
          ),
        );
      } else
        this.resolve(
          this.outcome.response(
            httpProtocolResponse(first, firstUrl, init, res, vars, wanted, layerIsReused(req, vars)),
          ),
        );
    } catch (err) {
      this.resolve(failLater(this.outcome, err));
    }
  }

  failed(err: unknown): void {
    noteFailure(this.ctx, this.firstUrl.host, err);
    this.ctx.hosts.leave(this.firstUrl.host, this.slot);
    this.resolve(failLater(this.outcome, err));
  }
}

function maxResponseSize(req: CompiledHttpRequest, ctx: RunContext): number {
  return req.maxSize !== undefined ? Math.min(req.maxSize, ctx.maxResponseBytes) : ctx.maxResponseBytes;
}

/**
 * The exchange of `executeHttpRequest` from wherever its common path left it: the first hop's
 * scope answer or pending host slot when it had them, or the redirect a first response led to.
 */
async function followExchange(
  req: CompiledHttpRequest,
  spec: PathHttpSpec | RawHttpSpec,
  vars: Variables,
  ctx: RunContext,
  targetHost: string,
  cookies: Map<string, string> | undefined,
  wanted: HttpPartsWanted | undefined,
  first: HttpRequestInit,
  firstAllowed?: boolean | Promise<boolean>,
  firstEntered?: Promise<Semaphore>,
  redirected?: { init: HttpRequestInit; res: HttpResponseData },
): Promise<ProtocolResponse> {
  if (spec.waitMs) await sleep(spec.waitMs, undefined, { signal: ctx.signal });
  const firstUrl = splitRawUrl(first.url);
  const originHost = firstUrl.host;
  const maxSize = maxResponseSize(req, ctx);
  let init = redirected?.init ?? first;
  let res: HttpResponseData | undefined = redirected?.res;
  for (let hop = redirected ? 1 : 0; ; hop++) {
    if (cookies) init = withCookies(init, cookies);
    const allowed =
      hop === 0 && firstAllowed !== undefined ? firstAllowed : isRequestAllowed(init.url, targetHost, ctx);
    if (allowed !== true && !(allowed !== false && (await allowed))) {
      // A redirect out of scope ends the chain at the redirect itself.
      if (res) break;
      throw new OutOfScopeError(init.url);
    }
    const endpoint = hop === 0 ? originHost : splitRawUrl(init.url).host;
    const entered = hop === 0 && firstEntered ? firstEntered : enterHost(ctx, endpoint);
    const slot = entered instanceof Promise ? await entered : entered;
    try {
      res = await ctx.http.send(init, ctx.signal, maxSize);
    } catch (err) {
      noteFailure(ctx, endpoint, err);
      throw err;
    } finally {
      ctx.hosts.leave(endpoint, slot);
    }
    if (cookies) keepCookies(res, cookies);
    const next = redirectOf(req, init, res, hop, originHost);
    if (!next) break;
    init = next;
  }
  return httpProtocolResponse(first, firstUrl, init, res, vars, wanted, layerIsReused(req, vars));
}

/** The final response of an exchange as the runner gets it. */
function httpProtocolResponse(
  first: HttpRequestInit,
  firstUrl: Readonly<RawUrl>,
  init: HttpRequestInit,
  res: HttpResponseData,
  vars: Variables,
  wanted: HttpPartsWanted | undefined,
  reused: boolean,
): HttpProtocolResponse {
  const values = httpEventValues(init, res, vars, wanted, reused);
  const u = res.url === first.url ? firstUrl : splitRawUrl(res.url);
  const q = firstUrl.path.indexOf('?');
  return new HttpProtocolResponse(
    { values, bytes: { body: res.body }, defaultPart: 'body' },
    res.url,
    u.endpoint,
    q < 0 ? firstUrl.path : firstUrl.path.slice(0, q),
    first,
    res,
    values.body as string,
  );
}
