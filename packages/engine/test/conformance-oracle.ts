/** The conformance suite's oracle: whether nuclei would fire on a response, from nuclei's documented semantics (not from the engine's operators). */
import http from 'node:http';
import type { DslNode } from '../src/operators/dsl/dsl-parser.ts';
import {
  goRegex,
  type Matcher,
  type MatcherSpec,
  type Part,
  type SynthResponse,
} from './conformance-spec.ts';

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
