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
  const out = text.replace(PLACEHOLDER, (whole, expr1: string | undefined, expr2: string | undefined) => {
    const expr = (expr1 ?? expr2 ?? '').trim();
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
    return whole;
  });
  return { text: out, unresolved };
}

/** Placeholders in a text (without evaluating), for compile-time checks. */
export function listPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => (m[1] ?? m[2] ?? '').trim());
}
