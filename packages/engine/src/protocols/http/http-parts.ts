import { maskSecrets, toCurl, truncate } from '../../findings/evidence.ts';
import type { DslValue } from '../../operators/dsl/dsl-functions.ts';
import type { ProtocolResponse, Variables } from '../../templates/run-types.ts';
import { isReusedInputVariables } from '../../templates/target-variables.ts';
import type { CompiledHttpRequest, HttpPartsWanted } from '../../templates/template-types.ts';
import type { HttpRequestInit, HttpResponseData } from './http-client.ts';
import { encodeRequestTarget, splitRawUrl } from './http-url.ts';

// An http response as the operators read it (nuclei's part names) and as a finding shows it.

const EVIDENCE_BYTES = 4096;

export function rawRequestText(init: HttpRequestInit): string {
  const u = splitRawUrl(init.url);
  let text = `${init.method} ${encodeRequestTarget(u.path)} HTTP/1.1\r\nHost: ${u.host}\r\n`;
  for (const k in init.headers) if (k.toLowerCase() !== 'host') text += `${k}: ${init.headers[k]}\r\n`;
  return `${text}\r\n${init.body ?? ''}`;
}

function headerBlock(res: HttpResponseData): string {
  let block = res.statusText ? `HTTP/1.1 ${res.status} ${res.statusText}\r\n` : `HTTP/1.1 ${res.status}\r\n`;
  const h = res.headers;
  for (let i = 0; i + 1 < h.length; i += 2) block += `${h[i]}: ${h[i + 1]}\r\n`;
  return block;
}

const partNames = new Map<string, string>();

/** Header name → part name (`Content-Type` → `content_type`), remembered. */
function headerPart(name: string): string {
  let part = partNames.get(name);
  if (part === undefined) {
    part = name.toLowerCase().replaceAll('-', '_');
    if (partNames.size < 4096) partNames.set(name, part);
  }
  return part;
}

const TITLE = /<title[^>]*>([\s\S]*?)<\/title>/i;

/**
 * Whether many responses are built over `layer`: a request block's own layer in a payload loop
 * or with many specs, or the shared variables of an input many template runs read (those that
 * write no variables of their own): see `httpEventValues`.
 */
export function layerIsReused(req: CompiledHttpRequest, layer: Variables): boolean {
  if (req.specs.length > 4) return true;
  for (const _name in req.payloads) return true;
  return isReusedInputVariables(layer);
}

/**
 * The response as nuclei's http part names. With `layer`, the parts are created over it (the
 * runner's payload values and variables), so operators see both without a copy. With `wanted`,
 * the derived parts (`raw`/`response`, `request`, `header`/`all_headers`, `title`) are built only
 * when the template can read them (left undefined otherwise); the others are always there.
 *
 * A layer of a template run's own is a new prototype to V8: every property added to an object
 * created over one makes a new hidden class (~0.7 µs each, ~12 µs for a response's parts).
 * Where the layer serves many responses (`reused`: a payload loop, or an input's variables that
 * every run against the input reads) that is paid once and the parts are added over the layer
 * directly (fast properties, a fraction of a dictionary's bytes); otherwise they go into a
 * dictionary object first, which is then put over the layer (one prototype change on a
 * dictionary object: no hidden classes).
 */
export function httpEventValues(
  init: HttpRequestInit,
  res: HttpResponseData,
  layer?: Variables,
  wanted?: HttpPartsWanted,
  reused = true,
): Record<string, DslValue> {
  const body = res.body.toString('utf8');
  const wantHeader = !wanted || wanted.header;
  const wantRaw = !wanted || wanted.raw;
  const header = wantHeader || wantRaw ? headerBlock(res) : undefined;
  const raw = wantRaw ? `${header}\r\n${body}` : undefined;
  const headerText = wantHeader ? header : undefined;
  const request = !wanted || wanted.request ? rawRequestText(init) : undefined;
  const host = splitRawUrl(res.url).host;
  const title = !wanted || wanted.title ? (TITLE.exec(body)?.[1]?.trim() ?? '') : undefined;
  // The same properties in the same order for every response of a template (one hidden
  // class), then the header parts. (Not an object literal with `__proto__`: adding the header
  // parts to one makes a new hidden class per object.)
  const later = layer !== undefined && !reused;
  let values: Record<string, DslValue | undefined>;
  if (layer !== undefined && reused) {
    values = partsOver(
      layer,
      body,
      headerText,
      raw,
      res.status,
      res.body.length,
      request,
      host,
      res.url,
      res.durationMs / 1000,
      title,
    );
  } else {
    values = Object.create(later ? null : (layer ?? null)) as Record<string, DslValue | undefined>;
    values.body = body;
    values.header = headerText;
    values.all_headers = headerText;
    values.raw = raw;
    values.response = raw;
    values.status_code = res.status;
    values.content_length = res.body.length;
    values.content_type = '';
    values.request = request;
    values.host = host;
    values.matched = res.url;
    values.url = res.url;
    values.duration = res.durationMs / 1000;
    values.title = title;
  }
  // Header parts: repeated headers joined; the first occurrence replaces a same-named part above.
  const h = res.headers;
  for (let i = 0; i + 1 < h.length; i += 2) {
    const v = h[i + 1] as string;
    const key = headerPart(h[i] as string);
    if (isEarlierHeader(h, i, key)) values[key] = `${String(values[key])}\n${v}`;
    else values[key] = v;
    if (key === 'content_length') {
      const n = Number(v);
      if (Number.isFinite(n)) values.content_length = n;
    } else if (key === 'content_type') values.content_type = v;
  }
  if (later) Object.setPrototypeOf(values, layer);
  return values as Record<string, DslValue>;
}

type Parts = Record<string, DslValue | undefined>;
type PartsConstructor = {
  new (
    body: string,
    header: string | undefined,
    raw: string | undefined,
    status: number,
    length: number,
    request: string | undefined,
    host: string,
    url: string,
    duration: number,
    title: string | undefined,
  ): Parts;
  prototype: object;
};
const partsConstructors = new WeakMap<object, PartsConstructor>();

/**
 * A response's parts over a reused layer, made by a constructor of the layer's own: V8 sizes
 * its instances to hold their properties in the object (found by its slack tracking), where
 * one made by `Object.create(layer)` holds four and regrows a property list every three more
 * (~0.6 kB per response). The constructor stores the parts' values themselves: storing
 * `undefined` first and the values after (a number where `undefined` was) changed each field's
 * representation on every new layer's hidden classes, which cost more CPU than the parts.
 */
function partsOver(
  layer: Variables,
  body: string,
  header: string | undefined,
  raw: string | undefined,
  status: number,
  length: number,
  request: string | undefined,
  host: string,
  url: string,
  duration: number,
  title: string | undefined,
): Parts {
  let make = partsConstructors.get(layer);
  if (make === undefined) {
    make = partsConstructor();
    make.prototype = layer;
    partsConstructors.set(layer, make);
  }
  return new make(body, header, raw, status, length, request, host, url, duration, title);
}

function partsConstructor(): PartsConstructor {
  // A function, not a class: a class's prototype cannot be replaced. Its assignments tell V8
  // how many properties to make room for; the same parts in the same order as httpEventValues
  // sets them on a parts object of its own.
  return function (
    this: Parts,
    body: string,
    header: string | undefined,
    raw: string | undefined,
    status: number,
    length: number,
    request: string | undefined,
    host: string,
    url: string,
    duration: number,
    title: string | undefined,
  ) {
    this.body = body;
    this.header = header;
    this.all_headers = header;
    this.raw = raw;
    this.response = raw;
    this.status_code = status;
    this.content_length = length;
    this.content_type = '';
    this.request = request;
    this.host = host;
    this.matched = url;
    this.url = url;
    this.duration = duration;
    this.title = title;
  } as unknown as PartsConstructor;
}

/** Whether a header before index `i` has the part name `key` (a few headers: a scan, no set). */
function isEarlierHeader(h: string[], i: number, key: string): boolean {
  for (let j = 0; j < i; j += 2) if (headerPart(h[j] as string) === key) return true;
  return false;
}

/**
 * One http response for the runner. Evidence (request text, masked and truncated response,
 * curl) is built by a method, only for a response that becomes a finding.
 */
export class HttpProtocolResponse implements ProtocolResponse {
  constructor(
    readonly event: ProtocolResponse['event'],
    readonly matchedAt: string,
    readonly endpoint: string,
    readonly path: string,
    private readonly first: HttpRequestInit,
    private readonly res: HttpResponseData,
    private readonly body: string,
    /** The bytes sent, when sent as written (`unsafe: true`). */
    private readonly sentText?: string,
  ) {}

  evidence(): { request: string; response: string; curl: string } {
    const first = this.first;
    const raw = `${headerBlock(this.res)}\r\n${this.body}`;
    return {
      request: maskSecrets(this.sentText ?? rawRequestText(first)),
      response: maskSecrets(truncate(raw, EVIDENCE_BYTES)),
      curl: maskSecrets(toCurl(first.method, first.url, first.headers, first.body)),
    };
  }
}
