import type { Variables } from '../../templates/run-types.ts';
import type { CompiledRequest } from '../../templates/template-types.ts';

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
