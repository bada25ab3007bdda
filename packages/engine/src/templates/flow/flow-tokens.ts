/** The flow language's tokens: numbers, strings (with escapes), regex literals, names, punctuators, and whether a line break came before each (for automatic semicolons). */

export class FlowSyntaxError extends Error {
  constructor(message: string, pos: number, source: string) {
    const line = source.slice(0, pos).split('\n').length;
    super(`${message} (line ${line})`);
    this.name = 'FlowSyntaxError';
  }
}

export type Token =
  | { kind: 'num'; value: number; pos: number; nl: boolean }
  | { kind: 'str'; value: string; pos: number; nl: boolean }
  | { kind: 'regex'; pattern: string; flags: string; pos: number; nl: boolean }
  | { kind: 'name'; value: string; pos: number; nl: boolean }
  | { kind: 'punct'; value: string; pos: number; nl: boolean }
  | { kind: 'eof'; pos: number; nl: boolean };

const PUNCTUATORS = [
  '===',
  '!==',
  '...',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ';',
  ',',
  '.',
  '?',
  ':',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '=',
  '&',
  '|',
];

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

function readString(src: string, start: number, quote: string): [string, number] {
  let i = start + 1;
  let out = '';
  while (i < src.length && src[i] !== quote) {
    const c = src[i] as string;
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      if (n === 'x') {
        out += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 4), 16));
        i += 4;
        continue;
      }
      if (n === 'u') {
        out += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      out += ESCAPES[n] ?? n;
      i += 2;
      continue;
    }
    if (quote === '`' && c === '$' && src[i + 1] === '{')
      throw new FlowSyntaxError('template literals with placeholders are not supported', i, src);
    out += c;
    i++;
  }
  if (i >= src.length) throw new FlowSyntaxError('unterminated string', start, src);
  return [out, i + 1];
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let nl = false;
  const regexAllowed = (): boolean => {
    const last = tokens[tokens.length - 1];
    if (!last) return true;
    if (last.kind === 'punct') return ![')', ']', '}'].includes(last.value);
    if (last.kind === 'name') return ['return', 'typeof', 'case', 'in', 'of'].includes(last.value);
    return false;
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (c === '\n') {
      nl = true;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new FlowSyntaxError('unterminated comment', i, src);
      if (src.slice(i, end).includes('\n')) nl = true;
      i = end + 2;
      continue;
    }
    const pos = i;
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:0[xX][0-9a-fA-F]+|\d*\.?\d+(?:[eE][-+]?\d+)?)/.exec(src.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'num', value: Number(m[0]), pos, nl });
      i += m[0].length;
    } else if (c === '"' || c === "'" || c === '`') {
      const [value, end] = readString(src, i, c);
      tokens.push({ kind: 'str', value, pos, nl });
      i = end;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(src.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'name', value: m[0], pos, nl });
      i += m[0].length;
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (j < src.length && (src[j] !== '/' || inClass)) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        else if (src[j] === '\n') throw new FlowSyntaxError('unterminated regex', i, src);
        j++;
      }
      const flags = /^[a-z]*/.exec(src.slice(j + 1))?.[0] ?? '';
      tokens.push({ kind: 'regex', pattern: src.slice(i + 1, j), flags, pos, nl });
      i = j + 1 + flags.length;
    } else {
      const p = PUNCTUATORS.find((x) => src.startsWith(x, i));
      if (!p) throw new FlowSyntaxError(`unexpected character '${c}'`, i, src);
      tokens.push({ kind: 'punct', value: p, pos, nl });
      i += p.length;
    }
    nl = false;
  }
  tokens.push({ kind: 'eof', pos: src.length, nl: true });
  return tokens;
}
