/**
 * The conformance suite's reading of a template, shared by its generator (conformance-synth.ts:
 * a response the matchers accept, a near miss they reject) and its oracle (conformance-oracle.ts:
 * would nuclei fire), all written from nuclei's documented semantics and independent of the
 * engine's operators. Only the matcher features understood here are used; templates with others
 * are left out of the sample (counted by reason), never guessed.
 */
import { type DslNode, parseDsl } from '../src/operators/dsl/dsl-parser.ts';

export interface SynthResponse {
  status: number;
  /** Header pairs as the server sends them (its spelling). */
  headers: [string, string][];
  body: string;
}

export type Part = string;

export interface WordMatcher {
  type: 'word';
  part: Part;
  words: string[];
  condition: 'and' | 'or';
  negative: boolean;
  caseInsensitive: boolean;
}
export interface RegexMatcher {
  type: 'regex';
  part: Part;
  sources: string[];
  regexes: RegExp[];
  condition: 'and' | 'or';
  negative: boolean;
}
export interface StatusMatcher {
  type: 'status';
  status: number[];
  negative: boolean;
}
export interface DslMatcher {
  type: 'dsl';
  exprs: DslNode[];
  condition: 'and' | 'or';
  negative: boolean;
}
export type Matcher = WordMatcher | RegexMatcher | StatusMatcher | DslMatcher;

export interface MatcherSpec {
  id: string;
  condition: 'and' | 'or';
  matchers: Matcher[];
}

export type Outcome<T> = { ok: T } | { skip: string };

const TARGET_VARS = new Set(['BaseURL', 'RootURL', 'Hostname', 'Host', 'Port', 'Path', 'Scheme', 'FQDN']);
export const BODY_PARTS = new Set(['body', 'all', 'raw', 'response']);
export const HEADER_PARTS = new Set(['header', 'all_headers']);
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
