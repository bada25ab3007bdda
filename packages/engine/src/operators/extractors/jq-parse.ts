/** jq's tokens and parse tree (the subset nuclei's json extractors use). */

export type Json = unknown;

export type Node =
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

export class JqError extends Error {}

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

export class Parser {
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

export function parseJq(source: string): Node {
  return new Parser(tokenize(source)).parseAll();
}
