/**
 * Go (RE2) regular expressions as JavaScript RegExps. Templates are written for Go: inline
 * flags anywhere (`(?i)`, `(?-i)`, `(?s)`, `(?i:…)`), `(?P<name>…)`, `\A`, `\z`, `\Q…\E`,
 * `\x{…}` and POSIX classes. Node has no scoped modifiers, so a flag that changes inside the
 * pattern is spelled out: case-insensitive letters become `[aA]`, `.` becomes `[^\n]` or
 * `[\s\S]` (Go's `.` stops only at `\n`), `^`/`$` under `(?m)` become line-boundary lookarounds.
 * The translation only rewrites syntax; no pattern text is ever executed as code.
 */

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

const POSIX: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  space: '\\s',
  upper: 'A-Z',
  lower: 'a-z',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
  word: '\\w',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  print: ' -~',
  graph: '!-~',
  ascii: '\\x00-\\x7f',
};

const isLetter = (c: string): boolean => /[A-Za-z]/.test(c);
const other = (c: string): string => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

function escapeLiteral(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}

function hexChar(code: number): string {
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : String.fromCodePoint(code);
}

/** Applies `i-sm`-style flag text to a copy of `flags`. */
function applyFlags(flags: Flags, text: string): Flags {
  const out = { ...flags };
  let on = true;
  for (const c of text) {
    if (c === '-') on = false;
    else if (c === 'i' || c === 'm' || c === 's') out[c] = on;
    else if (c !== 'U') throw new SyntaxError(`invalid flag '${c}' in (?${text})`);
  }
  return out;
}

/** Reads a bracket class starting at `start` (the `[`); returns its JS text and end index. */
function readClass(p: string, start: number, flags: Flags, foldCase: boolean): [string, number] {
  let i = start + 1;
  let out = '[';
  if (p[i] === '^') {
    out += '^';
    i++;
  }
  // A `]` first in the class is a literal.
  if (p[i] === ']') {
    out += '\\]';
    i++;
  }
  const letters: string[] = [];
  while (i < p.length && p[i] !== ']') {
    const c = p[i] as string;
    if (c === '[' && p[i + 1] === ':') {
      const end = p.indexOf(':]', i + 2);
      const name = end > 0 ? p.slice(i + 2, end) : '';
      const negated = name.startsWith('^');
      const cls = POSIX[negated ? name.slice(1) : name];
      if (cls !== undefined && !negated) {
        out += cls;
        i = end + 2;
        continue;
      }
    }
    if (c === '\\') {
      const n = p[i + 1] ?? '';
      if (n === 'x' && p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        out += hexChar(Number.parseInt(p.slice(i + 3, end), 16));
        i = end + 1;
        continue;
      }
      out += `\\${n}`;
      i += 2;
      continue;
    }
    if (c === '[') out += '\\[';
    else if (c === '/') out += '\\/';
    else out += c;
    if (foldCase && isLetter(c)) {
      // A range `a-f` folds to `A-F`; a single letter to its other case.
      if (p[i + 1] === '-' && isLetter(p[i + 2] ?? '') && p[i + 2] !== ']') {
        letters.push(`${other(c)}-${other(p[i + 2] as string)}`);
        out += `-${p[i + 2]}`;
        i += 3;
        continue;
      }
      letters.push(other(c));
    }
    i++;
  }
  if (i >= p.length) throw new SyntaxError('missing closing ]');
  void flags;
  // Folded letters go first: after the last item they could turn a trailing `-` into a range.
  const head = out.startsWith('[^') ? '[^' : '[';
  return [`${head}${letters.join('')}${out.slice(head.length)}]`, i + 1];
}

export interface TranslatedRegex {
  source: string;
  flags: string;
}

/** Translates a Go pattern; `extraFlags` (`i` for a case-insensitive matcher) apply to all of it. */
export function translateGoPattern(pattern: string, extraFlags = ''): TranslatedRegex {
  const base: Flags = {
    i: extraFlags.includes('i'),
    m: extraFlags.includes('m'),
    s: extraFlags.includes('s'),
  };
  // A pattern whose flags never change after its start keeps JS's own flags (faster).
  const lead = /^\(\?([imsU-]*)\)/.exec(pattern);
  let start = 0;
  let flags = base;
  if (lead) {
    flags = applyFlags(base, lead[1] as string);
    start = lead[0].length;
  }
  const rest = pattern.slice(start);
  const mixed = /\(\?[imsU-]*[):]/.test(rest.replace(/\\\\|\\\(/g, ''));
  const global: Flags = mixed ? { i: false, m: false, s: false } : flags;
  const stack: Flags[] = [];
  let out = '';
  let i = start;
  const p = pattern;
  while (i < p.length) {
    const c = p[i] as string;
    if (c === '\\') {
      const n = p[i + 1] ?? '';
      if (n === 'A') out += '(?<![\\s\\S])';
      else if (n === 'z') out += '(?![\\s\\S])';
      else if (n === 'Q') {
        const end = p.indexOf('\\E', i + 2);
        const lit = p.slice(i + 2, end < 0 ? p.length : end);
        for (const ch of lit)
          out += flags.i && !global.i && isLetter(ch) ? `[${ch}${other(ch)}]` : escapeLiteral(ch);
        i = end < 0 ? p.length : end + 2;
        continue;
      } else if (n === 'x' && p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        out += hexChar(Number.parseInt(p.slice(i + 3, end), 16));
        i = end + 1;
        continue;
      } else out += `\\${n}`;
      i += 2;
      continue;
    }
    if (c === '[') {
      const [cls, end] = readClass(p, i, flags, flags.i && !global.i);
      out += cls;
      i = end;
      continue;
    }
    if (c === '(') {
      const group = /^\(\?([imsU-]*)(\)|:)/.exec(p.slice(i));
      if (group) {
        if (group[2] === ')') {
          flags = applyFlags(flags, group[1] as string);
        } else {
          stack.push(flags);
          flags = applyFlags(flags, group[1] as string);
          out += '(?:';
        }
        i += group[0].length;
        continue;
      }
      stack.push(flags);
      const named = /^\(\?P?<([A-Za-z_]\w*)>/.exec(p.slice(i));
      if (named) {
        out += `(?<${named[1]}>`;
        i += named[0].length;
        continue;
      }
      const look = /^\(\?(?:<?[=!])/.exec(p.slice(i));
      if (look) {
        out += look[0];
        i += look[0].length;
        continue;
      }
      out += '(';
      i++;
      continue;
    }
    if (c === ')') {
      flags = stack.pop() ?? flags;
      out += ')';
      i++;
      continue;
    }
    if (c === '.' && !global.s) out += flags.s ? '[\\s\\S]' : '[^\\n]';
    else if ((c === '^' || c === '$') && flags.m && !global.m)
      out += c === '^' ? '(?:^|(?<=\\n))' : '(?:$|(?=\\n))';
    else if (isLetter(c) && flags.i && !global.i) out += `[${c}${other(c)}]`;
    else if (c === '/') out += '\\/';
    else out += c;
    i++;
  }
  const jsFlags = `${global.i ? 'i' : ''}${global.m ? 'm' : ''}${global.s ? 's' : ''}`;
  return { source: out, flags: jsFlags };
}

export function translateGoRegex(pattern: string, extraFlags = ''): RegExp {
  const t = translateGoPattern(pattern, extraFlags);
  const extra = extraFlags.replace(/[ims]/g, '');
  return new RegExp(t.source, t.flags + extra);
}
