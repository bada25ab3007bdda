/**
 * The jq language as nuclei's json extractors use it (gojq semantics, every filter yields a
 * stream of values): paths (`.a.b`, `.a[0]`, `.a[]`, `.["k"]`, `.a[1:3]`, `..`, `?`), pipes,
 * `,`, parentheses, literals, array construction, `+ - * / %`, comparisons, `and`/`or`/`not`,
 * `//`, `if … then … elif … else … end` and the builtins the corpus calls (`select`,
 * `contains`, `to_entries`, `keys`, `length`, `tostring`, `capture`, `test`, `map`, …).
 * A tree walker over parsed JSON: nothing is ever evaluated as code.
 */

import { evaluate } from './jq-eval.ts';
import { JqError, type Json, type Node, parseJq } from './jq-parse.ts';

export interface JsonQuery {
  source: string;
  run(input: Json): Json[];
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
    ast = parseJq(source);
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
