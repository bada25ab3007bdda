import { setTimeout as sleep } from 'node:timers/promises';
import { interpolate } from '../../operators/dsl/dsl-interpolate.ts';
import type { ProtocolResponse, RunContext, Variables } from '../../templates/run-types.ts';
import type { CompiledHttpRequest, HttpPartsWanted, RawHttpSpec } from '../../templates/template-types.ts';
import { type HttpRequestInit, type HttpResponseData, headerValue } from './http-client.ts';
import {
  enterHost,
  isRequestAllowed,
  noteFailure,
  OutOfScopeError,
  REDIRECTS,
  UnresolvedVariableError,
} from './http-executor.ts';
import { HttpProtocolResponse, httpEventValues, layerIsReused } from './http-parts.ts';
import { splitRawUrl } from './http-url.ts';

/**
 * The bytes of an `unsafe: true` raw request as nuclei sends them with rawhttp: the text as
 * the template writes it once its variables are filled in — line ends, header order,
 * duplicates, conflicting lengths and body untouched. Only the request target changes when
 * the input has a path of its own (`/app` + `/x` → `/app/x`), as nuclei merges it.
 */
export function unsafeRequestText(spec: RawHttpSpec, vars: Variables): string {
  const r = interpolate(spec.text, vars);
  if (r.unresolved.length > 0) throw new UnresolvedVariableError(r.unresolved);
  let text = r.text;
  const base = String(vars.Path ?? '');
  const target = requestLineFields(text)[1];
  if (base !== '' && target?.startsWith('/')) {
    const merged = `${base}${target === '/' ? '' : target}`;
    const at = text.indexOf(target);
    text = `${text.slice(0, at)}${merged}${text.slice(at + target.length)}`;
  }
  return text;
}

function requestLineFields(text: string): string[] {
  const line = /^[^\r\n]*/.exec(text)?.[0] ?? '';
  return line.trim().split(/\s+/);
}

/** Method, URL and headers read from the text (for the parts a template reads and evidence). */
function describeRequest(text: string, url: string): HttpRequestInit {
  const [method = 'GET'] = requestLineFields(text);
  const sep = /\r?\n\r?\n/.exec(text);
  const head = sep ? text.slice(0, sep.index) : text;
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/).slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  const body = sep ? text.slice(sep.index + sep[0].length) : '';
  return { method: method.toUpperCase(), url, headers, ...(body !== '' ? { body } : {}) };
}

/** One exchange under the politeness rules (see `enterHost`). */
async function politely(
  ctx: RunContext,
  endpoint: string,
  send: () => Promise<HttpResponseData>,
): Promise<HttpResponseData> {
  const entered = enterHost(ctx, endpoint);
  const slot = entered instanceof Promise ? await entered : entered;
  try {
    return await send();
  } catch (err) {
    noteFailure(ctx, endpoint, err);
    throw err;
  } finally {
    ctx.hosts.leave(endpoint, slot);
  }
}

/** `@Host:` — scheme://host:port, or host:port on the input's scheme. */
function annotatedRoot(root: string, annotated: string): string {
  const value = annotated.trim().replace(/\/+$/, '');
  if (/^https?:\/\//i.test(value)) return value;
  return `${splitRawUrl(root).scheme}://${value}`;
}

/**
 * Sends one `unsafe: true` raw request over a plain or TLS socket. With `redirects`, a
 * redirect is followed as nuclei does: an ordinary request to the new URL (same method and
 * headers; the raw bytes no longer apply), within the scope rules.
 */
export async function executeUnsafeHttpRequest(
  req: CompiledHttpRequest,
  spec: RawHttpSpec,
  vars: Variables,
  ctx: RunContext,
  targetHost: string,
  wanted?: HttpPartsWanted,
): Promise<ProtocolResponse> {
  const text = unsafeRequestText(spec, vars);
  let root = String(vars.RootURL ?? '');
  if (spec.annotated.host) {
    const a = interpolate(spec.annotated.host, vars);
    if (a.unresolved.length > 0) throw new UnresolvedVariableError(a.unresolved);
    root = annotatedRoot(root, a.text);
  }
  const target = requestLineFields(text)[1] ?? '/';
  const url = `${root}${target.startsWith('/') ? target : '/'}`;
  const init = describeRequest(text, url);
  if (spec.annotated.timeoutMs !== undefined) init.timeoutMs = spec.annotated.timeoutMs;
  if (spec.annotated.tlsSni) {
    const sni = interpolate(spec.annotated.tlsSni, vars).text;
    const hostHeader = Object.entries(init.headers).find(([k]) => k.toLowerCase() === 'host')?.[1];
    init.servername = (sni === 'request.host' ? (hostHeader ?? splitRawUrl(url).hostname) : sni).replace(
      /:\d+$/,
      '',
    );
  }
  if (spec.waitMs) await sleep(spec.waitMs, undefined, { signal: ctx.signal });
  const allowed = isRequestAllowed(url, targetHost, ctx);
  if (!(typeof allowed === 'boolean' ? allowed : await allowed)) throw new OutOfScopeError(url);
  const u = splitRawUrl(url);
  const maxBytes =
    req.maxSize !== undefined ? Math.min(req.maxSize, ctx.maxResponseBytes) : ctx.maxResponseBytes;
  const res = await politely(ctx, u.host, () =>
    ctx.http.sendRaw(init, Buffer.from(text, 'utf8'), { readAll: req.readAll, signal: ctx.signal, maxBytes }),
  );
  let final = res;
  let at = init;
  for (let hop = 0; req.redirects && REDIRECTS.has(final.status) && hop < req.maxRedirects; hop++) {
    const location = headerValue(final.headers, 'Location');
    if (!location) break;
    const next = new URL(location, at.url).toString();
    if (req.hostRedirects && splitRawUrl(next).host !== u.host) break;
    const ok = isRequestAllowed(next, targetHost, ctx);
    if (!(typeof ok === 'boolean' ? ok : await ok)) break;
    const headers: Record<string, string> = {};
    for (const k in at.headers)
      if (!/^(host|content-length|transfer-encoding)$/i.test(k)) headers[k] = at.headers[k] as string;
    const { body: _body, ...rest } = at;
    const hopInit: HttpRequestInit = { ...rest, url: next, headers };
    final = await politely(ctx, splitRawUrl(next).host, () => ctx.http.send(hopInit, ctx.signal, maxBytes));
    at = hopInit;
  }
  const values = httpEventValues(at, final, vars, wanted, layerIsReused(req, vars));
  if (!wanted || wanted.request) values.request = text;
  const q = u.path.indexOf('?');
  return new HttpProtocolResponse(
    { values, bytes: { body: final.body }, defaultPart: 'body' },
    at.url,
    u.endpoint,
    q < 0 ? u.path : u.path.slice(0, q),
    init,
    final,
    values.body as string,
    text,
  );
}
