import type { Variables } from '../../templates/run-types.ts';
import type { CompiledRequest } from '../../templates/template-types.ts';
import type { OobInteraction } from './oob-types.ts';

/**
 * The out-of-band marker. As nuclei does, each occurrence becomes its own call-back name
 * (`<id>.<domain>`) before any expression is evaluated, so a marker inside an expression
 * (`{{base64("wget http://{{interactsh-url}}")}}`) is encoded with the name in place.
 */
const MARKER = /\{\{\s*interactsh-url\s*\}\}/g;
const HAS_MARKER = /\{\{\s*interactsh-url\s*\}\}/;
const OOB_TEXT = /\{\{\s*interactsh-url\s*\}\}|interactsh_(?:protocol|request|response|ip)/;

/** True when a template's text uses the out-of-band server (a marker or an `interactsh_*` part). */
export function usesOob(source: string): boolean {
  return OOB_TEXT.test(source);
}

/** True when matchers or extractors read an `interactsh_*` part (their match waits for a call-back). */
export function readsOobParts(operators: unknown): boolean {
  return /interactsh_(?:protocol|request|response|ip)/.test(JSON.stringify(operators ?? null));
}

export function hasMarker(text: string): boolean {
  return HAS_MARKER.test(text);
}

/** Replaces every marker, one fresh name each. */
export function replaceMarkers(text: string, mint: () => string): string {
  return HAS_MARKER.test(text) ? text.replace(MARKER, () => mint()) : text;
}

function markRecord(record: Record<string, string>, mint: () => string): Record<string, string> {
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(record)) {
    if (!hasMarker(v)) continue;
    out ??= { ...record };
    out[k] = replaceMarkers(v, mint);
  }
  return out ?? record;
}

/** A copy of the request with its markers replaced (the request itself when it has none). */
export function markRequest(req: CompiledRequest, mint: () => string): CompiledRequest {
  switch (req.protocol) {
    case 'http': {
      const specs = req.specs.map((s) =>
        s.kind === 'path'
          ? hasMarker(s.path)
            ? { ...s, path: replaceMarkers(s.path, mint) }
            : s
          : hasMarker(s.text)
            ? { ...s, text: replaceMarkers(s.text, mint) }
            : s,
      );
      const headers = markRecord(req.headers, mint);
      const body = req.body !== undefined ? replaceMarkers(req.body, mint) : undefined;
      if (specs.every((s, i) => s === req.specs[i]) && headers === req.headers && body === req.body)
        return req;
      return { ...req, specs, headers, ...(body !== undefined ? { body } : {}) };
    }
    case 'dns':
      return hasMarker(req.name) ? { ...req, name: replaceMarkers(req.name, mint) } : req;
    case 'network': {
      if (!req.inputs.some((i) => typeof i.data === 'string' && hasMarker(i.data))) return req;
      return {
        ...req,
        inputs: req.inputs.map((i) =>
          typeof i.data === 'string' && hasMarker(i.data) ? { ...i, data: replaceMarkers(i.data, mint) } : i,
        ),
      };
    }
    case 'ssl':
      return req;
  }
}

/** Payload values with their markers replaced (the same object when none has one). */
export function markValues(values: Variables, mint: () => string): Variables {
  let out: Variables | undefined;
  for (const [k, v] of Object.entries(values)) {
    if (typeof v !== 'string' || !hasMarker(v)) continue;
    out ??= { ...values };
    out[k] = replaceMarkers(v, mint);
  }
  return out ?? values;
}

/** A combination's call-back names: those in its payload values and the template's variables, and those written in the request. */
export interface OobNames {
  everywhere: readonly string[];
  inRequest: readonly string[];
}

/**
 * The ids a request's n-th response sent: the names every response carries, and the request's
 * own — for http those in its n-th path or raw request and in the headers and body all share,
 * for other protocols all of them.
 */
export function carriedIds(sent: CompiledRequest, n: number, names: OobNames): Set<string> {
  const ids = new Set(names.everywhere);
  const spec = sent.protocol === 'http' ? sent.specs[n] : undefined;
  if (sent.protocol !== 'http' || !spec) {
    for (const id of names.inRequest) ids.add(id);
    return ids;
  }
  const texts = [
    spec.kind === 'path' ? spec.path : spec.text,
    ...Object.values(sent.headers),
    sent.body ?? '',
  ];
  for (const id of names.inRequest) if (texts.some((t) => t.includes(id))) ids.add(id);
  return ids;
}

/**
 * nuclei's parts of one call-back: the protocol, the raw request (a DNS one lowercased), the raw
 * response and the caller. With `index`, also under the indexed names (`interactsh_protocol_2`)
 * of the request that sent the call-back's name, as `status_code_2` names that request's status.
 */
export function interactionParts(i: OobInteraction, index?: number): Record<string, string> {
  const parts: Record<string, string> = {
    interactsh_protocol: i.protocol,
    interactsh_request: i.protocol === 'dns' ? i.rawRequest.toLowerCase() : i.rawRequest,
    interactsh_response: i.rawResponse,
    interactsh_ip: i.remoteAddress,
  };
  if (index === undefined) return parts;
  for (const [k, v] of Object.entries(parts)) parts[`${k}_${index}`] = v;
  return parts;
}
