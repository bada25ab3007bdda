import { translateGoRegex } from '../../operators/go-regex.ts';
import { declareGlobals } from './flow-globals.ts';
import { type Expr, parseFlow, type Stmt } from './flow-parser.ts';
import {
  arrayMethod,
  BREAK,
  binary,
  CONTINUE,
  type Completion,
  FlowFunction,
  type FlowHost,
  type FlowRecord,
  FlowRuntimeError,
  type FlowValue,
  FORBIDDEN,
  fromHost,
  HostFunction,
  host,
  isRecord,
  MAX_DEPTH,
  MAX_STEPS,
  Return,
  Scope,
  stringMethod,
  toNumber,
  toText,
  truthy,
} from './flow-values.ts';

export type { FlowHost } from './flow-values.ts';

/**
 * Runs a parsed `flow:` against the host functions a template run provides (`http(1)`,
 * `http("login")`, `set()`, `template.x`, `iterate()`, `log()`). Values are plain data:
 * strings, numbers, booleans, null/undefined, arrays, null-prototype records, regexes and
 * functions defined in the flow. Member access goes through an allow-list of string, array
 * and number methods — there is no way to reach a prototype, a constructor or the host.
 * Steps and call depth are bounded so a flow cannot spin forever.
 */

export class FlowInterpreter {
  private steps = 0;
  private depth = 0;
  private readonly globals = new Scope();

  constructor(
    private readonly program: Stmt[],
    private readonly hostApi: FlowHost,
    protocols: string[],
  ) {
    declareGlobals(this.globals, this.hostApi, protocols);
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
    return arrayMethod(arr, key, (f, args) => this.invoke(f, args));
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
