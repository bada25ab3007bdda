import { DSL_FUNCTIONS, toDslString } from './dsl-functions.js';
import { type CompiledDsl, compileDsl, type DslContext, lookupVariable } from './dsl-interpreter.js';

const PLACEHOLDER = /\{\{(.+?)\}\}|§([^§]+)§/gs;

const compiled = new Map<string, CompiledDsl | null>();

function compileCached(expr: string): CompiledDsl | null {
  let c = compiled.get(expr);
  if (c === undefined) {
    try {
      c = compileDsl(expr);
    } catch {
      c = null;
    }
    if (compiled.size > 10000) compiled.clear();
    compiled.set(expr, c);
  }
  return c;
}

const get = lookupVariable;

export interface Interpolated {
  text: string;
  /** Placeholders that could not be resolved (left in the text as they were). */
  unresolved: string[];
}

/**
 * Replaces `{{name}}`, `{{expression(...)}}` and `§name§` markers. A plain name is looked up
 * first (names like `interactsh-url` are not valid expressions); anything else is evaluated
 * with the DSL against the same variables.
 */
export function interpolate(text: string, vars: DslContext): Interpolated {
  const unresolved: string[] = [];
  if (!text.includes('{{') && !text.includes('§')) return { text, unresolved };
  const parts = segmentsOf(text);
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as Segment;
    if (typeof part === 'string') out += part;
    else out += resolve(part, vars, unresolved);
  }
  return { text: out, unresolved };
}

interface Placeholder {
  /** The marker as written (kept in the text when unresolved). */
  whole: string;
  /** The trimmed expression inside it. */
  expr: string;
}

type Segment = string | Placeholder;

const segmentCache = new Map<string, Segment[]>();

/** A text split once into literal runs and placeholders (the same texts recur per request). */
function segmentsOf(text: string): Segment[] {
  let parts = segmentCache.get(text);
  if (parts) return parts;
  parts = [];
  let at = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m.index > at) parts.push(text.slice(at, m.index));
    parts.push({ whole: m[0], expr: (m[1] ?? m[2] ?? '').trim() });
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  if (segmentCache.size > 10000) segmentCache.clear();
  segmentCache.set(text, parts);
  return parts;
}

function resolve(p: Placeholder, vars: DslContext, unresolved: string[]): string {
  const expr = p.expr;
  const direct = get(vars, expr);
  if (direct !== undefined) return toDslString(direct);
  // `{{randstr}}`: a helper that takes no arguments may be written as a bare name.
  const bare = DSL_FUNCTIONS[expr];
  if (bare && bare.min === 0) return toDslString(bare.fn([]));
  const c = compileCached(expr);
  if (c) {
    try {
      return toDslString(c.evaluate(vars));
    } catch {
      // fall through: unresolved
    }
  }
  unresolved.push(expr);
  return p.whole;
}

/** Placeholders in a text (without evaluating), for compile-time checks. */
export function listPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => (m[1] ?? m[2] ?? '').trim());
}
