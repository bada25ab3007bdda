/** jq's evaluation: every filter yields a stream of values (gojq semantics); builtins by name. */

import { translateGoRegex } from '../go-regex.ts';
import { JqError, type Json, type Node } from './jq-parse.ts';

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

export function evaluate(node: Node, input: Json): Json[] {
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
