import { maskSecrets, toCurl, truncate } from '../../findings/evidence.js';
import type { DslValue } from '../../operators/dsl/dsl-functions.js';
import { interpolate } from '../../operators/dsl/dsl-interpolate.js';
import { HostSkippedError } from '../../templates/politeness.js';
import type { ProtocolResponse, RunContext, Variables } from '../../templates/run-types.js';
import type { CompiledHttpRequest, PathHttpSpec, RawHttpSpec } from '../../templates/template-types.js';
import { type HttpRequestInit, type HttpResponseData, splitRawUrl } from './http-client.js';

export class UnresolvedVariableError extends Error {
  constructor(readonly names: string[]) {
    super(`unresolved variables: ${names.join(', ')}`);
    this.name = 'UnresolvedVariableError';
  }
}

const EVIDENCE_BYTES = 4096;
const DEFAULT_UA = 'Mozilla/5.0 (compatible; perimeter-scan/0.1)';

function fill(text: string, vars: Variables): string {
  const r = interpolate(text, vars);
  if (r.unresolved.length > 0) throw new UnresolvedVariableError(r.unresolved);
  return r.text;
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
    for (const [k, v] of Object.entries(req.headers)) headers[k] = fill(v, vars);
    const body = req.body !== undefined ? fill(req.body, vars) : undefined;
    return {
      method: req.method,
      url: checkedUrl(url),
      headers,
      ...(body !== undefined ? { body } : {}),
    };
  }
  const text = fill(spec.text, vars).replace(/\r\n/g, '\n');
  const sep = text.indexOf('\n\n');
  const head = sep < 0 ? text : text.slice(0, sep);
  const body = sep < 0 ? '' : text.slice(sep + 2);
  const [requestLine = '', ...headerLines] = head.split('\n');
  const m = /^([A-Za-z]+)\s+(\S+)(?:\s+HTTP\/[\d.]+)?\s*$/.exec(requestLine.trim());
  if (!m) throw new Error(`invalid raw request line '${requestLine}'`);
  const method = (m[1] as string).toUpperCase();
  const target = m[2] as string;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  for (const [k, v] of Object.entries(req.headers)) headers[k] = fill(v, vars);
  const root = String(vars.RootURL ?? '');
  const url = /^https?:\/\//i.test(target) ? target : `${root}${target.startsWith('/') ? '' : '/'}${target}`;
  // undici derives Host from the URL; keep an explicit Host only when it differs (virtual hosts).
  for (const k of Object.keys(headers)) {
    if (k.toLowerCase() === 'host' && (headers[k] === vars.Hostname || headers[k] === vars.Host))
      delete headers[k];
  }
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent')) headers['User-Agent'] = DEFAULT_UA;
  return {
    method,
    url: checkedUrl(url),
    headers,
    ...(body !== '' ? { body: body.replace(/\n$/, '') } : {}),
  };
}

function checkedUrl(url: string): string {
  splitRawUrl(url);
  return url;
}

export function rawRequestText(init: HttpRequestInit): string {
  const u = splitRawUrl(init.url);
  const lines = [`${init.method} ${u.path} HTTP/1.1`, `Host: ${u.host}`];
  for (const [k, v] of Object.entries(init.headers)) if (k.toLowerCase() !== 'host') lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n${init.body ?? ''}`;
}

function headerBlock(res: HttpResponseData): string {
  const lines = [`HTTP/1.1 ${res.status} ${res.statusText}`.trimEnd()];
  for (const [k, v] of res.headers) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n`;
}

/** The response as nuclei's http part names. */
export function httpEventValues(init: HttpRequestInit, res: HttpResponseData): Record<string, DslValue> {
  const body = res.body.toString('utf8');
  const header = headerBlock(res);
  let contentLength: number = res.body.length;
  let contentType = '';
  const raw = `${header}\r\n${body}`;
  // A literal with a fixed shape first (fast property access), then the header parts.
  const values: Record<string, DslValue> = {
    body,
    header,
    all_headers: header,
    status_code: res.status,
    content_length: 0,
    content_type: '',
    raw,
    response: raw,
    request: rawRequestText(init),
    host: splitRawUrl(res.url).host,
    matched: res.url,
    url: res.url,
    duration: res.durationMs / 1000,
    title: /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1]?.trim() ?? '',
  };
  const seen = new Set<string>();
  for (const [k, v] of res.headers) {
    const key = k.toLowerCase().replace(/-/g, '_');
    values[key] = seen.has(key) ? `${String(values[key])}\n${v}` : v;
    seen.add(key);
    if (key === 'content_length' && Number.isFinite(Number(v))) contentLength = Number(v);
    if (key === 'content_type') contentType = v;
  }
  values.content_length = contentLength;
  values.content_type = contentType;
  return values;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Sends one request, following redirects as the template allows; returns the final response. */
export async function executeHttpRequest(
  req: CompiledHttpRequest,
  spec: PathHttpSpec | RawHttpSpec,
  vars: Variables,
  ctx: RunContext,
  cookies?: Map<string, string>,
): Promise<ProtocolResponse> {
  let init = buildHttpRequest(req, spec, vars);
  const first = init;
  const firstUrl = splitRawUrl(init.url);
  const originHost = firstUrl.host;
  let res: HttpResponseData | undefined;
  for (let hop = 0; ; hop++) {
    if (cookies && cookies.size > 0 && !Object.keys(init.headers).some((k) => k.toLowerCase() === 'cookie')) {
      init = {
        ...init,
        headers: { ...init.headers, Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      };
    }
    const endpoint = init === first ? originHost : splitRawUrl(init.url).host;
    if (ctx.isUrlAllowed && !(await ctx.isUrlAllowed(init.url))) throw new Error(`out of scope: ${init.url}`);
    if (ctx.hosts.isBlocked(endpoint)) throw new HostSkippedError(endpoint);
    await ctx.rate.acquire(ctx.signal);
    const release = await ctx.hosts.acquire(endpoint);
    try {
      const maxSize =
        req.maxSize !== undefined ? Math.min(req.maxSize, ctx.maxResponseBytes) : ctx.maxResponseBytes;
      res = await ctx.http.send(init, ctx.signal, maxSize);
    } catch (err) {
      if (!ctx.signal.aborted) ctx.hosts.recordError(endpoint, (err as Error).message);
      throw err;
    } finally {
      release();
    }
    if (cookies) {
      for (const [k, v] of res.headers) {
        if (k !== 'set-cookie') continue;
        const pair = v.split(';')[0] ?? '';
        const i = pair.indexOf('=');
        if (i > 0) cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
      }
    }
    const location = res.headers.find(([k]) => k === 'location')?.[1];
    if (!req.redirects || !REDIRECTS.has(res.status) || !location || hop >= req.maxRedirects) break;
    const next = new URL(location, init.url);
    if (req.hostRedirects && next.host !== originHost) break;
    const toGet =
      res.status === 303 || ((res.status === 301 || res.status === 302) && init.method === 'POST');
    const { body: _body, ...rest } = init;
    init = toGet ? { ...rest, method: 'GET', url: next.toString() } : { ...init, url: next.toString() };
  }
  const values = httpEventValues(init, res);
  const u = res.url === first.url ? firstUrl : splitRawUrl(res.url);
  return {
    event: { values, bytes: { body: res.body }, defaultPart: 'body' },
    matchedAt: res.url,
    endpoint: `${u.hostname}:${u.port}`,
    path: firstUrl.path.split('?')[0] ?? '/',
    evidence: () => ({
      request: maskSecrets(rawRequestText(first)),
      response: maskSecrets(truncate(String(values.raw), EVIDENCE_BYTES)),
      curl: maskSecrets(toCurl(first.method, first.url, first.headers, first.body)),
    }),
  };
}
