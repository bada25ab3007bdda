import { compileGoRegex, type DslValue, toDslString } from '../dsl/dsl-functions.ts';
import { interpolate } from '../dsl/dsl-interpolate.ts';
import { type CompiledDsl, compileDsl } from '../dsl/dsl-interpreter.ts';
import { OperatorCompileError, type OperatorEvent, partAsString, readPart } from '../operator-types.ts';
import { compileXPath, type XPathQuery } from '../xpath.ts';

interface MatcherBase {
  name?: string;
  part?: string;
  condition?: 'and' | 'or';
  negative?: boolean;
  internal?: boolean;
  'case-insensitive'?: boolean;
  'match-all'?: boolean;
}

/** Matchers as written in a template: a discriminated union on `type`. */
export type MatcherDef =
  | (MatcherBase & { type: 'word'; words: string[]; encoding?: string })
  | (MatcherBase & { type: 'regex'; regex: string[] })
  | (MatcherBase & { type: 'status'; status: number[] })
  | (MatcherBase & { type: 'size'; size: number[] })
  | (MatcherBase & { type: 'binary'; binary: string[] })
  | (MatcherBase & { type: 'dsl'; dsl: string[] })
  | (MatcherBase & { type: 'xpath'; xpath: string[] });

export interface MatchResult {
  matched: boolean;
  /** The words/regex matches that made it match (for evidence and `match-all`). */
  values: string[];
}

export interface CompiledMatcher {
  name?: string;
  type: MatcherDef['type'];
  internal: boolean;
  match(event: OperatorEvent): MatchResult;
}

const NOTHING: string[] = Object.freeze([]) as unknown as string[];
// Results without values are shared (frozen): matchers run on every response of every template.
const HIT: MatchResult = Object.freeze({ matched: true, values: NOTHING });
const MISS: MatchResult = Object.freeze({ matched: false, values: NOTHING });

/** The result with `values` when there are any. */
function result(matched: boolean, values?: string[]): MatchResult {
  if (values !== undefined && values.length > 0) return { matched, values };
  return matched ? HIT : MISS;
}

/** Every test run (none skipped), then `and`/`or` over them. */
function combineEach<T>(items: readonly T[], condition: 'and' | 'or', test: (item: T) => boolean): boolean {
  let all = items.length > 0;
  let any = false;
  for (let i = 0; i < items.length; i++) {
    if (test(items[i] as T)) any = true;
    else all = false;
  }
  return condition === 'and' ? all : any;
}

function partBytes(event: OperatorEvent, part: string | undefined): Buffer {
  const name = part ?? event.defaultPart;
  const raw = event.bytes?.[name];
  if (raw) return raw;
  return Buffer.from(partAsString(readPart(event, part)), 'latin1');
}

export function compileMatcher(def: MatcherDef, field = 'matchers'): CompiledMatcher {
  const condition = def.condition ?? 'or';
  const negative = def.negative === true;
  const ci = def['case-insensitive'] === true;
  const matchAll = def['match-all'] === true;
  const wrap = (fn: (event: OperatorEvent) => MatchResult): CompiledMatcher => ({
    ...(def.name !== undefined ? { name: def.name } : {}),
    type: def.type,
    internal: def.internal === true,
    match: (event) => {
      const r = fn(event);
      return negative ? (r.matched ? MISS : result(true, r.values)) : r;
    },
  });
  switch (def.type) {
    case 'word': {
      if (!Array.isArray(def.words)) throw new OperatorCompileError(`${field}.words`, 'no words');
      // nuclei loads a word matcher without words; it never matches.
      if (def.words.length === 0) return wrap(() => MISS);
      const words = def.words.map((w) => {
        const s = String(w);
        return def.encoding === 'hex' ? Buffer.from(s, 'hex').toString('latin1') : s;
      });
      const dynamic = words.map((w) => w.includes('{{'));
      const lowered = words.map((w) => w.toLowerCase());
      // Every word found (a matching response, most often): the result is the same each time,
      // made once (its list is read, never written to: see runMatchers).
      const everyWord: MatchResult | undefined = dynamic.includes(true)
        ? undefined
        : Object.freeze({ matched: true, values: Object.freeze(ci ? lowered : words) as string[] });
      return wrap((event) => {
        let text = partAsString(readPart(event, def.part));
        if (ci) text = text.toLowerCase();
        let found: string[] | undefined;
        // Every word is tried (all hits are reported); `and` needs all, `or` one.
        let all = true;
        let any = false;
        for (let i = 0; i < words.length; i++) {
          let word: string;
          if (dynamic[i]) {
            word = interpolate(words[i] as string, event.values).text;
            if (ci) word = word.toLowerCase();
          } else word = ci ? (lowered[i] as string) : (words[i] as string);
          if (text.includes(word)) {
            // A list made at one (an empty list's first push allocates room for sixteen).
            if (found) found.push(word);
            else found = [word];
            any = true;
          } else all = false;
        }
        if (all && everyWord) return everyWord;
        const matched = condition === 'and' ? all : any;
        return result(matched, matched || matchAll ? found : undefined);
      });
    }
    case 'regex': {
      if (!Array.isArray(def.regex) || def.regex.length === 0)
        throw new OperatorCompileError(`${field}.regex`, 'no regex');
      const res = def.regex.map((r, i) => {
        try {
          return compileGoRegex(String(r), ci ? 'i' : '');
        } catch (err) {
          throw new OperatorCompileError(`${field}.regex[${i}]`, `invalid regex: ${(err as Error).message}`);
        }
      });
      return wrap((event) => {
        const text = partAsString(readPart(event, def.part));
        const found: string[] = [];
        const matched = combineEach(res, condition, (re) => {
          if (matchAll) {
            const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
            const all = [...text.matchAll(g)].map((m) => m[0]);
            found.push(...all);
            return all.length > 0;
          }
          const m = re.exec(text);
          if (m) found.push(m[0]);
          return m !== null;
        });
        return result(matched, matched ? found : undefined);
      });
    }
    case 'status': {
      const codes = (def.status ?? []).map(Number);
      if (codes.length === 0 || codes.some((c) => !Number.isInteger(c)))
        throw new OperatorCompileError(`${field}.status`, 'status must be a list of integers');
      return wrap((event) => {
        const v = readPart(event, 'status_code');
        const code = Number(v);
        return codes.includes(code) ? HIT : MISS;
      });
    }
    case 'size': {
      const sizes = (def.size ?? []).map(Number);
      if (sizes.length === 0 || sizes.some((c) => !Number.isFinite(c)))
        throw new OperatorCompileError(`${field}.size`, 'size must be a list of numbers');
      return wrap((event) => {
        const v = readPart(event, def.part === undefined ? 'content_length' : def.part);
        const n = typeof v === 'number' ? v : Buffer.byteLength(partAsString(v));
        return sizes.includes(n) ? HIT : MISS;
      });
    }
    case 'binary': {
      if (!Array.isArray(def.binary) || def.binary.length === 0)
        throw new OperatorCompileError(`${field}.binary`, 'no binary');
      const needles = def.binary.map((h, i) => {
        const hex = String(h).replace(/\s+/g, '');
        if (!/^([0-9a-fA-F]{2})+$/.test(hex))
          throw new OperatorCompileError(`${field}.binary[${i}]`, 'not a hex string');
        return Buffer.from(hex, 'hex');
      });
      return wrap((event) => {
        const bytes = partBytes(event, def.part);
        const found: string[] = [];
        const matched = combineEach(needles, condition, (n) => {
          const hit = bytes.includes(n);
          if (hit) found.push(n.toString('hex'));
          return hit;
        });
        return result(matched, matched ? found : undefined);
      });
    }
    case 'dsl': {
      if (!Array.isArray(def.dsl) || def.dsl.length === 0)
        throw new OperatorCompileError(`${field}.dsl`, 'no dsl');
      const exprs: CompiledDsl[] = def.dsl.map((d, i) => {
        try {
          return compileDsl(String(d));
        } catch (err) {
          throw new OperatorCompileError(`${field}.dsl[${i}]`, (err as Error).message);
        }
      });
      return wrap((event) => {
        return combineEach(exprs, condition, (e) => e.test(event.values)) ? HIT : MISS;
      });
    }
    case 'xpath': {
      if (!Array.isArray(def.xpath) || def.xpath.length === 0)
        throw new OperatorCompileError(`${field}.xpath`, 'no xpath');
      const queries: XPathQuery[] = def.xpath.map((x, i) => {
        try {
          return compileXPath(String(x));
        } catch (err) {
          throw new OperatorCompileError(`${field}.xpath[${i}]`, (err as Error).message);
        }
      });
      return wrap((event) => {
        const text = partAsString(readPart(event, def.part));
        return combineEach(queries, condition, (q) => q.select(text).length > 0) ? HIT : MISS;
      });
    }
    default: {
      const t: string = (def as { type: string }).type;
      throw new OperatorCompileError(`${field}.type`, `unknown matcher type '${t}'`);
    }
  }
}

export interface MatchersOutcome {
  matched: boolean;
  /** Names of the (non-internal) matchers that matched. */
  names: string[];
  values: string[];
}

const NO_MATCH: MatchersOutcome = Object.freeze({ matched: false, names: NOTHING, values: NOTHING });

/**
 * Applies `matchers-condition` (default `or`) over compiled matchers. Per response: the lists
 * are created only when something goes in them (a shared empty one otherwise, never written to);
 * the outcome's values may be a matcher's own list (read, never written to).
 */
export function runMatchers(
  matchers: CompiledMatcher[],
  condition: 'and' | 'or',
  event: OperatorEvent,
): MatchersOutcome {
  let names: string[] | undefined;
  let values: string[] | undefined;
  let any = false;
  for (let i = 0; i < matchers.length; i++) {
    const m = matchers[i] as CompiledMatcher;
    const r = m.match(event);
    if (r.matched) {
      any = true;
      if (m.name && !m.internal) {
        names ??= [];
        names.push(m.name);
      }
      // A matcher's values are its own list, made for this response: the first is taken as it is.
      if (r.values.length > 0) values = values === undefined ? r.values : values.concat(r.values);
    } else if (condition === 'and') return NO_MATCH;
  }
  const matched = condition === 'and' ? matchers.length > 0 : any;
  if (!matched) return NO_MATCH;
  return { matched, names: names ?? NOTHING, values: values ?? NOTHING };
}

export type { DslValue };
export { toDslString };
