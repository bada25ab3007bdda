import { compileGoRegex, DslRuntimeError, type DslValue, toDslNumber, toDslString } from './dsl-functions.ts';
import { collectDslCalls, type DslNode, parseDsl } from './dsl-parser.ts';
import { findDslFunction, UNSUPPORTED_DSL_FUNCTIONS } from './dsl-registry.ts';

/** Variables the expression can read (a protocol's event map plus template variables). */
export type DslContext = ReadonlyMap<string, DslValue> | Record<string, DslValue>;

// Response fields that nuclei exposes as variables; we also accept them called as functions
// (`status_code()`, `status_code(2)` for the second request).
const VARIABLE_FUNCTIONS = new Set(['status_code', 'content_length', 'content_type', 'duration', 'jarm']);

/** Own or inherited (layered contexts use prototype chains); never Object.prototype members. */
export function lookupVariable(ctx: DslContext, name: string): DslValue | undefined {
  if (ctx instanceof Map) return ctx.get(name);
  const v = (ctx as Record<string, DslValue>)[name];
  if (v === undefined || typeof v === 'function') return undefined;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return undefined;
  return v;
}

const lookup = lookupVariable;

function truthy(v: DslValue): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  return v !== '' && v !== 'false';
}

function looseEquals(a: DslValue, b: DslValue): boolean {
  if (typeof a === 'number' && typeof b === 'string') return b.trim() !== '' && Number(b) === a;
  if (typeof b === 'number' && typeof a === 'string') return a.trim() !== '' && Number(a) === b;
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return toDslString(a) === toDslString(b);
  return a === b || (a !== null && b !== null && toDslString(a) === toDslString(b));
}

function compare(a: DslValue, b: DslValue): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const na = Number(a);
    const nb = Number(b);
    if (a.trim() !== '' && b.trim() !== '' && !Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return toDslNumber(a) - toDslNumber(b);
}

export function evaluateNode(node: DslNode, ctx: DslContext): DslValue {
  switch (node.type) {
    case 'literal':
      return node.value;
    case 'var': {
      const v = lookup(ctx, node.name);
      if (v === undefined) throw new DslRuntimeError(`no variable '${node.name}'`);
      return v;
    }
    case 'array':
      return node.items.map((n) => evaluateNode(n, ctx));
    case 'ternary':
      return truthy(evaluateNode(node.test, ctx))
        ? evaluateNode(node.consequent, ctx)
        : evaluateNode(node.alternate, ctx);
    case 'unary': {
      const v = evaluateNode(node.arg, ctx);
      if (node.op === '!') return !truthy(v);
      if (node.op === '-') return -toDslNumber(v);
      if (node.op === '~') return ~toDslNumber(v);
      return toDslNumber(v);
    }
    case 'call':
      return callFunction(node, ctx);
    case 'binary':
      return evaluateBinary(node.op, node.left, node.right, ctx);
    default:
      throw new DslRuntimeError('unknown node');
  }
}

/** Where a protocol leaves the JARM fingerprint of the service it talked to, and its host. */
export const JARM_VALUE = '__jarm';
export const JARM_HOST = '__jarm_host';

/** `jarm("host:port")`: the fingerprint the network executor took of that service. */
function jarmOf(target: DslValue, ctx: DslContext): DslValue {
  const value = lookup(ctx, JARM_VALUE);
  const host = lookup(ctx, JARM_HOST);
  if (value === undefined || host === undefined)
    throw new DslRuntimeError('jarm() is only known after a network request to the service');
  const asked = toDslString(target)
    .replace(/^\[|\](:\d+)?$|:\d+$/g, '')
    .toLowerCase();
  if (asked !== '' && asked !== toDslString(host).toLowerCase())
    throw new DslRuntimeError(`jarm(): no fingerprint of '${toDslString(target)}'`);
  return value;
}

function callFunction(node: Extract<DslNode, { type: 'call' }>, ctx: DslContext): DslValue {
  const name = node.name.toLowerCase();
  if (name === 'jarm' && node.args.length === 1)
    return jarmOf(evaluateNode(node.args[0] as DslNode, ctx), ctx);
  if (VARIABLE_FUNCTIONS.has(name)) {
    if (node.args.length === 0) return evaluateNode({ type: 'var', name }, ctx);
    const idx = toDslNumber(evaluateNode(node.args[0] as DslNode, ctx));
    return evaluateNode({ type: 'var', name: `${name}_${idx}` }, ctx);
  }
  const fn = findDslFunction(name);
  if (!fn) throw new DslRuntimeError(`unknown function '${node.name}'`);
  const args = node.args.map((a) => evaluateNode(a, ctx));
  return fn.fn(args);
}

function evaluateBinary(op: string, leftNode: DslNode, rightNode: DslNode, ctx: DslContext): DslValue {
  if (op === '&&') {
    const l = evaluateNode(leftNode, ctx);
    if (!truthy(l)) return false;
    return truthy(evaluateNode(rightNode, ctx));
  }
  if (op === '||') {
    const l = evaluateNode(leftNode, ctx);
    if (truthy(l)) return true;
    return truthy(evaluateNode(rightNode, ctx));
  }
  if (op === '??') {
    try {
      const l = evaluateNode(leftNode, ctx);
      if (l !== null) return l;
    } catch (err) {
      if (!(err instanceof DslRuntimeError)) throw err;
    }
    return evaluateNode(rightNode, ctx);
  }
  const a = evaluateNode(leftNode, ctx);
  const b = evaluateNode(rightNode, ctx);
  switch (op) {
    case '+':
      if (typeof a === 'number' && typeof b === 'number') return a + b;
      return toDslString(a) + toDslString(b);
    case '-':
      return toDslNumber(a) - toDslNumber(b);
    case '*':
      return toDslNumber(a) * toDslNumber(b);
    case '/': {
      const d = toDslNumber(b);
      if (d === 0) throw new DslRuntimeError('division by zero');
      return toDslNumber(a) / d;
    }
    case '%':
      return toDslNumber(a) % toDslNumber(b);
    case '**':
      return toDslNumber(a) ** toDslNumber(b);
    case '&':
      return toDslNumber(a) & toDslNumber(b);
    case '|':
      return toDslNumber(a) | toDslNumber(b);
    case '^':
      return toDslNumber(a) ^ toDslNumber(b);
    case '<<':
      return toDslNumber(a) << toDslNumber(b);
    case '>>':
      return toDslNumber(a) >> toDslNumber(b);
    case '==':
      return looseEquals(a, b);
    case '!=':
      return !looseEquals(a, b);
    case '<':
      return compare(a, b) < 0;
    case '<=':
      return compare(a, b) <= 0;
    case '>':
      return compare(a, b) > 0;
    case '>=':
      return compare(a, b) >= 0;
    case '=~':
      return compileGoRegex(toDslString(b)).test(toDslString(a));
    case '!~':
      return !compileGoRegex(toDslString(b)).test(toDslString(a));
    case 'in':
      return Array.isArray(b) ? b.some((x) => looseEquals(a, x)) : toDslString(b).includes(toDslString(a));
    default:
      throw new DslRuntimeError(`unknown operator '${op}'`);
  }
}

export interface CompiledDsl {
  source: string;
  ast: DslNode;
  evaluate(ctx: DslContext): DslValue;
  /** Evaluates as a boolean; runtime errors (missing variable, bad number) count as false. */
  test(ctx: DslContext): boolean;
}

/**
 * Parses an expression once and checks that every function it calls exists, so a template
 * with a typo is rejected at compile time rather than silently failing during a scan.
 */
export function compileDsl(source: string): CompiledDsl {
  const ast = parseDsl(source);
  for (const name of collectDslCalls(ast)) {
    const lower = name.toLowerCase();
    if (UNSUPPORTED_DSL_FUNCTIONS.has(lower))
      throw new DslRuntimeError(`nuclei helper '${name}' is not supported`);
    if (!findDslFunction(lower) && !VARIABLE_FUNCTIONS.has(lower))
      throw new DslRuntimeError(`unknown function '${name}'`);
  }
  return {
    source,
    ast,
    evaluate: (ctx) => evaluateNode(ast, ctx),
    test: (ctx) => {
      try {
        return truthy(evaluateNode(ast, ctx));
      } catch (err) {
        if (err instanceof DslRuntimeError || err instanceof SyntaxError || err instanceof RangeError)
          return false;
        throw err;
      }
    },
  };
}

export function isDslFunction(name: string): boolean {
  const lower = name.toLowerCase();
  return Boolean(findDslFunction(lower)) || VARIABLE_FUNCTIONS.has(lower);
}

export { truthy };
