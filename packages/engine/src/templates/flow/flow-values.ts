import { translateGoRegex } from '../../operators/go-regex.ts';
import type { Expr, Stmt } from './flow-parser.ts';

/** The flow language's values, scopes and the coercions and methods they share (JavaScript's rules, the subset the corpus uses). */

export class FlowRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlowRuntimeError';
  }
}

export type Callable = (args: FlowValue[]) => FlowValue | Promise<FlowValue>;

export class FlowFunction {
  constructor(
    readonly params: string[],
    readonly body: Stmt[] | Expr,
    readonly scope: Scope,
  ) {}
}

export class HostFunction {
  constructor(readonly fn: Callable) {}
}

export type FlowValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | RegExp
  | FlowValue[]
  | FlowRecord
  | FlowFunction
  | HostFunction;

export interface FlowRecord {
  [key: string]: FlowValue;
}

export interface FlowHost {
  /** Runs the protocol block (1-based index or request id); true when its matchers matched. */
  runProtocol(protocol: string, ref: string | number): Promise<boolean>;
  /** `set(name, value)`: a variable for the following requests. */
  set(name: string, value: unknown): void;
  /** `template.name` / `template["name"]`: extracted values (arrays) and variables. */
  get(name: string): unknown;
  has(name: string): boolean;
  log(message: string): void;
  signal?: AbortSignal;
}

export const MAX_STEPS = 200_000;
export const MAX_DEPTH = 64;
export const FORBIDDEN = new Set([
  '__proto__',
  'prototype',
  'constructor',
  '__defineGetter__',
  '__lookupGetter__',
]);

export class Scope {
  private readonly vars = new Map<string, FlowValue>();
  constructor(readonly parent?: Scope) {}

  lookup(name: string): Scope | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(name)) return s;
    return undefined;
  }
  get(name: string): FlowValue {
    const s = this.lookup(name);
    if (!s) throw new FlowRuntimeError(`${name} is not defined`);
    return s.vars.get(name);
  }
  declare(name: string, value: FlowValue): void {
    this.vars.set(name, value);
  }
  assign(name: string, value: FlowValue): void {
    let s = this.lookup(name);
    if (!s) {
      s = this;
      while (s.parent) s = s.parent;
    }
    s.vars.set(name, value);
  }
}

export const BREAK = Symbol('break');
export const CONTINUE = Symbol('continue');
export class Return {
  constructor(readonly value: FlowValue) {}
}
export type Completion = undefined | typeof BREAK | typeof CONTINUE | Return;

export function truthy(v: FlowValue): boolean {
  return Boolean(v) && !(typeof v === 'number' && Number.isNaN(v));
}

export function fromHost(v: unknown): FlowValue {
  if (v === null || v === undefined) return v as null | undefined;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(fromHost);
  return String(v);
}

export function toText(v: FlowValue): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return v.map((x) => (x === null || x === undefined ? '' : toText(x))).join(',');
  if (v instanceof RegExp) return String(v);
  if (v instanceof FlowFunction || v instanceof HostFunction) return 'function';
  if (typeof v === 'object') return '[object Object]';
  return String(v);
}

export function toNumber(v: FlowValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null) return 0;
  if (v === undefined) return Number.NaN;
  const s = toText(v).trim();
  return s === '' ? 0 : Number(s);
}

export function looseEquals(a: FlowValue, b: FlowValue): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  if (typeof a === typeof b) return a === b;
  if (typeof a === 'object' || typeof b === 'object') {
    if (Array.isArray(a) || Array.isArray(b)) return toText(a) === toText(b);
    return a === b;
  }
  return toNumber(a) === toNumber(b);
}

export function isRecord(v: FlowValue): v is FlowRecord {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof RegExp) &&
    !(v instanceof FlowFunction) &&
    !(v instanceof HostFunction)
  );
}

export const host = (fn: Callable): HostFunction => new HostFunction(fn);

export function arrayMethod(
  arr: FlowValue[],
  key: string,
  invoke: (f: FlowFunction | HostFunction, args: FlowValue[]) => Promise<FlowValue>,
): FlowValue {
  const fnArg = (a: FlowValue[]) => {
    const f = a[0];
    if (!(f instanceof FlowFunction || f instanceof HostFunction))
      throw new FlowRuntimeError(`${key} needs a function`);
    return (...args: FlowValue[]) => invoke(f, args);
  };
  switch (key) {
    case 'push':
      return host((a) => {
        if (arr.length + a.length > 100_000) throw new FlowRuntimeError('array too long');
        return arr.push(...a);
      });
    case 'pop':
      return host(() => arr.pop());
    case 'shift':
      return host(() => arr.shift());
    case 'includes':
      return host((a) => arr.some((x) => x === a[0]));
    case 'indexOf':
      return host((a) => arr.indexOf(a[0] as FlowValue));
    case 'join':
      return host((a) =>
        arr
          .map((x) => (x === null || x === undefined ? '' : toText(x)))
          .join(a[0] === undefined ? ',' : toText(a[0])),
      );
    case 'slice':
      return host((a) =>
        arr.slice(a[0] === undefined ? 0 : toNumber(a[0]), a[1] === undefined ? undefined : toNumber(a[1])),
      );
    case 'concat':
      return host((a) => arr.concat(...a.map((x) => (Array.isArray(x) ? x : [x]))));
    case 'reverse':
      return host(() => arr.reverse());
    case 'map':
      return host(async (a) => {
        const f = fnArg(a);
        const out: FlowValue[] = [];
        for (let i = 0; i < arr.length; i++) out.push(await f(arr[i], i));
        return out;
      });
    case 'filter':
      return host(async (a) => {
        const f = fnArg(a);
        const out: FlowValue[] = [];
        for (let i = 0; i < arr.length; i++) if (truthy(await f(arr[i], i))) out.push(arr[i]);
        return out;
      });
    case 'forEach':
      return host(async (a) => {
        const f = fnArg(a);
        for (let i = 0; i < arr.length; i++) await f(arr[i], i);
        return undefined;
      });
    case 'some':
    case 'every':
    case 'find':
      return host(async (a) => {
        const f = fnArg(a);
        for (let i = 0; i < arr.length; i++) {
          const hit = truthy(await f(arr[i], i));
          if (key === 'some' && hit) return true;
          if (key === 'every' && !hit) return false;
          if (key === 'find' && hit) return arr[i];
        }
        return key === 'every' ? true : key === 'some' ? false : undefined;
      });
    case 'toString':
      return host(() => toText(arr));
    default:
      throw new FlowRuntimeError(`unsupported array method '${key}'`);
  }
}

export function binary(op: string, a: FlowValue, b: FlowValue): FlowValue {
  switch (op) {
    case '+':
      if (typeof a === 'number' && typeof b === 'number') return a + b;
      if (
        (typeof a === 'number' || typeof a === 'boolean' || a === null || a === undefined) &&
        (typeof b === 'number' || typeof b === 'boolean')
      )
        return toNumber(a) + toNumber(b);
      return toText(a) + toText(b);
    case '-':
      return toNumber(a) - toNumber(b);
    case '*':
      return toNumber(a) * toNumber(b);
    case '/':
      return toNumber(a) / toNumber(b);
    case '%':
      return toNumber(a) % toNumber(b);
    case '&':
      return toNumber(a) & toNumber(b);
    case '|':
      return toNumber(a) | toNumber(b);
    case '==':
      return looseEquals(a, b);
    case '!=':
      return !looseEquals(a, b);
    case '===':
      return a === b;
    case '!==':
      return a !== b;
    case '<':
    case '>':
    case '<=':
    case '>=': {
      const [x, y] = typeof a === 'string' && typeof b === 'string' ? [a, b] : [toNumber(a), toNumber(b)];
      return op === '<' ? x < y : op === '>' ? x > y : op === '<=' ? x <= y : x >= y;
    }
    case 'in':
      return isRecord(b) ? Object.hasOwn(b, toText(a)) : Array.isArray(b) ? toNumber(a) < b.length : false;
    default:
      throw new FlowRuntimeError(`unsupported operator '${op}'`);
  }
}

export function stringMethod(s: string, key: string): FlowValue {
  const str = (v: FlowValue | undefined) => (v === undefined ? '' : toText(v));
  const num = (v: FlowValue | undefined, d: number) => (v === undefined ? d : toNumber(v));
  switch (key) {
    case 'startsWith':
      return host((a) => s.startsWith(str(a[0]), num(a[1], 0)));
    case 'endsWith':
      return host((a) => s.endsWith(str(a[0])));
    case 'includes':
      return host((a) => s.includes(str(a[0])));
    case 'indexOf':
      return host((a) => s.indexOf(str(a[0])));
    case 'lastIndexOf':
      return host((a) => s.lastIndexOf(str(a[0])));
    case 'toLowerCase':
      return host(() => s.toLowerCase());
    case 'toUpperCase':
      return host(() => s.toUpperCase());
    case 'trim':
      return host(() => s.trim());
    case 'charAt':
      return host((a) => s.charAt(num(a[0], 0)));
    case 'substring':
      return host((a) => s.substring(num(a[0], 0), a[1] === undefined ? undefined : toNumber(a[1])));
    case 'substr':
      return host((a) => s.substr(num(a[0], 0), a[1] === undefined ? undefined : toNumber(a[1])));
    case 'slice':
      return host((a) => s.slice(num(a[0], 0), a[1] === undefined ? undefined : toNumber(a[1])));
    case 'padStart':
    case 'padEnd':
      return host((a) => {
        const n = Math.min(num(a[0], 0), 100_000);
        return key === 'padStart' ? s.padStart(n, str(a[1]) || ' ') : s.padEnd(n, str(a[1]) || ' ');
      });
    case 'split':
      return host((a) => (a[0] instanceof RegExp ? s.split(a[0]) : s.split(str(a[0]))));
    case 'replace':
    case 'replaceAll':
      return host((a) => {
        const pattern = a[0];
        const replacement = str(a[1]);
        if (pattern instanceof RegExp) return s.replace(pattern, replacement);
        return key === 'replace'
          ? s.replace(str(pattern), () => replacement)
          : s.split(str(pattern)).join(replacement);
      });
    case 'match':
      return host((a) => {
        const re = a[0] instanceof RegExp ? a[0] : translateGoRegex(str(a[0]));
        const m = s.match(re);
        return m ? [...m].map((x) => x ?? null) : null;
      });
    case 'concat':
      return host((a) => s + a.map(str).join(''));
    case 'toString':
      return host(() => s);
    default:
      throw new FlowRuntimeError(`unsupported string method '${key}'`);
  }
}
