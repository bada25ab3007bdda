import { toDslString } from './dsl-functions.ts';
import { type CompiledDsl, compileDsl, type DslContext, lookupVariable } from './dsl-interpreter.ts';
import { collectDslCalls, collectDslVariables } from './dsl-parser.ts';
import { findDslFunction } from './dsl-registry.ts';

const compiled = new Map<string, CompiledDsl | null>();

/** The expression compiled, or null when it is not one our DSL reads (a literal payload). */
function compileCached(expr: string): CompiledDsl | null {
  let c = compiled.get(expr);
  if (c === undefined) {
    c = null;
    try {
      const candidate = compileDsl(expr);
      // nuclei evaluates only what names a variable or a helper: `{{7*7}}` in an SSTI payload
      // is sent as written.
      const names = collectDslVariables(candidate.ast).size + collectDslCalls(candidate.ast).size;
      if (names > 0) c = candidate;
    } catch {
      // not an expression (a JS or template-engine payload, an unknown function): literal
    }
    if (compiled.size > 10000) compiled.clear();
    compiled.set(expr, c);
  }
  return c;
}

const get = lookupVariable;

export interface Interpolated {
  text: string;
  /** Placeholders that name a variable nobody set (left in the text as they were). */
  unresolved: string[];
}

/** A marker `{{…}}` (its content may hold further markers) or `§name§`. */
interface Placeholder {
  parts: Segment[];
  section?: boolean;
  /** The trimmed content when it holds no inner marker (most placeholders): no re-render. */
  plain?: string;
}

type Segment = string | Placeholder;

const segmentCache = new Map<string, Segment[]>();
const PLAIN_NAME = /^[A-Za-z_][\w.-]*$/;
const MARKS = /[{}§]/g;

/**
 * Splits a text once into literal runs and (nested) placeholders. In a run of opening braces
 * the last two open the marker (`{{{x}}}` is `{` + `{{x}}` + `}`, as nuclei reads it); an
 * unclosed `{{` is literal text.
 */
export function segmentsOf(text: string): Segment[] {
  let cached = segmentCache.get(text);
  if (cached) return cached;
  const root: Segment[] = [];
  const stack: Segment[][] = [root];
  let literal = '';
  const flush = () => {
    if (literal !== '') (stack[stack.length - 1] as Segment[]).push(literal);
    literal = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '{' && text[i + 1] === '{') {
      let run = 2;
      while (text[i + run] === '{') run++;
      literal += '{'.repeat(run - 2);
      flush();
      const parts: Segment[] = [];
      (stack[stack.length - 1] as Segment[]).push({ parts });
      stack.push(parts);
      i += run;
      continue;
    }
    if (c === '}' && text[i + 1] === '}' && stack.length > 1) {
      flush();
      stack.pop();
      i += 2;
      continue;
    }
    if (c === '§' && stack.length === 1) {
      const end = text.indexOf('§', i + 1);
      if (end > i + 1 && !/[\s§]/.test(text.slice(i + 1, end))) {
        flush();
        root.push({ parts: [text.slice(i + 1, end)], section: true });
        i = end + 1;
        continue;
      }
    }
    // The literal run up to the next brace or section mark, in one piece: appending it a
    // character at a time would keep one string node per character in the cache (32 bytes
    // each: a 200 KB raw request held as 6 MB).
    MARKS.lastIndex = i + 1;
    const next = MARKS.exec(text)?.index ?? text.length;
    literal += text.slice(i, next);
    i = next;
  }
  flush();
  // Unclosed markers: put their `{{` back as text.
  while (stack.length > 1) {
    const parts = stack.pop() as Segment[];
    const parent = stack[stack.length - 1] as Segment[];
    const idx = parent.findIndex((p) => typeof p !== 'string' && p.parts === parts);
    parent.splice(idx, 1, '{{', ...parts);
  }
  const markPlain = (parts: Segment[]): void => {
    for (const p of parts) {
      if (typeof p === 'string') continue;
      if (p.parts.length === 1 && typeof p.parts[0] === 'string') p.plain = p.parts[0].trim();
      else if (p.parts.length === 0) p.plain = '';
      else markPlain(p.parts);
    }
  };
  markPlain(root);
  cached = root;
  if (segmentCache.size > 10000) segmentCache.clear();
  segmentCache.set(text, cached);
  return cached;
}

function render(parts: Segment[], vars: DslContext, unresolved: string[]): string {
  let out = '';
  for (const p of parts) out += typeof p === 'string' ? p : resolve(p, vars, unresolved);
  return out;
}

function resolve(p: Placeholder, vars: DslContext, unresolved: string[]): string {
  if (p.plain !== undefined) {
    const direct = get(vars, p.plain);
    if (direct !== undefined) return toDslString(direct);
  }
  const inner =
    p.plain !== undefined && p.parts.length === 1
      ? (p.parts[0] as string)
      : render(p.parts, vars, unresolved);
  const whole = p.section ? `§${inner}§` : `{{${inner}}}`;
  const expr = p.plain ?? inner.trim();
  const direct = p.plain === undefined ? get(vars, expr) : undefined;
  if (direct !== undefined) return toDslString(direct);
  if (PLAIN_NAME.test(expr)) {
    // `{{randstr}}`: a helper that takes no arguments may be written as a bare name.
    const bare = findDslFunction(expr);
    if (bare && bare.min === 0) return toDslString(bare.fn([]));
    unresolved.push(expr);
    return whole;
  }
  if (p.section) return whole;
  const c = compileCached(expr);
  if (!c) return whole;
  try {
    return toDslString(c.evaluate(vars));
  } catch {
    for (const name of collectDslVariables(c.ast)) if (get(vars, name) === undefined) unresolved.push(name);
    if (unresolved.length === 0) unresolved.push(expr);
    return whole;
  }
}

/**
 * Replaces `{{name}}`, `{{expression(...)}}` (innermost first: `{{to_lower('{{randstr}}')}}`)
 * and `§name§` markers. A plain name is looked up first (names like `interactsh-url` are not
 * valid expressions); an expression is evaluated with the same variables; anything that is no
 * expression of ours (`{{7*7}}`, a JS payload) stays as written, as nuclei sends it.
 */
export function interpolate(text: string, vars: DslContext): Interpolated {
  const unresolved: string[] = [];
  return { text: interpolateInto(text, vars, unresolved), unresolved };
}

/** `interpolate` without a result object: the unresolved names are pushed onto `unresolved`. */
export function interpolateInto(text: string, vars: DslContext, unresolved: string[]): string {
  if (!text.includes('{{') && !text.includes('§')) return text;
  return render(segmentsOf(text), vars, unresolved);
}

/**
 * Every expression of a text as the compile-time check sees it: inner markers replaced by a
 * sample string, so `{{to_lower('{{randstr}}')}}` gives `randstr` and `to_lower('x')`.
 */
export function listPlaceholders(text: string): string[] {
  const out: string[] = [];
  const walk = (parts: Segment[]): string => {
    let s = '';
    for (const p of parts) {
      if (typeof p === 'string') {
        s += p;
        continue;
      }
      const inner = walk(p.parts);
      if (!p.section) out.push(inner.trim());
      s += 'x';
    }
    return s;
  };
  walk(segmentsOf(text));
  return out;
}
