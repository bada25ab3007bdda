/**
 * The jq language as nuclei's json extractors use it (gojq semantics, every filter yields a
 * stream of values): paths (`.a.b`, `.a[0]`, `.a[]`, `.["k"]`, `.a[1:3]`, `..`, `?`), pipes,
 * `,`, parentheses, literals, array construction, `+ - * / %`, comparisons, `and`/`or`/`not`,
 * `//`, `if … then … elif … else … end` and the builtins the corpus calls (`select`,
 * `contains`, `to_entries`, `keys`, `length`, `tostring`, `capture`, `test`, `map`, …).
 * A tree walker over parsed JSON: nothing is ever evaluated as code.
 */

import { translateGoRegex } from '../go-regex.ts';

type Json = unknown;

export interface JsonQuery {
  source: string;
  run(input: Json): Json[];
}

type Node =
  | { t: 'identity' }
  | { t: 'recurse' }
  | { t: 'lit'; value: Json }
  | { t: 'field'; target: Node; name: Node; optional: boolean }
  | { t: 'iterate'; target: Node; optional: boolean }
  | { t: 'slice'; target: Node; from?: Node; to?: Node }
  | { t: 'pipe'; left: Node; right: Node }
  | { t: 'comma'; left: Node; right: Node }
  | { t: 'binary'; op: string; left: Node; right: Node }
  | { t: 'array'; body?: Node }
  | { t: 'object'; entries: [Node, Node][] }
  | { t: 'call'; name: string; args: Node[] }
  | { t: 'if'; cond: Node; then: Node; else?: Node }
  | { t: 'try'; body: Node };

class JqError extends Error {}

const TOKEN =
  /\s*(?:(\.\.)|("(?:[^"\\]|\\.)*")|(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(\.[A-Za-z_][\w]*)|([A-Za-z_][\w]*(?:::[A-Za-z_]\w*)?)|(\/\/|==|!=|<=|>=|\|=|[.[\]{}(),|:;?+\-*/%<>]))/y;

type Tok = { kind: 'dotdot' | 'str' | 'num' | 'dotname' | 'ident' | 'op' | 'eof'; text: string };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(src);
    if (!m) throw new JqError(`unexpected '${src.slice(at).trim().slice(0, 10)}'`);
    at = TOKEN.lastIndex;
    if (m[1]) out.push({ kind: 'dotdot', text: '..' });
    else if (m[2]) out.push({ kind: 'str', text: m[2] });
    else if (m[3]) out.push({ kind: 'num', text: m[3] });
    else if (m[4]) out.push({ kind: 'dotname', text: m[4].slice(1) });
    else if (m[5]) out.push({ kind: 'ident', text: m[5] });
    else out.push({ kind: 'op', text: m[6] as string });
  }
  out.push({ kind: 'eof', text: '' });
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok {
    return this.toks[this.i] as Tok;
  }
  private is(text: string): boolean {
    const t = this.peek();
    return (t.kind === 'op' || t.kind === 'ident') && t.text === text;
  }
  private eat(text: string): boolean {
    if (!this.is(text)) return false;
    this.i++;
    return true;
  }
  private expect(text: string): void {
    if (!this.eat(text)) throw new JqError(`expected '${text}'`);
  }

  parseAll(): Node {
    const n = this.pipe();
    if (this.peek().kind !== 'eof') throw new JqError(`unexpected '${this.peek().text}'`);
    return n;
  }

  pipe(): Node {
    const left = this.comma();
    if (this.eat('|')) return { t: 'pipe', left, right: this.pipe() };
    return left;
  }

  private comma(): Node {
    let left = this.alt();
    while (this.eat(',')) left = { t: 'comma', left, right: this.alt() };
    return left;
  }

  private alt(): Node {
    const left = this.or();
    if (this.eat('//')) return { t: 'binary', op: '//', left, right: this.alt() };
    return left;
  }

  private or(): Node {
    let left = this.and();
    while (this.eat('or')) left = { t: 'binary', op: 'or', left, right: this.and() };
    return left;
  }

  private and(): Node {
    let left = this.compare();
    while (this.eat('and')) left = { t: 'binary', op: 'and', left, right: this.compare() };
    return left;
  }

  private compare(): Node {
    const left = this.additive();
    for (const op of ['==', '!=', '<=', '>=', '<', '>'])
      if (this.eat(op)) return { t: 'binary', op, left, right: this.additive() };
    return left;
  }

  private additive(): Node {
    let left = this.multiplicative();
    while (this.is('+') || this.is('-')) {
      const op = this.toks[this.i++]?.text as string;
      left = { t: 'binary', op, left, right: this.multiplicative() };
    }
    return left;
  }

  private multiplicative(): Node {
    let left = this.postfix();
    while (this.is('*') || this.is('/') || this.is('%')) {
      const op = this.toks[this.i++]?.text as string;
      left = { t: 'binary', op, left, right: this.postfix() };
    }
    return left;
  }

  private suffixes(target: Node): Node {
    let node = target;
    while (true) {
      const t = this.peek();
      if (t.kind === 'dotname') {
        this.i++;
        node = { t: 'field', target: node, name: { t: 'lit', value: t.text }, optional: this.eat('?') };
      } else if (this.is('.') && this.toks[this.i + 1]?.kind === 'str') {
        this.i++;
        const name = JSON.parse(this.toks[this.i++]?.text as string) as string;
        node = { t: 'field', target: node, name: { t: 'lit', value: name }, optional: this.eat('?') };
      } else if (this.is('[') || (this.is('.') && this.toks[this.i + 1]?.text === '[')) {
        if (this.is('.')) this.i++;
        this.i++;
        if (this.eat(']')) {
          node = { t: 'iterate', target: node, optional: this.eat('?') };
          continue;
        }
        if (this.eat(':')) {
          const to = this.pipe();
          this.expect(']');
          node = { t: 'slice', target: node, to };
          continue;
        }
        const index = this.pipe();
        if (this.eat(':')) {
          const to = this.is(']') ? undefined : this.pipe();
          this.expect(']');
          node = { t: 'slice', target: node, from: index, ...(to ? { to } : {}) };
          continue;
        }
        this.expect(']');
        node = { t: 'field', target: node, name: index, optional: this.eat('?') };
      } else if (this.is('?')) {
        this.i++;
        node = { t: 'try', body: node };
      } else return node;
    }
  }

  private postfix(): Node {
    return this.suffixes(this.term());
  }

  private term(): Node {
    const t = this.peek();
    this.i++;
    switch (t.kind) {
      case 'dotdot':
        return { t: 'recurse' };
      case 'dotname':
        return {
          t: 'field',
          target: { t: 'identity' },
          name: { t: 'lit', value: t.text },
          optional: this.eat('?'),
        };
      case 'str':
        return { t: 'lit', value: JSON.parse(t.text) };
      case 'num':
        return { t: 'lit', value: Number(t.text) };
      case 'ident': {
        if (t.text === 'null') return { t: 'lit', value: null };
        if (t.text === 'true' || t.text === 'false') return { t: 'lit', value: t.text === 'true' };
        if (t.text === 'if') return this.ifRest();
        if (t.text === 'try') return { t: 'try', body: this.postfix() };
        const args: Node[] = [];
        if (this.eat('(')) {
          do args.push(this.pipe());
          while (this.eat(';'));
          this.expect(')');
        }
        return { t: 'call', name: t.text, args };
      }
      case 'op':
        if (t.text === '.') {
          if (this.peek().kind === 'str') {
            const name = JSON.parse(this.toks[this.i++]?.text as string) as string;
            return {
              t: 'field',
              target: { t: 'identity' },
              name: { t: 'lit', value: name },
              optional: this.eat('?'),
            };
          }
          return { t: 'identity' };
        }
        if (t.text === '(') {
          const inner = this.pipe();
          this.expect(')');
          return inner;
        }
        if (t.text === '[') {
          if (this.eat(']')) return { t: 'array' };
          const body = this.pipe();
          this.expect(']');
          return { t: 'array', body };
        }
        if (t.text === '{') return this.objectRest();
        if (t.text === '-')
          return { t: 'binary', op: '-', left: { t: 'lit', value: 0 }, right: this.postfix() };
        break;
      default:
    }
    throw new JqError(`unexpected '${t.text || 'end'}'`);
  }

  private ifRest(): Node {
    const cond = this.pipe();
    this.expect('then');
    const then = this.pipe();
    if (this.eat('elif')) return { t: 'if', cond, then, else: this.ifRest() };
    const otherwise = this.eat('else') ? this.pipe() : undefined;
    if (otherwise === undefined || !this.is('elif')) this.expect('end');
    return { t: 'if', cond, then, ...(otherwise ? { else: otherwise } : {}) };
  }

  private objectRest(): Node {
    const entries: [Node, Node][] = [];
    while (!this.is('}')) {
      const k = this.peek();
      this.i++;
      let key: Node;
      if (k.kind === 'ident' || k.kind === 'str')
        key = { t: 'lit', value: k.kind === 'str' ? JSON.parse(k.text) : k.text };
      else if (k.kind === 'op' && k.text === '(') {
        key = this.pipe();
        this.expect(')');
      } else throw new JqError('expected an object key');
      const value: Node = this.eat(':')
        ? this.alt()
        : { t: 'field', target: { t: 'identity' }, name: key, optional: false };
      entries.push([key, value]);
      if (!this.eat(',')) break;
    }
    this.expect('}');
    return { t: 'object', entries };
  }
}

const isObject = (v: Json): v is Record<string, Json> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const truthy = (v: Json): boolean => v !== null && v !== false && v !== undefined;

function typeOrder(v: Json): number {
  if (v === null || v === undefined) return 0;
  if (v === false) return 1;
  if (v === true) return 2;
  if (typeof v === 'number') return 3;
  if (typeof v === 'string') return 4;
  if (Array.isArray(v)) return 5;
  return 6;
}

function compare(a: Json, b: Json): number {
  const ta = typeOrder(a);
  const tb = typeOrder(b);
  if (ta !== tb) return ta - tb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function contains(a: Json, b: Json): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.includes(b);
  if (Array.isArray(a) && Array.isArray(b)) return b.every((x) => a.some((y) => contains(y, x)));
  if (isObject(a) && isObject(b)) return Object.entries(b).every(([k, v]) => k in a && contains(a[k], v));
  return compare(a, b) === 0;
}

function arith(op: string, a: Json, b: Json): Json {
  if (op === '+') {
    if (a === null) return b;
    if (b === null) return a;
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (typeof a === 'string' && typeof b === 'string') return a + b;
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (isObject(a) && isObject(b)) return { ...a, ...b };
    throw new JqError('cannot add these values');
  }
  if (op === '-' && Array.isArray(a) && Array.isArray(b))
    return a.filter((x) => !b.some((y) => compare(x, y) === 0));
  if (op === '/' && typeof a === 'string' && typeof b === 'string') return a.split(b);
  if (typeof a !== 'number' || typeof b !== 'number') throw new JqError(`cannot apply ${op} to these values`);
  if (op === '-') return a - b;
  if (op === '*') return a * b;
  if (op === '/') return a / b;
  return a % b;
}

/** jq regexes (Oniguruma) read like Go's for what templates write; flags `g`, `i`, `s`. */
function regexOf(pattern: Json, flags: Json): RegExp {
  const f = typeof flags === 'string' ? flags : '';
  return translateGoRegex(String(pattern), [...new Set(f.replace(/[^gis]/g, ''))].join(''));
}

function recurse(v: Json, out: Json[]): void {
  out.push(v);
  if (Array.isArray(v)) for (const x of v) recurse(x, out);
  else if (isObject(v)) for (const x of Object.values(v)) recurse(x, out);
}

const MAX_OUTPUTS = 100_000;

function evaluate(node: Node, input: Json): Json[] {
  switch (node.t) {
    case 'identity':
      return [input];
    case 'recurse': {
      const out: Json[] = [];
      recurse(input, out);
      return out;
    }
    case 'lit':
      return [node.value];
    case 'field':
      return evaluate(node.target, input).flatMap((v) =>
        evaluate(node.name, input).flatMap((key): Json[] => {
          if (v === null || v === undefined) return [null];
          if (typeof key === 'string' && isObject(v)) return [Object.hasOwn(v, key) ? v[key] : null];
          if (typeof key === 'number' && Array.isArray(v)) {
            const i = Math.floor(key < 0 ? v.length + key : key);
            return [v[i] ?? null];
          }
          if (node.optional) return [];
          throw new JqError(`cannot index ${Array.isArray(v) ? 'array' : typeof v} with ${typeof key}`);
        }),
      );
    case 'iterate':
      return evaluate(node.target, input).flatMap((v): Json[] => {
        if (Array.isArray(v)) return v;
        if (isObject(v)) return Object.values(v);
        if (node.optional) return [];
        throw new JqError(`cannot iterate over ${v === null ? 'null' : typeof v}`);
      });
    case 'slice':
      return evaluate(node.target, input).flatMap((v): Json[] => {
        if (v === null) return [null];
        if (typeof v !== 'string' && !Array.isArray(v)) throw new JqError('cannot slice this value');
        const from = node.from ? Number(evaluate(node.from, input)[0]) : 0;
        const to = node.to ? Number(evaluate(node.to, input)[0]) : v.length;
        return [v.slice(from, to)];
      });
    case 'pipe':
      return evaluate(node.left, input).flatMap((v) => evaluate(node.right, v));
    case 'comma':
      return [...evaluate(node.left, input), ...evaluate(node.right, input)];
    case 'array':
      return [node.body ? evaluate(node.body, input) : []];
    case 'object': {
      let objects: Record<string, Json>[] = [{}];
      for (const [k, v] of node.entries) {
        const next: Record<string, Json>[] = [];
        for (const o of objects)
          for (const key of evaluate(k, input))
            for (const value of evaluate(v, input)) next.push({ ...o, [String(key)]: value });
        objects = next;
      }
      return objects;
    }
    case 'if': {
      return evaluate(node.cond, input).flatMap((c) =>
        truthy(c) ? evaluate(node.then, input) : node.else ? evaluate(node.else, input) : [input],
      );
    }
    case 'try':
      try {
        return evaluate(node.body, input);
      } catch (err) {
        if (err instanceof JqError) return [];
        throw err;
      }
    case 'binary': {
      if (node.op === 'and' || node.op === 'or') {
        return evaluate(node.left, input).flatMap((l) => {
          if (node.op === 'and' && !truthy(l)) return [false];
          if (node.op === 'or' && truthy(l)) return [true];
          return evaluate(node.right, input).map(truthy);
        });
      }
      if (node.op === '//') {
        let left: Json[] = [];
        try {
          left = evaluate(node.left, input).filter(truthy);
        } catch (err) {
          if (!(err instanceof JqError)) throw err;
        }
        return left.length > 0 ? left : evaluate(node.right, input);
      }
      const out: Json[] = [];
      for (const r of evaluate(node.right, input))
        for (const l of evaluate(node.left, input)) {
          switch (node.op) {
            case '==':
              out.push(compare(l, r) === 0);
              break;
            case '!=':
              out.push(compare(l, r) !== 0);
              break;
            case '<':
              out.push(compare(l, r) < 0);
              break;
            case '<=':
              out.push(compare(l, r) <= 0);
              break;
            case '>':
              out.push(compare(l, r) > 0);
              break;
            case '>=':
              out.push(compare(l, r) >= 0);
              break;
            default:
              out.push(arith(node.op, l, r));
          }
          if (out.length > MAX_OUTPUTS) throw new JqError('too many results');
        }
      return out;
    }
    case 'call':
      return callBuiltin(node.name, node.args, input);
    default:
      throw new JqError('unknown filter');
  }
}

const ARITY: Record<string, number[]> = {
  empty: [0],
  not: [0],
  length: [0],
  keys: [0],
  keys_unsorted: [0],
  values: [0],
  to_entries: [0],
  from_entries: [0],
  tostring: [0],
  tonumber: [0],
  tojson: [0],
  fromjson: [0],
  type: [0],
  ascii_downcase: [0],
  ascii_upcase: [0],
  first: [0, 1],
  last: [0, 1],
  unique: [0],
  sort: [0],
  reverse: [0],
  add: [0],
  flatten: [0],
  min: [0],
  max: [0],
  ltrimstr: [1],
  rtrimstr: [1],
  startswith: [1],
  endswith: [1],
  select: [1],
  map: [1],
  map_values: [1],
  has: [1],
  contains: [1],
  inside: [1],
  split: [1, 2],
  join: [1],
  test: [1, 2],
  match: [1, 2],
  capture: [1, 2],
  sub: [2, 3],
  gsub: [2, 3],
  any: [0, 1],
  all: [0, 1],
  with_entries: [1],
  recurse: [0],
  splits: [1, 2],
  objects: [0],
  arrays: [0],
  strings: [0],
  numbers: [0],
  booleans: [0],
  nulls: [0],
  iterables: [0],
  scalars: [0],
};

/** `objects`, `strings`, … : the input when it has that type, else nothing. */
const TYPE_FILTERS: Record<string, (v: Json) => boolean> = {
  objects: (v) => isObject(v),
  arrays: (v) => Array.isArray(v),
  strings: (v) => typeof v === 'string',
  numbers: (v) => typeof v === 'number',
  booleans: (v) => typeof v === 'boolean',
  nulls: (v) => v === null,
  iterables: (v) => Array.isArray(v) || isObject(v),
  scalars: (v) => !Array.isArray(v) && !isObject(v),
};

function callBuiltin(name: string, args: Node[], input: Json): Json[] {
  const arg = (i: number): Json[] => evaluate(args[i] as Node, input);
  const one = (i: number): Json => arg(i)[0] ?? null;
  const str = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));
  const typeFilter = TYPE_FILTERS[name];
  if (typeFilter) return typeFilter(input) ? [input] : [];
  switch (name) {
    case 'empty':
      return [];
    case 'not':
      return [!truthy(input)];
    case 'length':
      if (Array.isArray(input) || typeof input === 'string') return [input.length];
      if (isObject(input)) return [Object.keys(input).length];
      if (typeof input === 'number') return [Math.abs(input)];
      return [0];
    case 'keys':
    case 'keys_unsorted':
      if (Array.isArray(input)) return [input.map((_x, i) => i)];
      if (isObject(input)) return [name === 'keys' ? Object.keys(input).sort() : Object.keys(input)];
      throw new JqError('keys needs an object or array');
    case 'values':
      return truthy(input) ? [input] : [];
    case 'to_entries':
      if (!isObject(input)) throw new JqError('to_entries needs an object');
      return [Object.entries(input).map(([key, value]) => ({ key, value }))];
    case 'from_entries':
      if (!Array.isArray(input)) throw new JqError('from_entries needs an array');
      return [
        Object.fromEntries(
          input.map((e) => {
            const o = isObject(e) ? e : {};
            return [
              str(o.key ?? o.k ?? o.name ?? o.Name ?? o.Key ?? null),
              o.value ?? o.v ?? o.Value ?? null,
            ];
          }),
        ),
      ];
    case 'with_entries':
      return callBuiltin('to_entries', [], input).flatMap((entries) =>
        evaluate({ t: 'call', name: 'map', args }, entries).flatMap((e) =>
          callBuiltin('from_entries', [], e),
        ),
      );
    case 'tostring':
      return [str(input)];
    case 'tonumber': {
      const n = typeof input === 'number' ? input : Number(input);
      if (Number.isNaN(n)) throw new JqError('cannot parse as a number');
      return [n];
    }
    case 'tojson':
      return [JSON.stringify(input)];
    case 'fromjson':
      try {
        return [JSON.parse(String(input))];
      } catch {
        throw new JqError('invalid JSON text');
      }
    case 'type':
      return [input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input];
    case 'ascii_downcase':
      return [String(input).toLowerCase()];
    case 'ascii_upcase':
      return [String(input).toUpperCase()];
    case 'first':
      return args.length ? arg(0).slice(0, 1) : Array.isArray(input) ? [input[0] ?? null] : [null];
    case 'last':
      return args.length
        ? arg(0).slice(-1)
        : Array.isArray(input)
          ? [input[input.length - 1] ?? null]
          : [null];
    case 'unique':
    case 'sort':
      if (!Array.isArray(input)) throw new JqError(`${name} needs an array`);
      return [
        [...input]
          .sort(compare)
          .filter((v, i, a) => name === 'sort' || i === 0 || compare(a[i - 1], v) !== 0),
      ];
    case 'reverse':
      return [
        Array.isArray(input)
          ? [...input].reverse()
          : typeof input === 'string'
            ? [...input].reverse().join('')
            : null,
      ];
    case 'add':
      return [Array.isArray(input) ? input.reduce((acc: Json, v) => arith('+', acc, v), null) : null];
    case 'flatten':
      return [Array.isArray(input) ? input.flat(Infinity) : null];
    case 'min':
    case 'max':
      if (!Array.isArray(input) || input.length === 0) return [null];
      return [[...input].sort(compare)[name === 'min' ? 0 : input.length - 1]];
    case 'ltrimstr':
      return [
        typeof input === 'string' && input.startsWith(String(one(0)))
          ? input.slice(String(one(0)).length)
          : input,
      ];
    case 'rtrimstr': {
      const s = String(one(0));
      return [typeof input === 'string' && s !== '' && input.endsWith(s) ? input.slice(0, -s.length) : input];
    }
    case 'startswith':
      return [String(input).startsWith(String(one(0)))];
    case 'endswith':
      return [String(input).endsWith(String(one(0)))];
    case 'select':
      return arg(0).some(truthy) ? [input] : [];
    case 'map':
    case 'map_values':
      if (Array.isArray(input)) return [input.flatMap((v) => evaluate(args[0] as Node, v))];
      if (isObject(input))
        return [
          name === 'map'
            ? Object.values(input).flatMap((v) => evaluate(args[0] as Node, v))
            : Object.fromEntries(
                Object.entries(input).map(([k, v]) => [k, evaluate(args[0] as Node, v)[0] ?? null]),
              ),
        ];
      throw new JqError(`${name} needs an array or object`);
    case 'has': {
      const k = one(0);
      if (isObject(input)) return [Object.hasOwn(input, String(k))];
      if (Array.isArray(input)) return [typeof k === 'number' && k >= 0 && k < input.length];
      throw new JqError('has needs an object or array');
    }
    case 'contains':
      return [contains(input, one(0))];
    case 'inside':
      return [contains(one(0), input)];
    case 'split':
      if (typeof input !== 'string') throw new JqError('split needs a string');
      return [args.length > 1 ? input.split(regexOf(one(0), one(1))) : input.split(String(one(0)))];
    case 'splits':
      return callBuiltin('split', args, input).flatMap((v) => (Array.isArray(v) ? v : []));
    case 'join':
      if (!Array.isArray(input)) throw new JqError('join needs an array');
      return [
        input
          .map((v) => (v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)))
          .join(String(one(0))),
      ];
    case 'test':
      return [regexOf(one(0), args.length > 1 ? one(1) : '').test(String(input))];
    case 'match':
    case 'capture': {
      const m = regexOf(one(0), args.length > 1 ? one(1) : '').exec(String(input));
      if (!m) return [];
      if (name === 'capture') return [{ ...(m.groups ?? {}) }];
      return [
        {
          offset: m.index,
          length: m[0].length,
          string: m[0],
          captures: m.slice(1).map((s) => ({ string: s ?? null })),
        },
      ];
    }
    case 'sub':
    case 'gsub': {
      const flags = `${args.length > 2 ? String(one(2)) : ''}${name === 'gsub' ? 'g' : ''}`;
      const replacements = arg(1);
      return [
        String(input).replace(regexOf(one(0), [...new Set(flags)].join('')), () =>
          str(replacements[0] ?? ''),
        ),
      ];
    }
    case 'any':
      return [(args.length ? arg(0) : Array.isArray(input) ? input : []).some(truthy)];
    case 'all':
      return [(args.length ? arg(0) : Array.isArray(input) ? input : []).every(truthy)];
    case 'recurse':
      return evaluate({ t: 'recurse' }, input);
    default:
      throw new JqError(`unknown function ${name}`);
  }
}

function checkCalls(node: Node): void {
  const visit = (n: Node): void => {
    if (n.t === 'call') {
      const arity = ARITY[n.name];
      if (!arity) throw new JqError(`unsupported jq function '${n.name}'`);
      if (!arity.includes(n.args.length)) throw new JqError(`${n.name}/${n.args.length} is not defined`);
    }
    for (const v of Object.values(n)) {
      if (Array.isArray(v)) for (const x of v) Array.isArray(x) ? x.forEach(visit) : visit(x as Node);
      else if (v && typeof v === 'object' && 't' in v) visit(v as Node);
    }
  };
  visit(node);
}

/** Compiles a jq filter; throws with the reason when it is outside what we evaluate. */
export function compileJsonQuery(source: string): JsonQuery {
  let ast: Node;
  try {
    ast = new Parser(tokenize(source)).parseAll();
    checkCalls(ast);
  } catch (err) {
    throw new Error(`unsupported jq expression '${source}': ${(err as Error).message}`);
  }
  return {
    source,
    run(input: Json): Json[] {
      try {
        return evaluate(ast, input);
      } catch (err) {
        if (err instanceof JqError || err instanceof RangeError || err instanceof SyntaxError) return [];
        throw err;
      }
    },
  };
}
