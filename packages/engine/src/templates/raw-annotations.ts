import type { RawAnnotations } from './template-types.ts';

/** Longest `@timeout:` accepted (nuclei uses it for time-based checks, not to hang a scan). */
export const MAX_ANNOTATION_TIMEOUT_MS = 120_000;

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration (`5s`, `1m30s`, `500ms`, `1.5s`) in milliseconds, or undefined when malformed.
 * A bare number is seconds (`@timeout: 10` in the corpus means ten seconds).
 */
export function parseGoDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '' || s === '0') return s === '0' ? 0 : undefined;
  if (/^\d+(?:\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    at = re.lastIndex;
  }
  return at === s.length && at > 0 ? total : undefined;
}

export class AnnotationError extends Error {}

/**
 * nuclei's request annotations (`@Host:`, `@tls-sni:`, `@timeout:`, `@once`) checked before
 * any traffic; other `@` lines are kept in `annotations` and ignored, as nuclei does.
 */
export function compileAnnotations(annotations: Record<string, string>): RawAnnotations {
  const out: RawAnnotations = {};
  for (const [name, value] of Object.entries(annotations)) {
    switch (name) {
      case 'host': {
        if (value === '') throw new AnnotationError('@Host needs a value (scheme://host:port or host:port)');
        if (!value.includes('{{') && !/^(?:https?:\/\/)?[^/\s?#]+\/?$/i.test(value))
          throw new AnnotationError(`@Host '${value}' is not scheme://host[:port] or host[:port]`);
        out.host = value;
        break;
      }
      case 'tls-sni':
        if (value === '') throw new AnnotationError('@tls-sni needs a value');
        out.tlsSni = value;
        break;
      case 'timeout': {
        const ms = parseGoDuration(value);
        if (ms === undefined || ms <= 0)
          throw new AnnotationError(`@timeout '${value}' is not a duration such as 5s`);
        out.timeoutMs = Math.min(ms, MAX_ANNOTATION_TIMEOUT_MS);
        break;
      }
      case 'once':
        out.once = true;
        break;
      default:
    }
  }
  return out;
}
