import { DslSyntaxError, type DslToken, tokenizeDsl } from './dsl-tokenizer.ts';

export type DslNode =
  | { type: 'literal'; value: number | string | boolean | null }
  | { type: 'var'; name: string }
  | { type: 'call'; name: string; args: DslNode[] }
  | { type: 'unary'; op: string; arg: DslNode }
  | { type: 'binary'; op: string; left: DslNode; right: DslNode }
  | { type: 'ternary'; test: DslNode; consequent: DslNode; alternate: DslNode }
  | { type: 'array'; items: DslNode[] };

// Binary precedence levels, loosest first (govaluate's order).
const LEVELS: string[][] = [
  ['||'],
  ['&&'],
  ['==', '!=', '>', '>=', '<', '<=', '=~', '!~', 'in'],
  ['|'],
  ['^'],
  ['&'],
  ['<<', '>>'],
  ['+', '-'],
  ['*', '/', '%'],
  ['**'],
];

class Parser {
  private i = 0;
  constructor(private readonly tokens: DslToken[]) {}

  private peek(): DslToken {
    return this.tokens[this.i] as DslToken;
  }

  private next(): DslToken {
    return this.tokens[this.i++] as DslToken;
  }

  private isOp(value: string): boolean {
    const t = this.peek();
    return (
      (t.kind === 'op' && t.value === value) || (value === 'in' && t.kind === 'ident' && t.value === 'in')
    );
  }

  private expect(value: string): void {
    if (!this.isOp(value)) throw new DslSyntaxError(`expected '${value}'`, this.peek().pos);
    this.i++;
  }

  parse(): DslNode {
    let node = this.ternary();
    // govaluate reads a top-level `a, b` as the list of both (a dsl extractor's
    // `"tls_version, cipher"` extracts each).
    if (this.isOp(',')) {
      const items = [node];
      while (this.isOp(',')) {
        this.i++;
        items.push(this.ternary());
      }
      node = { type: 'array', items };
    }
    const t = this.peek();
    if (t.kind !== 'eof') throw new DslSyntaxError('unexpected token', t.pos);
    return node;
  }

  private ternary(allowLoneColon = true): DslNode {
    let test = this.binary(0);
    while (true) {
      if (this.isOp('?')) {
        this.i++;
        const thenNode = this.ternary(false);
        let elseNode: DslNode = { type: 'literal', value: null };
        if (this.isOp(':')) {
          this.i++;
          elseNode = this.ternary();
        }
        test = { type: 'ternary', test, consequent: thenNode, alternate: elseNode };
      } else if (this.isOp('??')) {
        this.i++;
        test = { type: 'binary', op: '??', left: test, right: this.binary(0) };
      } else if (allowLoneColon && this.isOp(':')) {
        // govaluate's lone `:` (its ternary "else"): the left value unless it is nil.
        this.i++;
        test = { type: 'binary', op: '??', left: test, right: this.binary(0) };
      } else return test;
    }
  }

  private binary(level: number): DslNode {
    const ops = LEVELS[level];
    if (!ops) return this.unary();
    let left = this.binary(level + 1);
    while (true) {
      const op = ops.find((o) => this.isOp(o));
      if (!op) return left;
      this.i++;
      // `**` is right-associative.
      const right = op === '**' ? this.binary(level) : this.binary(level + 1);
      left = { type: 'binary', op, left, right };
    }
  }

  private unary(): DslNode {
    for (const op of ['!', '-', '~', '+']) {
      if (this.isOp(op)) {
        this.i++;
        return { type: 'unary', op, arg: this.unary() };
      }
    }
    return this.primary();
  }

  private primary(): DslNode {
    const t = this.next();
    switch (t.kind) {
      case 'number':
      case 'string':
        return { type: 'literal', value: t.value };
      case 'ident': {
        if (this.isOp('(')) {
          this.i++;
          const args: DslNode[] = [];
          if (!this.isOp(')')) {
            args.push(this.ternary());
            while (this.isOp(',')) {
              this.i++;
              args.push(this.ternary());
            }
          }
          this.expect(')');
          return { type: 'call', name: t.value, args };
        }
        if (t.value === 'true' || t.value === 'false') return { type: 'literal', value: t.value === 'true' };
        if (t.value === 'nil' || t.value === 'null') return { type: 'literal', value: null };
        return { type: 'var', name: t.value };
      }
      case 'op': {
        if (t.value === '(') {
          const first = this.ternary();
          if (this.isOp(',')) {
            const items = [first];
            while (this.isOp(',')) {
              this.i++;
              items.push(this.ternary());
            }
            this.expect(')');
            return { type: 'array', items };
          }
          this.expect(')');
          return first;
        }
        if (t.value === '[') {
          // govaluate's escaped parameter name: [some-name]
          let name = '';
          while (!this.isOp(']')) {
            const p = this.next();
            if (p.kind === 'eof') throw new DslSyntaxError("expected ']'", p.pos);
            name +=
              p.kind === 'op' || p.kind === 'ident' || p.kind === 'string'
                ? String(p.value)
                : String(p.value);
          }
          this.i++;
          return { type: 'var', name };
        }
        throw new DslSyntaxError(`unexpected '${t.value}'`, t.pos);
      }
      default:
        throw new DslSyntaxError('unexpected end of expression', t.pos);
    }
  }
}

export function parseDsl(source: string): DslNode {
  return new Parser(tokenizeDsl(source)).parse();
}

/** Names of the variables an expression reads (for "unresolved variable" checks). */
export function collectDslVariables(node: DslNode, out = new Set<string>()): Set<string> {
  switch (node.type) {
    case 'var':
      out.add(node.name);
      break;
    case 'call':
      for (const a of node.args) collectDslVariables(a, out);
      break;
    case 'unary':
      collectDslVariables(node.arg, out);
      break;
    case 'binary':
      collectDslVariables(node.left, out);
      collectDslVariables(node.right, out);
      break;
    case 'ternary':
      collectDslVariables(node.test, out);
      collectDslVariables(node.consequent, out);
      collectDslVariables(node.alternate, out);
      break;
    case 'array':
      for (const a of node.items) collectDslVariables(a, out);
      break;
    default:
      break;
  }
  return out;
}

export function collectDslCalls(node: DslNode, out = new Set<string>()): Set<string> {
  if (node.type === 'call') {
    out.add(node.name);
    for (const a of node.args) collectDslCalls(a, out);
  } else if (node.type === 'unary') collectDslCalls(node.arg, out);
  else if (node.type === 'binary') {
    collectDslCalls(node.left, out);
    collectDslCalls(node.right, out);
  } else if (node.type === 'ternary') {
    collectDslCalls(node.test, out);
    collectDslCalls(node.consequent, out);
    collectDslCalls(node.alternate, out);
  } else if (node.type === 'array') for (const a of node.items) collectDslCalls(a, out);
  return out;
}
