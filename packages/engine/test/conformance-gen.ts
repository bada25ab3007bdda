/**
 * The conformance suite's generator and oracle, written from nuclei's documented semantics and
 * independent of the engine's operators: it reads a template's YAML, builds an HTTP response
 * that its matchers accept (and a near miss they reject), and decides whether nuclei would
 * fire on a response. Only the matcher features it understands are used; templates with
 * others are left out of the sample (counted by reason), never guessed.
 */
import http from 'node:http';
import { type DslNode, parseDsl } from '../src/operators/dsl/dsl-parser.ts';

export interface SynthResponse {
  status: number;
  /** Header pairs as the server sends them (its spelling). */
  headers: [string, string][];
  body: string;
}

type Part = string;

interface WordMatcher {
  type: 'word';
  part: Part;
  words: string[];
  condition: 'and' | 'or';
  negative: boolean;
  caseInsensitive: boolean;
}
interface RegexMatcher {
  type: 'regex';
  part: Part;
  sources: string[];
  regexes: RegExp[];
  condition: 'and' | 'or';
  negative: boolean;
}
interface StatusMatcher {
  type: 'status';
  status: number[];
  negative: boolean;
}
interface DslMatcher {
  type: 'dsl';
  exprs: DslNode[];
  condition: 'and' | 'or';
  negative: boolean;
}
type Matcher = WordMatcher | RegexMatcher | StatusMatcher | DslMatcher;

export interface MatcherSpec {
  id: string;
  condition: 'and' | 'or';
  matchers: Matcher[];
}

export type Outcome<T> = { ok: T } | { skip: string };

const TARGET_VARS = new Set(['BaseURL', 'RootURL', 'Hostname', 'Host', 'Port', 'Path', 'Scheme', 'FQDN']);
const BODY_PARTS = new Set(['body', 'all', 'raw', 'response']);
const HEADER_PARTS = new Set(['header', 'all_headers']);
const MAX_SPECS = 4;

/** The template's single http block as the suite can use it, or why not. */
export function readSpec(doc: Record<string, unknown>): Outcome<MatcherSpec> {
  const id = String(doc.id ?? '');
  const blocks = doc.http ?? doc.requests;
  if (!Array.isArray(blocks) || blocks.length !== 1) return { skip: 'not exactly one http block' };
  for (const other of ['dns', 'tcp', 'network', 'ssl', 'headless', 'code', 'javascript', 'file', 'flow'])
    if (doc[other] !== undefined) return { skip: `uses ${other}` };
  if (doc.variables !== undefined) return { skip: 'template variables' };
  const b = blocks[0] as Record<string, unknown>;
  for (const key of ['payloads', 'req-condition', 'race', 'pipeline', 'fuzzing', 'threads', 'max-size'])
    if (b[key] !== undefined) return { skip: `uses ${key}` };
  if (b.redirects === true || b['host-redirects'] === true) return { skip: 'follows redirects' };
  const specs = [...((b.path as unknown[]) ?? []), ...((b.raw as unknown[]) ?? [])].map(String);
  if (specs.length === 0) return { skip: 'no path or raw request' };
  if (specs.length > MAX_SPECS) return { skip: `more than ${MAX_SPECS} requests` };
  const requestText = JSON.stringify([specs, b.headers ?? {}, b.body ?? '']);
  for (const m of requestText.matchAll(/\{\{([^{}]*)\}\}/g))
    if (!TARGET_VARS.has((m[1] as string).trim())) return { skip: 'request placeholders beyond the target' };
  for (const s of specs) {
    const line = s.trimStart().split('\n')[0] ?? '';
    if (s.includes('@') && /^\s*@/m.test(s)) return { skip: 'raw annotations' };
    if (!/^\{\{(BaseURL|RootURL)\}\}/.test(s) && !/^[A-Z]+ \/\S*( HTTP\/1\.[01])?$/.test(line.trim()))
      return { skip: 'request target other than the input' };
  }
  if (b.extractors !== undefined && specs.length > 1) return { skip: 'extractors feeding later requests' };
  const raw = b.matchers;
  if (!Array.isArray(raw) || raw.length === 0) return { skip: 'no matchers' };
  const matchers: Matcher[] = [];
  for (const m of raw as Record<string, unknown>[]) {
    const r = readMatcher(m);
    if ('skip' in r) return r;
    matchers.push(r.ok);
  }
  const condition = b['matchers-condition'] === 'and' ? 'and' : 'or';
  return { ok: { id, condition, matchers } };
}

function readMatcher(m: Record<string, unknown>): Outcome<Matcher> {
  if (m.encoding !== undefined || m['match-all'] !== undefined) return { skip: 'matcher encoding/match-all' };
  const negative = m.negative === true;
  const condition = m.condition === 'and' ? 'and' : 'or';
  const part = String(m.part ?? 'body');
  if (part.startsWith('interactsh')) return { skip: 'out-of-band (interactsh) part' };
  const known = BODY_PARTS.has(part) || HEADER_PARTS.has(part) || /^[a-z][a-z0-9_]*$/.test(part);
  if (!known) return { skip: `matcher part ${part}` };
  const hasBraces = (xs: unknown[]) => xs.some((x) => String(x).includes('{{'));
  switch (m.type) {
    case 'word': {
      const words = ((m.words as unknown[]) ?? []).map(String);
      if (words.length === 0 || hasBraces(words)) return { skip: 'word matcher with placeholders' };
      if (
        part !== 'body' &&
        !BODY_PARTS.has(part) &&
        !HEADER_PARTS.has(part) &&
        words.some((w) => /[\r\n]/.test(w))
      )
        return { skip: 'multi-line header word' };
      return {
        ok: {
          type: 'word',
          part,
          words,
          condition,
          negative,
          caseInsensitive: m['case-insensitive'] === true,
        },
      };
    }
    case 'regex': {
      const sources = ((m.regex as unknown[]) ?? []).map(String);
      if (sources.length === 0 || hasBraces(sources)) return { skip: 'regex matcher with placeholders' };
      const regexes: RegExp[] = [];
      for (const s of sources) {
        const re = goRegex(s);
        if (!re) return { skip: 'regex syntax outside the generator' };
        regexes.push(re);
      }
      return { ok: { type: 'regex', part, sources, regexes, condition, negative } };
    }
    case 'status': {
      const status = ((m.status as unknown[]) ?? []).map(Number).filter((n) => Number.isInteger(n));
      if (status.length === 0) return { skip: 'status matcher without codes' };
      return { ok: { type: 'status', status, negative } };
    }
    case 'dsl': {
      const exprs: DslNode[] = [];
      for (const d of ((m.dsl as unknown[]) ?? []).map(String)) {
        if (d.includes('{{')) return { skip: 'dsl with placeholders' };
        let node: DslNode;
        try {
          node = parseDsl(d);
        } catch {
          return { skip: 'dsl the suite cannot parse' };
        }
        const bad = unsupportedDsl(node);
        if (bad) return { skip: `dsl ${bad}` };
        exprs.push(node);
      }
      if (exprs.length === 0) return { skip: 'dsl matcher without expressions' };
      return { ok: { type: 'dsl', exprs, condition, negative } };
    }
    default:
      return { skip: `matcher type ${String(m.type)}` };
  }
}

/** A Go regex the suite can both generate for and evaluate, as a JS RegExp; else undefined. */
export function goRegex(source: string): RegExp | undefined {
  let p = source;
  let flags = '';
  const inline = /^\(\?([ims]+)\)/.exec(p);
  if (inline) {
    flags = [...new Set(inline[1])].join('');
    p = p.slice(inline[0].length);
  }
  p = p.replace(/\(\?P</g, '(?<');
  if (/\(\?(?!:|<[A-Za-z])/.test(p) || /\\[AzQEpPCbB]|\[\[:|\\[1-9]/.test(p)) return undefined;
  try {
    return new RegExp(p, flags);
  } catch {
    return undefined;
  }
}

// ---------- DSL subset ----------

const DSL_VARS =
  /^(body|header|all_headers|raw|response|status_code|content_length|content_type|[a-z][a-z0-9_]*)$/;
const DSL_CALLS = new Set([
  'contains',
  'contains_any',
  'contains_all',
  'tolower',
  'to_lower',
  'toupper',
  'to_upper',
  'regex',
  'len',
  'starts_with',
  'startswith',
  'ends_with',
  'endswith',
]);
const DSL_OPS = new Set(['&&', '||', '==', '!=', '<', '>', '<=', '>=']);

// Variables that are not response parts (the target, the request, timings).
const NOT_RESPONSE_VARS = new Set([
  'host',
  'hostname',
  'matched',
  'url',
  'duration',
  'request',
  'path',
  'port',
  'scheme',
  'ip',
  'title',
  'fqdn',
  'baseurl',
  'rooturl',
  'template_id',
  'type',
]);

function unsupportedDsl(node: DslNode): string | undefined {
  switch (node.type) {
    case 'literal':
      return undefined;
    case 'var':
      if (node.name.startsWith('interactsh')) return 'out-of-band (interactsh) variable';
      return DSL_VARS.test(node.name) && !/_\d+$/.test(node.name) && !NOT_RESPONSE_VARS.has(node.name)
        ? undefined
        : `variable ${node.name}`;
    case 'call':
      if (!DSL_CALLS.has(node.name)) return `function ${node.name}`;
      if (node.name === 'regex' && !(node.args[0]?.type === 'literal' && goRegex(String(node.args[0].value))))
        return 'regex outside the generator';
      for (const a of node.args) {
        const bad = unsupportedDsl(a);
        if (bad) return bad;
      }
      return undefined;
    case 'unary':
      return node.op === '!' ? unsupportedDsl(node.arg) : `operator ${node.op}`;
    case 'binary':
      return DSL_OPS.has(node.op)
        ? (unsupportedDsl(node.left) ?? unsupportedDsl(node.right))
        : `operator ${node.op}`;
    default:
      return `node ${node.type}`;
  }
}

// ---------- nuclei's view of a response ----------

/** Go's CanonicalMIMEHeaderKey: how nuclei's responses spell header names. */
function canonical(name: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return name;
  return name
    .toLowerCase()
    .split('-')
    .map((w) => (w ? (w[0] as string).toUpperCase() + w.slice(1) : w))
    .join('-');
}

export const KEEP_ALIVE_S = 30;

/** Headers every answer of the suite's server carries besides the synthesized ones. */
export function wireHeaders(r: SynthResponse): [string, string][] {
  return [
    ...r.headers,
    ['Content-Length', String(Buffer.byteLength(r.body))],
    ['Connection', 'keep-alive'],
    ['Keep-Alive', `timeout=${KEEP_ALIVE_S}`],
  ];
}

type View = Record<string, string | number>;

/** The parts nuclei's http protocol exposes for a response. */
export function nucleiView(r: SynthResponse): View {
  const reason = http.STATUS_CODES[r.status] ?? '';
  let header = `HTTP/1.1 ${r.status}${reason ? ` ${reason}` : ''}\r\n`;
  const view: View = {};
  for (const [name, value] of wireHeaders(r)) {
    header += `${canonical(name)}: ${value.trim()}\r\n`;
    const key = name.toLowerCase().replace(/-/g, '_');
    view[key] = view[key] === undefined ? value.trim() : `${view[key]}\n${value.trim()}`;
  }
  view.body = r.body;
  view.header = header;
  view.all_headers = header;
  view.raw = `${header}\r\n${r.body}`;
  view.response = view.raw;
  view.all = view.raw;
  view.status_code = r.status;
  view.content_length = Buffer.byteLength(r.body);
  view.content_type ??= '';
  return view;
}

function partText(view: View, part: Part): string {
  const v = view[part] ?? view[part.toLowerCase().replace(/-/g, '_')];
  return v === undefined ? '' : String(v);
}

/** Whether nuclei fires on this response (the template's matchers and condition). */
export function nucleiFires(spec: MatcherSpec, r: SynthResponse): boolean {
  const view = nucleiView(r);
  const results = spec.matchers.map((m) => matcherFires(m, view));
  return spec.condition === 'and' ? results.every(Boolean) : results.some(Boolean);
}

function combine(condition: 'and' | 'or', xs: boolean[]): boolean {
  return condition === 'and' ? xs.every(Boolean) : xs.some(Boolean);
}

function matcherFires(m: Matcher, view: View): boolean {
  let hit: boolean;
  switch (m.type) {
    case 'word': {
      const text = m.caseInsensitive ? partText(view, m.part).toLowerCase() : partText(view, m.part);
      hit = combine(
        m.condition,
        m.words.map((w) => text.includes(m.caseInsensitive ? w.toLowerCase() : w)),
      );
      break;
    }
    case 'regex': {
      const text = partText(view, m.part);
      hit = combine(
        m.condition,
        m.regexes.map((re) => re.test(text)),
      );
      break;
    }
    case 'status':
      hit = m.status.includes(Number(view.status_code));
      break;
    case 'dsl':
      hit = combine(
        m.condition,
        m.exprs.map((e) => {
          try {
            return truthy(evalDsl(e, view));
          } catch (err) {
            if (err instanceof MissingVariable) return false;
            throw err;
          }
        }),
      );
      break;
  }
  return m.negative ? !hit : hit;
}

type Val = string | number | boolean;

/** nuclei's DSL fails on a variable the response does not have, and the matcher is false. */
class MissingVariable extends Error {}

function truthy(v: Val): boolean {
  return (
    v === true || (typeof v === 'number' && v !== 0) || (typeof v === 'string' && v !== '' && v !== 'false')
  );
}

function evalDsl(node: DslNode, view: View): Val {
  switch (node.type) {
    case 'literal':
      return node.value === null ? '' : node.value;
    case 'var': {
      const v = view[node.name];
      if (v === undefined) throw new MissingVariable(node.name);
      return v;
    }
    case 'unary':
      return !truthy(evalDsl(node.arg, view));
    case 'binary': {
      if (node.op === '&&') return truthy(evalDsl(node.left, view)) && truthy(evalDsl(node.right, view));
      if (node.op === '||') return truthy(evalDsl(node.left, view)) || truthy(evalDsl(node.right, view));
      const l = evalDsl(node.left, view);
      const r = evalDsl(node.right, view);
      const numeric = typeof l === 'number' || typeof r === 'number';
      const a = numeric ? Number(l) : String(l);
      const b = numeric ? Number(r) : String(r);
      switch (node.op) {
        case '==':
          return a === b;
        case '!=':
          return a !== b;
        case '<':
          return a < b;
        case '>':
          return a > b;
        case '<=':
          return a <= b;
        default:
          return a >= b;
      }
    }
    case 'call': {
      const args = node.args.map((a) => evalDsl(a, view));
      const s = (i: number) => String(args[i] ?? '');
      switch (node.name) {
        case 'contains':
          return s(0).includes(s(1));
        case 'contains_any':
          return args.slice(1).some((x) => s(0).includes(String(x)));
        case 'contains_all':
          return args.slice(1).every((x) => s(0).includes(String(x)));
        case 'tolower':
        case 'to_lower':
          return s(0).toLowerCase();
        case 'toupper':
        case 'to_upper':
          return s(0).toUpperCase();
        case 'regex':
          return (goRegex(s(0)) as RegExp).test(s(1));
        case 'len':
          return s(0).length;
        case 'starts_with':
        case 'startswith':
          return args.slice(1).some((x) => s(0).startsWith(String(x)));
        default:
          return args.slice(1).some((x) => s(0).endsWith(String(x)));
      }
    }
    default:
      return '';
  }
}

// ---------- generating a response ----------

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
