/**
 * Parser for the JavaScript subset nuclei templates write in `flow:` — statements (`var`/`let`/
 * `const`, `function`, `if`/`else`, `for (;;)`, `for … of`, `for … in`, `while`, `return`,
 * `break`, `continue`, blocks), expressions (literals, arrays, objects, regex literals,
 * members, calls, arrow and function expressions, the usual operators) and automatic
 * semicolons at line ends. It builds a tree for `flow-interpreter.ts`; the text is never run
 * as code.
 */
import { FlowSyntaxError, type Token, tokenize } from './flow-tokens.ts';

export type Expr =
  | { t: 'lit'; value: string | number | boolean | null | undefined }
  | { t: 'regex'; pattern: string; flags: string }
  | { t: 'id'; name: string }
  | { t: 'array'; items: Expr[] }
  | { t: 'object'; props: [string, Expr][] }
  | { t: 'member'; object: Expr; prop: Expr; computed: boolean }
  | { t: 'call'; callee: Expr; args: Expr[] }
  | { t: 'unary'; op: string; arg: Expr }
  | { t: 'update'; op: '++' | '--'; prefix: boolean; target: Expr }
  | { t: 'binary'; op: string; left: Expr; right: Expr }
  | { t: 'logical'; op: '&&' | '||' | '??'; left: Expr; right: Expr }
  | { t: 'cond'; test: Expr; then: Expr; else: Expr }
  | { t: 'assign'; op: string; target: Expr; value: Expr }
  | { t: 'fn'; params: string[]; body: Stmt[] | Expr; name?: string };

export type Stmt =
  | { t: 'expr'; expr: Expr }
  | { t: 'var'; decls: [string, Expr | undefined][] }
  | { t: 'function'; name: string; fn: Extract<Expr, { t: 'fn' }> }
  | { t: 'if'; test: Expr; then: Stmt; else?: Stmt }
  | { t: 'for'; init?: Stmt; test?: Expr; update?: Expr; body: Stmt }
  | { t: 'forOf'; name: string; iterable: Expr; body: Stmt; keys: boolean }
  | { t: 'while'; test: Expr; body: Stmt }
  | { t: 'return'; value?: Expr }
  | { t: 'break' }
  | { t: 'continue' }
  | { t: 'block'; body: Stmt[] }
  | { t: 'empty' };

const BINARY_LEVELS: string[][] = [
  ['|'],
  ['&'],
  ['==', '!=', '===', '!=='],
  ['<', '>', '<=', '>=', 'in'],
  ['+', '-'],
  ['*', '/', '%'],
];

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly src: string,
  ) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)] as Token;
  }

  private is(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return (t.kind === 'punct' || t.kind === 'name') && t.value === value;
  }

  private eat(value: string): boolean {
    if (!this.is(value)) return false;
    this.i++;
    return true;
  }

  private expect(value: string): void {
    if (!this.eat(value)) this.fail(`expected '${value}'`);
  }

  private fail(message: string): never {
    const t = this.peek();
    const what = t.kind === 'eof' ? 'end of flow' : `'${'value' in t ? String(t.value) : t.kind}'`;
    throw new FlowSyntaxError(`${message}, found ${what}`, t.pos, this.src);
  }

  private name(): string {
    const t = this.peek();
    if (t.kind !== 'name') this.fail('expected a name');
    this.i++;
    return t.value;
  }

  /** Statement end: `;`, or a line break / `}` / end before the next token (ASI). */
  private endStatement(): void {
    if (this.eat(';')) return;
    const t = this.peek();
    if (t.kind === 'eof' || t.nl || this.is('}')) return;
    this.fail("expected ';'");
  }

  program(): Stmt[] {
    const body: Stmt[] = [];
    while (this.peek().kind !== 'eof') body.push(this.statement());
    return body;
  }

  private block(): Stmt[] {
    this.expect('{');
    const body: Stmt[] = [];
    while (!this.is('}')) {
      if (this.peek().kind === 'eof') this.fail("expected '}'");
      body.push(this.statement());
    }
    this.i++;
    return body;
  }

  private statement(): Stmt {
    if (this.eat(';')) return { t: 'empty' };
    if (this.is('{')) return { t: 'block', body: this.block() };
    if (this.is('var') || this.is('let') || this.is('const')) {
      const s = this.declaration();
      this.endStatement();
      return s;
    }
    if (this.is('function') && this.peek(1).kind === 'name') {
      this.i++;
      const name = this.name();
      return { t: 'function', name, fn: { ...this.functionRest(), name } };
    }
    if (this.eat('if')) {
      this.expect('(');
      const test = this.expression();
      this.expect(')');
      const then = this.statement();
      if (this.eat('else')) return { t: 'if', test, then, else: this.statement() };
      return { t: 'if', test, then };
    }
    if (this.eat('for')) return this.forStatement();
    if (this.eat('while')) {
      this.expect('(');
      const test = this.expression();
      this.expect(')');
      return { t: 'while', test, body: this.statement() };
    }
    if (this.eat('return')) {
      const t = this.peek();
      if (this.is(';') || this.is('}') || t.kind === 'eof' || t.nl) {
        this.eat(';');
        return { t: 'return' };
      }
      const value = this.expression();
      this.endStatement();
      return { t: 'return', value };
    }
    if (this.eat('break')) {
      this.endStatement();
      return { t: 'break' };
    }
    if (this.eat('continue')) {
      this.endStatement();
      return { t: 'continue' };
    }
    const expr = this.expression();
    this.endStatement();
    return { t: 'expr', expr };
  }

  private declaration(): Extract<Stmt, { t: 'var' }> {
    this.i++; // var | let | const
    const decls: [string, Expr | undefined][] = [];
    do {
      const name = this.name();
      decls.push([name, this.eat('=') ? this.assignment() : undefined]);
    } while (this.eat(','));
    return { t: 'var', decls };
  }

  private forStatement(): Stmt {
    this.expect('(');
    // for (let x of …) / for (x in …)
    const declared = this.is('var') || this.is('let') || this.is('const');
    const nameAt = declared ? 1 : 0;
    if (this.peek(nameAt).kind === 'name' && (this.is('of', nameAt + 1) || this.is('in', nameAt + 1))) {
      if (declared) this.i++;
      const name = this.name();
      const keys = this.is('in');
      this.i++;
      const iterable = this.expression();
      this.expect(')');
      return { t: 'forOf', name, iterable, body: this.statement(), keys };
    }
    let init: Stmt | undefined;
    if (!this.is(';')) init = declared ? this.declaration() : { t: 'expr', expr: this.expression() };
    this.expect(';');
    const test = this.is(';') ? undefined : this.expression();
    this.expect(';');
    const update = this.is(')') ? undefined : this.expression();
    this.expect(')');
    return {
      t: 'for',
      ...(init ? { init } : {}),
      ...(test ? { test } : {}),
      ...(update ? { update } : {}),
      body: this.statement(),
    };
  }

  private functionRest(): Extract<Expr, { t: 'fn' }> {
    this.expect('(');
    const params: string[] = [];
    while (!this.is(')')) {
      params.push(this.name());
      if (!this.eat(',')) break;
    }
    this.expect(')');
    return { t: 'fn', params, body: this.block() };
  }

  expression(): Expr {
    return this.assignment();
  }

  /** `(a, b) =>` ahead: the parenthesis closes right before `=>`. */
  private isArrowAhead(): boolean {
    if (this.peek().kind === 'name' && this.is('=>', 1)) return true;
    if (!this.is('(')) return false;
    let depth = 0;
    for (let k = 0; ; k++) {
      const t = this.peek(k);
      if (t.kind === 'eof') return false;
      if (t.kind === 'punct' && t.value === '(') depth++;
      if (t.kind === 'punct' && t.value === ')') {
        depth--;
        if (depth === 0) return this.is('=>', k + 1);
      }
    }
  }

  private arrow(): Expr {
    const params: string[] = [];
    if (this.eat('(')) {
      while (!this.is(')')) {
        params.push(this.name());
        if (!this.eat(',')) break;
      }
      this.expect(')');
    } else params.push(this.name());
    this.expect('=>');
    if (this.is('{')) return { t: 'fn', params, body: this.block() };
    return { t: 'fn', params, body: this.assignment() };
  }

  private assignment(): Expr {
    if (this.isArrowAhead()) return this.arrow();
    const target = this.conditional();
    for (const op of ['=', '+=', '-=', '*=', '/=']) {
      if (this.is(op)) {
        if (target.t !== 'id' && target.t !== 'member') this.fail('invalid assignment target');
        this.i++;
        return { t: 'assign', op, target, value: this.assignment() };
      }
    }
    return target;
  }

  private conditional(): Expr {
    const test = this.logical(0);
    if (!this.eat('?')) return test;
    const then = this.assignment();
    this.expect(':');
    return { t: 'cond', test, then, else: this.assignment() };
  }

  private logical(level: number): Expr {
    const ops = [['??'], ['||'], ['&&']][level];
    if (!ops) return this.binary(0);
    let left = this.logical(level + 1);
    while (ops.some((o) => this.is(o))) {
      const op = (this.tokens[this.i++] as { value: string }).value as '&&' | '||' | '??';
      left = { t: 'logical', op, left, right: this.logical(level + 1) };
    }
    return left;
  }

  private binary(level: number): Expr {
    const ops = BINARY_LEVELS[level];
    if (!ops) return this.unary();
    let left = this.binary(level + 1);
    while (ops.some((o) => this.is(o))) {
      const op = (this.tokens[this.i++] as { value: string }).value;
      left = { t: 'binary', op, left, right: this.binary(level + 1) };
    }
    return left;
  }

  private unary(): Expr {
    for (const op of ['!', '-', '+', 'typeof']) {
      if (this.is(op)) {
        this.i++;
        return { t: 'unary', op, arg: this.unary() };
      }
    }
    if (this.is('++') || this.is('--')) {
      const op = (this.tokens[this.i++] as { value: string }).value as '++' | '--';
      return { t: 'update', op, prefix: true, target: this.unary() };
    }
    const expr = this.postfix();
    if ((this.is('++') || this.is('--')) && !this.peek().nl) {
      const op = (this.tokens[this.i++] as { value: string }).value as '++' | '--';
      return { t: 'update', op, prefix: false, target: expr };
    }
    return expr;
  }

  private postfix(): Expr {
    let expr = this.primary();
    while (true) {
      if (this.eat('.')) {
        expr = { t: 'member', object: expr, prop: { t: 'lit', value: this.name() }, computed: false };
      } else if (this.is('[') && !this.peek().nl) {
        this.i++;
        const prop = this.expression();
        this.expect(']');
        expr = { t: 'member', object: expr, prop, computed: true };
      } else if (this.is('(')) {
        this.i++;
        const args: Expr[] = [];
        while (!this.is(')')) {
          args.push(this.assignment());
          if (!this.eat(',')) break;
        }
        this.expect(')');
        expr = { t: 'call', callee: expr, args };
      } else return expr;
    }
  }

  private primary(): Expr {
    const t = this.peek();
    this.i++;
    switch (t.kind) {
      case 'num':
      case 'str':
        return { t: 'lit', value: t.value };
      case 'regex':
        return { t: 'regex', pattern: t.pattern, flags: t.flags };
      case 'name':
        if (t.value === 'true' || t.value === 'false') return { t: 'lit', value: t.value === 'true' };
        if (t.value === 'null') return { t: 'lit', value: null };
        if (t.value === 'undefined') return { t: 'lit', value: undefined };
        if (t.value === 'function') return this.functionRest();
        return { t: 'id', name: t.value };
      case 'punct':
        if (t.value === '(') {
          const e = this.expression();
          this.expect(')');
          return e;
        }
        if (t.value === '[') {
          const items: Expr[] = [];
          while (!this.is(']')) {
            items.push(this.assignment());
            if (!this.eat(',')) break;
          }
          this.expect(']');
          return { t: 'array', items };
        }
        if (t.value === '{') {
          const props: [string, Expr][] = [];
          while (!this.is('}')) {
            const k = this.peek();
            if (k.kind !== 'name' && k.kind !== 'str' && k.kind !== 'num')
              this.fail('expected a property name');
            this.i++;
            const key = String(k.value);
            props.push([key, this.eat(':') ? this.assignment() : { t: 'id', name: key }]);
            if (!this.eat(',')) break;
          }
          this.expect('}');
          return { t: 'object', props };
        }
        break;
      default:
    }
    this.i--;
    this.fail('unexpected token');
  }
}

/** Parses a flow; throws FlowSyntaxError with the line on anything outside the subset. */
export function parseFlow(source: string): Stmt[] {
  return new Parser(tokenize(source), source).program();
}
