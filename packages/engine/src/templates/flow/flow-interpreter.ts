import { translateGoRegex } from '../../operators/go-regex.ts';
import { type Expr, parseFlow, type Stmt } from './flow-parser.ts';

/**
 * Runs a parsed `flow:` against the host functions a template run provides (`http(1)`,
 * `http("login")`, `set()`, `template.x`, `iterate()`, `log()`). Values are plain data:
 * strings, numbers, booleans, null/undefined, arrays, null-prototype records, regexes and
 * functions defined in the flow. Member access goes through an allow-list of string, array
 * and number methods — there is no way to reach a prototype, a constructor or the host.
 * Steps and call depth are bounded so a flow cannot spin forever.
 */

export class FlowRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlowRuntimeError';
  }
}

type Callable = (args: FlowValue[]) => FlowValue | Promise<FlowValue>;

class FlowFunction {
  constructor(
    readonly params: string[],
    readonly body: Stmt[] | Expr,
    readonly scope: Scope,
  ) {}
}

class HostFunction {
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

const MAX_STEPS = 200_000;
const MAX_DEPTH = 64;
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor', '__defineGetter__', '__lookupGetter__']);

class Scope {
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

const BREAK = Symbol('break');
const CONTINUE = Symbol('continue');
class Return {
  constructor(readonly value: FlowValue) {}
}
type Completion = undefined | typeof BREAK | typeof CONTINUE | Return;

function truthy(v: FlowValue): boolean {
  return Boolean(v) && !(typeof v === 'number' && Number.isNaN(v));
}

function fromHost(v: unknown): FlowValue {
  if (v === null || v === undefined) return v as null | undefined;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(fromHost);
  return String(v);
}

function toText(v: FlowValue): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return v.map((x) => (x === null || x === undefined ? '' : toText(x))).join(',');
  if (v instanceof RegExp) return String(v);
  if (v instanceof FlowFunction || v instanceof HostFunction) return 'function';
  if (typeof v === 'object') return '[object Object]';
  return String(v);
}

function toNumber(v: FlowValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null) return 0;
  if (v === undefined) return Number.NaN;
  const s = toText(v).trim();
  return s === '' ? 0 : Number(s);
}

function looseEquals(a: FlowValue, b: FlowValue): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  if (typeof a === typeof b) return a === b;
  if (typeof a === 'object' || typeof b === 'object') {
    if (Array.isArray(a) || Array.isArray(b)) return toText(a) === toText(b);
    return a === b;
  }
  return toNumber(a) === toNumber(b);
}

function isRecord(v: FlowValue): v is FlowRecord {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof RegExp) &&
    !(v instanceof FlowFunction) &&
    !(v instanceof HostFunction)
  );
}

const host = (fn: Callable): HostFunction => new HostFunction(fn);

export class FlowInterpreter {
  private steps = 0;
  private depth = 0;
  private readonly globals = new Scope();

  constructor(
    private readonly program: Stmt[],
    private readonly hostApi: FlowHost,
    protocols: string[],
  ) {
    const g = this.globals;
    for (const p of protocols)
      g.declare(
        p,
        host(async (args) => {
          const ref = args[0];
          return this.hostApi.runProtocol(
            p,
            typeof ref === 'string' ? ref : ref === undefined ? 1 : toNumber(ref),
          );
        }),
      );
    g.declare(
      'set',
      host((args) => {
        this.hostApi.set(toText(args[0] ?? ''), args[1] === undefined ? '' : args[1]);
        return undefined;
      }),
    );
    g.declare(
      'iterate',
      host((args) => {
        const out: FlowValue[] = [];
        for (const a of args) {
          if (Array.isArray(a)) out.push(...a);
          else if (a !== null && a !== undefined && a !== '') out.push(a);
        }
        return out;
      }),
    );
    const log = host((args) => {
      this.hostApi.log(args.map(toText).join(' '));
      return undefined;
    });
    g.declare('log', log);
    const rec = (entries: Record<string, FlowValue>): FlowRecord =>
      Object.assign(Object.create(null) as FlowRecord, entries);
    g.declare('console', rec({ log }));
    g.declare(
      'parseInt',
      host((a) => Number.parseInt(toText(a[0] ?? ''), a[1] === undefined ? 10 : toNumber(a[1]))),
    );
    g.declare(
      'parseFloat',
      host((a) => Number.parseFloat(toText(a[0] ?? ''))),
    );
    g.declare(
      'isNaN',
      host((a) => Number.isNaN(toNumber(a[0]))),
    );
    g.declare(
      'Number',
      host((a) => toNumber(a[0])),
    );
    g.declare(
      'String',
      host((a) => toText(a[0] ?? '')),
    );
    g.declare(
      'Boolean',
      host((a) => truthy(a[0])),
    );
    g.declare(
      'Math',
      rec({
        floor: host((a) => Math.floor(toNumber(a[0]))),
        ceil: host((a) => Math.ceil(toNumber(a[0]))),
        round: host((a) => Math.round(toNumber(a[0]))),
        abs: host((a) => Math.abs(toNumber(a[0]))),
        max: host((a) => Math.max(...a.map(toNumber))),
        min: host((a) => Math.min(...a.map(toNumber))),
      }),
    );
    g.declare('template', new HostFunction(() => undefined));
  }

  private tick(): void {
    if (++this.steps > MAX_STEPS) throw new FlowRuntimeError(`flow ran more than ${MAX_STEPS} steps`);
    if (this.hostApi.signal?.aborted) throw new FlowRuntimeError('aborted');
  }

  async run(): Promise<FlowValue> {
    let last: FlowValue;
    this.hoist(this.program, this.globals);
    for (const s of this.program) {
      if (s.t === 'expr') {
        last = await this.eval(s.expr, this.globals);
        continue;
      }
      const c = await this.exec(s, this.globals);
      if (c instanceof Return) return c.value;
    }
    return last;
  }

  private hoist(body: Stmt[], scope: Scope): void {
    for (const s of body)
      if (s.t === 'function') scope.declare(s.name, new FlowFunction(s.fn.params, s.fn.body, scope));
  }

  private async execBlock(body: Stmt[], scope: Scope): Promise<Completion> {
    this.hoist(body, scope);
    for (const s of body) {
      const c = await this.exec(s, scope);
      if (c !== undefined) return c;
    }
    return undefined;
  }

  private async exec(s: Stmt, scope: Scope): Promise<Completion> {
    this.tick();
    switch (s.t) {
      case 'empty':
      case 'function':
        return undefined;
      case 'expr':
        await this.eval(s.expr, scope);
        return undefined;
      case 'var':
        for (const [name, init] of s.decls)
          scope.declare(name, init ? await this.eval(init, scope) : undefined);
        return undefined;
      case 'block':
        return this.execBlock(s.body, new Scope(scope));
      case 'if':
        if (truthy(await this.eval(s.test, scope))) return this.exec(s.then, new Scope(scope));
        return s.else ? this.exec(s.else, new Scope(scope)) : undefined;
      case 'return':
        return new Return(s.value ? await this.eval(s.value, scope) : undefined);
      case 'break':
        return BREAK;
      case 'continue':
        return CONTINUE;
      case 'while':
        while (truthy(await this.eval(s.test, scope))) {
          const c = await this.exec(s.body, new Scope(scope));
          if (c === BREAK) break;
          if (c instanceof Return) return c;
        }
        return undefined;
      case 'for': {
        const loop = new Scope(scope);
        if (s.init) await this.exec(s.init, loop);
        while (!s.test || truthy(await this.eval(s.test, loop))) {
          const c = await this.exec(s.body, new Scope(loop));
          if (c === BREAK) break;
          if (c instanceof Return) return c;
          if (s.update) await this.eval(s.update, loop);
        }
        return undefined;
      }
      case 'forOf': {
        const iterable = await this.eval(s.iterable, scope);
        let items: FlowValue[];
        if (s.keys) {
          if (Array.isArray(iterable) || typeof iterable === 'string')
            items = [...Array(iterable.length).keys()].map(String);
          else items = isRecord(iterable) ? Object.keys(iterable) : [];
        } else if (Array.isArray(iterable)) items = [...iterable];
        else if (typeof iterable === 'string') items = [...iterable];
        else throw new FlowRuntimeError('for…of needs an array or a string');
        for (const item of items) {
          const body = new Scope(scope);
          body.declare(s.name, item);
          const c = await this.exec(s.body, body);
          if (c === BREAK) break;
          if (c instanceof Return) return c;
        }
        return undefined;
      }
      default:
        throw new FlowRuntimeError('unknown statement');
    }
  }

  private async eval(e: Expr, scope: Scope): Promise<FlowValue> {
    this.tick();
    switch (e.t) {
      case 'lit':
        return e.value;
      case 'regex':
        return translateGoRegex(e.pattern, e.flags.replace(/[^gimsu]/g, ''));
      case 'id':
        return scope.get(e.name);
      case 'array': {
        const out: FlowValue[] = [];
        for (const item of e.items) out.push(await this.eval(item, scope));
        return out;
      }
      case 'object': {
        const out = Object.create(null) as FlowRecord;
        for (const [k, v] of e.props) {
          if (FORBIDDEN.has(k)) throw new FlowRuntimeError(`property '${k}' is not allowed`);
          out[k] = await this.eval(v, scope);
        }
        return out;
      }
      case 'fn':
        return new FlowFunction(e.params, e.body, scope);
      case 'member': {
        const object = await this.eval(e.object, scope);
        const prop = await this.eval(e.prop, scope);
        return this.member(e.object, object, toText(prop));
      }
      case 'call':
        return this.call(e, scope);
      case 'unary': {
        const v = await this.eval(e.arg, scope);
        if (e.op === '!') return !truthy(v);
        if (e.op === '-') return -toNumber(v);
        if (e.op === '+') return toNumber(v);
        if (v === undefined) return 'undefined';
        if (v === null || Array.isArray(v) || isRecord(v) || v instanceof RegExp) return 'object';
        if (v instanceof FlowFunction || v instanceof HostFunction) return 'function';
        return typeof v;
      }
      case 'update': {
        const old = toNumber(await this.eval(e.target, scope));
        const next = e.op === '++' ? old + 1 : old - 1;
        await this.store(e.target, next, scope);
        return e.prefix ? next : old;
      }
      case 'logical': {
        const left = await this.eval(e.left, scope);
        if (e.op === '&&') return truthy(left) ? this.eval(e.right, scope) : left;
        if (e.op === '||') return truthy(left) ? left : this.eval(e.right, scope);
        return left === null || left === undefined ? this.eval(e.right, scope) : left;
      }
      case 'cond':
        return truthy(await this.eval(e.test, scope)) ? this.eval(e.then, scope) : this.eval(e.else, scope);
      case 'assign': {
        let value = await this.eval(e.value, scope);
        if (e.op !== '=') value = binary(e.op.slice(0, 1), await this.eval(e.target, scope), value);
        await this.store(e.target, value, scope);
        return value;
      }
      case 'binary':
        return binary(e.op, await this.eval(e.left, scope), await this.eval(e.right, scope));
      default:
        throw new FlowRuntimeError('unknown expression');
    }
  }

  private async store(target: Expr, value: FlowValue, scope: Scope): Promise<void> {
    if (target.t === 'id') {
      scope.assign(target.name, value);
      return;
    }
    if (target.t !== 'member') throw new FlowRuntimeError('invalid assignment target');
    const object = await this.eval(target.object, scope);
    const key = toText(await this.eval(target.prop, scope));
    if (FORBIDDEN.has(key)) throw new FlowRuntimeError(`property '${key}' is not allowed`);
    if (Array.isArray(object) && /^\d+$/.test(key) && Number(key) < 100_000) object[Number(key)] = value;
    else if (isRecord(object)) object[key] = value;
    else throw new FlowRuntimeError(`cannot set '${key}'`);
  }

  private isTemplate(e: Expr): boolean {
    return e.t === 'id' && e.name === 'template';
  }

  private member(objectExpr: Expr, object: FlowValue, key: string): FlowValue {
    if (FORBIDDEN.has(key)) throw new FlowRuntimeError(`property '${key}' is not allowed`);
    if (this.isTemplate(objectExpr)) {
      if (key === 'hasOwnProperty') return host((a) => this.hostApi.has(toText(a[0] ?? '')));
      return fromHost(this.hostApi.get(key));
    }
    if (typeof object === 'string') {
      if (key === 'length') return object.length;
      if (/^\d+$/.test(key)) return object[Number(key)];
      return stringMethod(object, key);
    }
    if (Array.isArray(object)) {
      if (key === 'length') return object.length;
      if (/^\d+$/.test(key)) return object[Number(key)];
      return this.arrayMethod(object, key);
    }
    if (typeof object === 'number') {
      if (key === 'toString') return host((a) => object.toString(a[0] === undefined ? 10 : toNumber(a[0])));
      if (key === 'toFixed') return host((a) => object.toFixed(toNumber(a[0] ?? 0)));
    }
    if (isRecord(object)) {
      if (key === 'hasOwnProperty') return host((a) => Object.hasOwn(object, toText(a[0] ?? '')));
      return Object.hasOwn(object, key) ? object[key] : undefined;
    }
    if (object === null || object === undefined)
      throw new FlowRuntimeError(`cannot read '${key}' of ${toText(object)}`);
    return undefined;
  }

  private arrayMethod(arr: FlowValue[], key: string): FlowValue {
    const fnArg = (a: FlowValue[]) => {
      const f = a[0];
      if (!(f instanceof FlowFunction || f instanceof HostFunction))
        throw new FlowRuntimeError(`${key} needs a function`);
      return (...args: FlowValue[]) => this.invoke(f, args);
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

  private async call(e: Extract<Expr, { t: 'call' }>, scope: Scope): Promise<FlowValue> {
    const callee = await this.eval(e.callee, scope);
    const args: FlowValue[] = [];
    for (const a of e.args) args.push(await this.eval(a, scope));
    if (!(callee instanceof FlowFunction || callee instanceof HostFunction)) {
      const name =
        e.callee.t === 'id'
          ? e.callee.name
          : e.callee.t === 'member'
            ? toText((e.callee.prop as { value?: FlowValue }).value)
            : 'value';
      throw new FlowRuntimeError(`${name} is not a function`);
    }
    return this.invoke(callee, args);
  }

  private async invoke(f: FlowFunction | HostFunction, args: FlowValue[]): Promise<FlowValue> {
    if (f instanceof HostFunction) return f.fn(args);
    if (++this.depth > MAX_DEPTH) throw new FlowRuntimeError('flow calls nested too deeply');
    try {
      const scope = new Scope(f.scope);
      for (const [i, p] of f.params.entries()) scope.declare(p, args[i]);
      if (!Array.isArray(f.body)) return await this.eval(f.body, scope);
      const c = await this.execBlock(f.body, scope);
      return c instanceof Return ? c.value : undefined;
    } finally {
      this.depth--;
    }
  }
}

function binary(op: string, a: FlowValue, b: FlowValue): FlowValue {
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

function stringMethod(s: string, key: string): FlowValue {
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

export interface CompiledFlow {
  program: Stmt[];
  /** Protocol functions the flow calls (`http`, `dns`, …). */
  calls: Set<string>;
}

/** Parses a flow and lists the protocol functions it calls (checked against the template). */
export function compileFlow(source: string, protocols: readonly string[]): CompiledFlow {
  const program = parseFlow(source);
  const calls = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n.t === 'call') {
      const callee = n.callee as Expr;
      if (callee.t === 'id' && protocols.includes(callee.name)) calls.add(callee.name);
    }
    for (const v of Object.values(n)) if (v && typeof v === 'object') visit(v);
  };
  visit(program);
  return { program, calls };
}

/** Runs a compiled flow; the value of its last top-level expression is returned. */
export function runFlow(
  flow: CompiledFlow,
  hostApi: FlowHost,
  protocols: readonly string[],
): Promise<FlowValue> {
  return new FlowInterpreter(flow.program, hostApi, [...protocols]).run();
}
