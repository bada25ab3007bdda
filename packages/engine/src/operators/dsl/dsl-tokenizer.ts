/** Tokenizer for nuclei's DSL (govaluate syntax). */

export type DslToken =
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'ident'; value: string; pos: number }
  | { kind: 'op'; value: string; pos: number }
  | { kind: 'eof'; pos: number };

export class DslSyntaxError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(`${message} at ${pos}`);
    this.name = 'DslSyntaxError';
  }
}

// Longest first so that `<=` wins over `<`.
const OPERATORS = [
  '**',
  '??',
  '==',
  '!=',
  '>=',
  '<=',
  '=~',
  '!~',
  '&&',
  '||',
  '<<',
  '>>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '>',
  '<',
  '!',
  '~',
  '&',
  '|',
  '^',
  '(',
  ')',
  ',',
  '?',
  ':',
  '[',
  ']',
];

const ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  '\\': '\\',
  '"': '"',
  "'": "'",
  '0': '\0',
};

function isIdentStart(c: string): boolean {
  return /[A-Za-z_$]/.test(c);
}

function isIdentPart(c: string): boolean {
  return /[A-Za-z0-9_$]/.test(c);
}

export function tokenizeDsl(source: string): DslToken[] {
  const tokens: DslToken[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      if (c === '0' && /[xX]/.test(source[i + 1] ?? '')) {
        i += 2;
        while (i < source.length && /[0-9a-fA-F]/.test(source[i] as string)) i++;
        tokens.push({ kind: 'number', value: Number.parseInt(source.slice(start + 2, i), 16), pos: start });
        continue;
      }
      while (i < source.length && /[0-9.]/.test(source[i] as string)) i++;
      if (/[eE]/.test(source[i] ?? '') && /[-+0-9]/.test(source[i + 1] ?? '')) {
        i += 2;
        while (i < source.length && /[0-9]/.test(source[i] as string)) i++;
      }
      const text = source.slice(start, i);
      const value = Number(text);
      if (Number.isNaN(value)) throw new DslSyntaxError(`invalid number '${text}'`, start);
      tokens.push({ kind: 'number', value, pos: start });
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      i++;
      let value = '';
      let closed = false;
      while (i < source.length) {
        const ch = source[i] as string;
        if (ch === c) {
          closed = true;
          i++;
          break;
        }
        if (ch === '\\' && c !== '`' && i + 1 < source.length) {
          const next = source[i + 1] as string;
          value += ESCAPES[next] ?? `\\${next}`;
          i += 2;
          continue;
        }
        value += ch;
        i++;
      }
      if (!closed) throw new DslSyntaxError('unterminated string', start);
      tokens.push({ kind: 'string', value, pos: start });
      continue;
    }
    if (isIdentStart(c)) {
      i++;
      while (i < source.length && isIdentPart(source[i] as string)) i++;
      tokens.push({ kind: 'ident', value: source.slice(start, i), pos: start });
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (!op) throw new DslSyntaxError(`unexpected character '${c}'`, start);
    tokens.push({ kind: 'op', value: op, pos: start });
    i += op.length;
  }
  tokens.push({ kind: 'eof', pos: source.length });
  return tokens;
}
