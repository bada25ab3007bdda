import type { DslValue } from './dsl/dsl-functions.ts';

/**
 * What a protocol hands to matchers and extractors: its response as named parts
 * (`body`, `header`, `status_code`, `answer`, `body_2`...). Operators know nothing else.
 */
export interface OperatorEvent {
  values: Record<string, DslValue>;
  /** Exact bytes of parts that may be binary (binary matcher); falls back to the string. */
  bytes?: Record<string, Buffer>;
  /** Part used when a matcher or extractor names none. */
  defaultPart: string;
}

export class OperatorCompileError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'OperatorCompileError';
  }
}

/** Resolves a part name the way nuclei does: header names are lowercase with `_` for `-`. */
export function readPart(event: OperatorEvent, part: string | undefined): DslValue | undefined {
  const name = (part ?? event.defaultPart).trim();
  const direct = event.values[name];
  if (direct !== undefined) return direct;
  const normalised = name.toLowerCase().replace(/-/g, '_');
  const v = event.values[normalised];
  if (v !== undefined) return v;
  if (name === 'all' || name === 'response') return event.values.raw ?? event.values.response;
  return undefined;
}

export function partAsString(v: DslValue | undefined): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map((x) => partAsString(x)).join('\n');
  return String(v);
}
