/** The conformance suite's generator: a response a template's matchers accept, a near miss they reject, and a 404-only control. */
import type { DslNode } from '../src/operators/dsl/dsl-parser.ts';
import { nucleiFires } from './conformance-oracle.ts';
import {
  BODY_PARTS,
  goRegex,
  HEADER_PARTS,
  type Matcher,
  type MatcherSpec,
  type Outcome,
  type Part,
  type SynthResponse,
} from './conformance-spec.ts';

/** Text that the regex matches, for the common subset of regex syntax (verified afterwards). */
export function sampleFor(re: RegExp): string | undefined {
  const src = re.source;
  let i = 0;
  function alternation(): string {
    const first = sequence();
    while (src[i] === '|') {
      i++;
      sequence();
    }
    return first;
  }
  function sequence(): string {
    let out = '';
    while (i < src.length && src[i] !== '|' && src[i] !== ')') {
      const atomText = atom();
      out += quantified(atomText);
    }
    return out;
  }
  function quantified(text: string): string {
    const c = src[i];
    if (c === '*' || c === '?') {
      i++;
      if (src[i] === '?' || src[i] === '+') i++;
      return '';
    }
    if (c === '+') {
      i++;
      if (src[i] === '?' || src[i] === '+') i++;
      return text;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,\d*)?\}\??/.exec(src.slice(i));
      if (m) {
        i += m[0].length;
        return text.repeat(Number(m[1]));
      }
    }
    return text;
  }
  function atom(): string {
    const c = src[i] as string;
    if (c === '(') {
      i++;
      if (src.startsWith('?:', i)) i += 2;
      else if (src.startsWith('?<', i)) i = src.indexOf('>', i) + 1;
      const inner = alternation();
      if (src[i] !== ')') throw new Error('unbalanced');
      i++;
      return inner;
    }
    if (c === '[') return charClass();
    if (c === '\\') return escaped();
    if (c === '^' || c === '$') {
      i++;
      return '';
    }
    if (c === '.') {
      i++;
      return 'a';
    }
    i++;
    return c;
  }
  function escaped(): string {
    const c = src[i + 1] as string;
    i += 2;
    switch (c) {
      case 'd':
        return '1';
      case 'w':
        return 'a';
      case 's':
        return ' ';
      case 'D':
      case 'W':
      case 'S':
        return c === 'S' ? 'a' : '-';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'x': {
        const hex = src.slice(i, i + 2);
        i += 2;
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
      default:
        return c;
    }
  }
  function charClass(): string {
    const end = classEnd(i);
    const body = src.slice(i + 1, end);
    i = end + 1;
    const cls = new RegExp(`[${body}]`, re.flags.replace(/[gy]/g, ''));
    for (const candidate of 'a1A_-. /:=x0') if (cls.test(candidate)) return candidate;
    for (let code = 33; code < 127; code++)
      if (cls.test(String.fromCharCode(code))) return String.fromCharCode(code);
    throw new Error('empty class');
  }
  function classEnd(from: number): number {
    let j = from + 1;
    if (src[j] === '^') j++;
    if (src[j] === ']') j++;
    for (; j < src.length; j++) {
      if (src[j] === '\\') j++;
      else if (src[j] === ']') return j;
    }
    throw new Error('unterminated class');
  }
  try {
    const text = alternation();
    if (i !== src.length) return undefined;
    return re.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Adds text to a part of a response under construction. */
class Draft {
  status: number | undefined;
  readonly body: string[] = [];
  readonly headers: [string, string][] = [];
  private filler = 0;

  add(part: Part, text: string): boolean {
    if (BODY_PARTS.has(part)) {
      this.body.push(text);
      return true;
    }
    if (/[\r\n]/.test(text)) return false;
    if (HEADER_PARTS.has(part)) {
      // `Name: value` words become that header, in the template's spelling.
      const m = /^([A-Za-z0-9-]+):[ \t]*(.*)$/.exec(text);
      if (m && (m[2] as string).trim() !== '') this.headers.push([m[1] as string, (m[2] as string).trim()]);
      else if (m) this.headers.push([m[1] as string, 'conformance']);
      else this.headers.push([`X-Conformance-${this.filler++}`, text.trim() || 'x']);
      return true;
    }
    // A named header part (`server`, `content_type`, `location`).
    const name = part
      .split('_')
      .map((w) => (w ? (w[0] as string).toUpperCase() + w.slice(1) : w))
      .join('-');
    const existing = this.headers.find(([n]) => n.toLowerCase() === name.toLowerCase());
    if (existing) existing[1] = `${existing[1]} ${text}`.trim();
    else this.headers.push([name, text]);
    return true;
  }

  /** Whether a named header part is present. */
  has(part: Part): boolean {
    const name = part.replace(/_/g, '-').toLowerCase();
    return this.headers.some(([n]) => n.toLowerCase() === name);
  }

  build(): SynthResponse {
    const headers = [...this.headers];
    if (!headers.some(([n]) => n.toLowerCase() === 'content-type'))
      headers.push(['Content-Type', 'text/html']);
    return { status: this.status ?? 200, headers, body: `${this.body.join('\n')}\n` };
  }
}

type Mutation = 'none' | 'break' | 'break-one';

/** Near-miss form of a word: one character doubled-and-split (`admin` → `ad-min`). */
function nearWord(w: string): string {
  if (w.length < 2) return '';
  const mid = Math.floor(w.length / 2);
  return `${w.slice(0, mid)}\u00a7${w.slice(mid)}`;
}

const STATUS_MISSES = [200, 404, 403, 500, 302, 401];

function emitMatcher(d: Draft, m: Matcher, mode: Mutation): boolean {
  if (m.negative) return true;
  switch (m.type) {
    case 'word': {
      const words = m.condition === 'and' || mode !== 'none' ? m.words : m.words.slice(0, 1);
      return words.every((w, k) => {
        const broken = mode === 'break' || (mode === 'break-one' && k === words.length - 1);
        return d.add(m.part, broken ? nearWord(w) : w);
      });
    }
    case 'regex': {
      const regexes = m.condition === 'and' ? m.regexes : m.regexes.slice(0, 1);
      return regexes.every((re, k) => {
        const broken = mode === 'break' || (mode === 'break-one' && k === regexes.length - 1);
        const sample = sampleFor(re);
        if (sample === undefined) return false;
        return broken ? true : d.add(m.part, sample);
      });
    }
    case 'status': {
      if (mode === 'none') d.status ??= m.status[0];
      else d.status = STATUS_MISSES.find((s) => !m.status.includes(s));
      return true;
    }
    case 'dsl': {
      if (mode !== 'none') return true;
      const exprs = m.condition === 'and' ? m.exprs : m.exprs.slice(0, 1);
      return exprs.every((e) => emitDsl(d, e));
    }
  }
}

function partOf(node: DslNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'var') return node.name;
  if (node.type === 'call' && /^to_?(lower|upper)$/.test(node.name)) return partOf(node.args[0]);
  return undefined;
}

const RESPONSE_VARS = new Set([
  'body',
  'header',
  'all_headers',
  'raw',
  'response',
  'status_code',
  'content_length',
]);

/** Named header parts the expression reads exist in the response (else nuclei's DSL fails). */
function ensureVariables(d: Draft, node: DslNode): void {
  if (node.type === 'var') {
    if (!RESPONSE_VARS.has(node.name) && !d.has(node.name)) d.add(node.name, 'conformance');
  } else if (node.type === 'call') for (const a of node.args) ensureVariables(d, a);
  else if (node.type === 'unary') ensureVariables(d, node.arg);
  else if (node.type === 'binary') {
    ensureVariables(d, node.left);
    ensureVariables(d, node.right);
  }
}

function emitDsl(d: Draft, node: DslNode): boolean {
  ensureVariables(d, node);
  switch (node.type) {
    case 'binary':
      if (node.op === '&&') return emitDsl(d, node.left) && emitDsl(d, node.right);
      if (node.op === '||') return emitDsl(d, node.left);
      if (node.op === '==' && node.left.type === 'var' && node.right.type === 'literal') {
        if (node.left.name === 'status_code') d.status = Number(node.right.value);
        else if (node.left.name !== 'content_length') return d.add(node.left.name, String(node.right.value));
      }
      return true;
    case 'call': {
      const part = partOf(node.args[0]) ?? 'body';
      const dslPart = part === 'all_headers' ? 'header' : part;
      const lits = node.args.slice(1).map((a) => (a.type === 'literal' ? String(a.value) : undefined));
      if (lits.some((l) => l === undefined)) return true;
      if (node.name === 'contains' || node.name === 'contains_all')
        return (lits as string[]).every((l) => d.add(dslPart, l));
      if (node.name === 'contains_any' || /^(starts|ends)_?with$/.test(node.name))
        return d.add(dslPart, lits[0] as string);
      if (node.name === 'regex') {
        const re = goRegex(String((node.args[0] as { value: unknown }).value)) as RegExp;
        const sample = sampleFor(re);
        const target = partOf(node.args[1]) ?? 'body';
        return sample !== undefined && d.add(target === 'all_headers' ? 'header' : target, sample);
      }
      return true;
    }
    default:
      return true;
  }
}

/** A response the template's matchers accept, per the oracle. */
export function positiveResponse(spec: MatcherSpec): Outcome<SynthResponse> {
  const d = new Draft();
  const emitted =
    spec.condition === 'and'
      ? spec.matchers.every((m) => emitMatcher(d, m, 'none'))
      : emitMatcher(d, spec.matchers.find((m) => !m.negative) ?? (spec.matchers[0] as Matcher), 'none');
  if (!emitted) return { skip: 'matcher text the generator cannot place' };
  const r = d.build();
  return nucleiFires(spec, r) ? { ok: r } : { skip: 'generated response does not match (generator)' };
}

/**
 * A response close to the positive one that the matchers reject: under `and`, one matcher
 * broken (its last word split, its status changed, its regex sample left out); under `or`,
 * all of them.
 */
export function nearMissResponse(spec: MatcherSpec): Outcome<SynthResponse> {
  const positives = spec.matchers.filter((m) => !m.negative);
  const attempts: Matcher[][] =
    spec.condition === 'and' ? [...positives].reverse().map((m) => [m]) : [positives];
  for (const broken of attempts) {
    const d = new Draft();
    const ok = spec.matchers.every((m) =>
      emitMatcher(d, m, broken.includes(m) ? (spec.condition === 'and' ? 'break-one' : 'break') : 'none'),
    );
    if (!ok) continue;
    const r = d.build();
    if (!nucleiFires(spec, r)) return { ok: r };
  }
  return { skip: 'no near miss the matchers reject' };
}

export const CONTROL_RESPONSE: SynthResponse = {
  status: 404,
  headers: [['Content-Type', 'text/html']],
  body: '<html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n',
};
