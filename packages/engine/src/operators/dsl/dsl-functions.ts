import { createHash, randomInt } from 'node:crypto';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { mmh3 } from '../../probe/mmh3.ts';
import { satisfiesConstraint } from '../../vulndb/version-compare.ts';
import { translateGoRegex } from '../go-regex.ts';

export type DslValue = string | number | boolean | null | DslValue[];

export class DslRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DslRuntimeError';
  }
}

export function toDslString(v: DslValue): string {
  if (v === null) return '';
  if (Array.isArray(v)) return v.map(toDslString).join(',');
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  return String(v);
}

export function toDslNumber(v: DslValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null) return 0;
  const n = Number(toDslString(v).trim());
  if (Number.isNaN(n)) throw new DslRuntimeError(`'${toDslString(v)}' is not a number`);
  return n;
}

/** MurmurHash3 x86 32-bit of the bytes, as a signed integer (what nuclei's mmh3() returns). */
export const murmur3 = mmh3;

/** Python's base64.encodebytes: lines of 76 characters, each ending with a newline. */
export function base64Py(data: Buffer): string {
  const b64 = data.toString('base64');
  let out = '';
  for (let i = 0; i < b64.length; i += 76) out += `${b64.slice(i, i + 76)}\n`;
  return out;
}

const ALPHA = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomFrom(charset: string, length: number, bad = ''): string {
  const chars = [...charset].filter((c) => !bad.includes(c)).join('');
  if (chars.length === 0) return '';
  let out = '';
  for (let i = 0; i < length; i++) out += chars[randomInt(chars.length)];
  return out;
}

function bytesOf(v: DslValue): Buffer {
  return Buffer.from(toDslString(v), 'utf8');
}

function hash(algorithm: string, v: DslValue): string {
  return createHash(algorithm).update(bytesOf(v)).digest('hex');
}

function argString(args: DslValue[], i: number): string {
  const v = args[i];
  return v === undefined ? '' : toDslString(v);
}

function trimSet(s: string, cutset: string, left: boolean, right: boolean): string {
  let start = 0;
  let end = s.length;
  while (left && start < end && cutset.includes(s[start] as string)) start++;
  while (right && end > start && cutset.includes(s[end - 1] as string)) end--;
  return s.slice(start, end);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
  "'": '&#39;',
};

type DslFunction = { min: number; max: number; fn: (args: DslValue[]) => DslValue };

const regexCache = new Map<string, RegExp>();
/** Compiles a Go-style regex (RE2 syntax subset) into a JS RegExp, cached. */
export function compileGoRegex(pattern: string, flags = ''): RegExp {
  const key = `${flags}/${pattern}`;
  let re = regexCache.get(key);
  if (!re) {
    re = translateGoRegex(pattern, flags);
    if (regexCache.size > 5000) regexCache.clear();
    regexCache.set(key, re);
  }
  return re;
}

export { translateGoRegex };

export const DSL_FUNCTIONS: Record<string, DslFunction> = {
  contains: { min: 2, max: 2, fn: (a) => argString(a, 0).includes(argString(a, 1)) },
  contains_all: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).every((s) => argString(a, 0).includes(toDslString(s))),
  },
  contains_any: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).some((s) => argString(a, 0).includes(toDslString(s))),
  },
  to_lower: { min: 1, max: 1, fn: (a) => argString(a, 0).toLowerCase() },
  tolower: { min: 1, max: 1, fn: (a) => argString(a, 0).toLowerCase() },
  to_upper: { min: 1, max: 1, fn: (a) => argString(a, 0).toUpperCase() },
  toupper: { min: 1, max: 1, fn: (a) => argString(a, 0).toUpperCase() },
  len: {
    min: 1,
    max: 1,
    fn: (a) => {
      const v = a[0] as DslValue;
      return Array.isArray(v) ? v.length : Buffer.byteLength(toDslString(v));
    },
  },
  regex: { min: 2, max: 2, fn: (a) => compileGoRegex(argString(a, 0)).test(argString(a, 1)) },
  regex_all: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).every((s) => compileGoRegex(argString(a, 0)).test(toDslString(s))),
  },
  regex_any: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).some((s) => compileGoRegex(argString(a, 0)).test(toDslString(s))),
  },
  concat: { min: 0, max: Infinity, fn: (a) => a.map(toDslString).join('') },
  join: {
    min: 2,
    max: Infinity,
    fn: (a) => {
      const rest = a.slice(1).flatMap((v) => (Array.isArray(v) ? v : [v]));
      return rest.map(toDslString).join(argString(a, 0));
    },
  },
  split: { min: 2, max: 3, fn: (a) => argString(a, 0).split(argString(a, 1)) },
  replace: { min: 3, max: 3, fn: (a) => argString(a, 0).split(argString(a, 1)).join(argString(a, 2)) },
  replace_regex: {
    min: 3,
    max: 3,
    fn: (a) =>
      argString(a, 0).replace(new RegExp(compileGoRegex(argString(a, 1)).source, 'g'), argString(a, 2)),
  },
  trim: { min: 2, max: 2, fn: (a) => trimSet(argString(a, 0), argString(a, 1), true, true) },
  trim_left: { min: 2, max: 2, fn: (a) => trimSet(argString(a, 0), argString(a, 1), true, false) },
  trim_right: { min: 2, max: 2, fn: (a) => trimSet(argString(a, 0), argString(a, 1), false, true) },
  trim_space: { min: 1, max: 1, fn: (a) => argString(a, 0).trim() },
  trim_prefix: {
    min: 2,
    max: 2,
    fn: (a) => {
      const s = argString(a, 0);
      const p = argString(a, 1);
      return s.startsWith(p) ? s.slice(p.length) : s;
    },
  },
  trim_suffix: {
    min: 2,
    max: 2,
    fn: (a) => {
      const s = argString(a, 0);
      const p = argString(a, 1);
      return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
    },
  },
  reverse: { min: 1, max: 1, fn: (a) => [...argString(a, 0)].reverse().join('') },
  repeat: {
    min: 2,
    max: 2,
    fn: (a) => argString(a, 0).repeat(Math.max(0, Math.min(100000, toDslNumber(a[1] as DslValue)))),
  },
  substr: {
    min: 2,
    max: 3,
    fn: (a) => {
      const s = argString(a, 0);
      const start = toDslNumber(a[1] as DslValue);
      return a.length > 2 ? s.slice(start, toDslNumber(a[2] as DslValue)) : s.slice(start);
    },
  },
  index: {
    min: 2,
    max: 2,
    fn: (a) => {
      const v = a[0] as DslValue;
      const i = toDslNumber(a[1] as DslValue);
      if (Array.isArray(v)) return v[i] ?? null;
      return toDslString(v)[i] ?? '';
    },
  },
  starts_with: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).some((p) => argString(a, 0).startsWith(toDslString(p))),
  },
  ends_with: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).some((p) => argString(a, 0).endsWith(toDslString(p))),
  },
  line_starts_with: {
    min: 2,
    max: Infinity,
    fn: (a) =>
      argString(a, 0)
        .split('\n')
        .some((l) => a.slice(1).some((p) => l.startsWith(toDslString(p)))),
  },
  line_ends_with: {
    min: 2,
    max: Infinity,
    fn: (a) =>
      argString(a, 0)
        .split('\n')
        .some((l) => a.slice(1).some((p) => l.endsWith(toDslString(p)))),
  },
  base64: { min: 1, max: 1, fn: (a) => bytesOf(a[0] as DslValue).toString('base64') },
  base64_encode: { min: 1, max: 1, fn: (a) => bytesOf(a[0] as DslValue).toString('base64') },
  base64_decode: { min: 1, max: 1, fn: (a) => Buffer.from(argString(a, 0), 'base64').toString('utf8') },
  base64_py: { min: 1, max: 1, fn: (a) => base64Py(bytesOf(a[0] as DslValue)) },
  md5: { min: 1, max: 1, fn: (a) => hash('md5', a[0] as DslValue) },
  sha1: { min: 1, max: 1, fn: (a) => hash('sha1', a[0] as DslValue) },
  sha256: { min: 1, max: 1, fn: (a) => hash('sha256', a[0] as DslValue) },
  sha512: { min: 1, max: 1, fn: (a) => hash('sha512', a[0] as DslValue) },
  mmh3: { min: 1, max: 1, fn: (a) => String(murmur3(bytesOf(a[0] as DslValue))) },
  hex_encode: { min: 1, max: 1, fn: (a) => bytesOf(a[0] as DslValue).toString('hex') },
  hex_decode: { min: 1, max: 1, fn: (a) => Buffer.from(argString(a, 0), 'hex').toString('latin1') },
  // projectdiscovery/dsl: letters, digits and `-_.!~*'()` stay; every other byte is %XX
  // (a space too); a true second argument leaves only letters and digits.
  url_encode: {
    min: 1,
    max: 2,
    fn: (a) => {
      const all = a.length > 1 && (a[1] === true || a[1] === 1 || argString(a, 1) === 'true');
      const keep = all ? /[A-Za-z0-9]/ : /[A-Za-z0-9\-_.!~*'()]/;
      let out = '';
      for (const c of argString(a, 0)) {
        if (keep.test(c)) out += c;
        else
          for (const b of Buffer.from(c, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      }
      return out;
    },
  },
  // Each valid %XX becomes its byte; anything else (a `+`, a stray `%`) stays as it is.
  url_decode: {
    min: 1,
    max: 1,
    fn: (a) => {
      const s = Buffer.from(argString(a, 0), 'utf8');
      const out: number[] = [];
      for (let i = 0; i < s.length; i++) {
        const hex = s.subarray(i + 1, i + 3).toString('latin1');
        if (s[i] === 0x25 && /^[0-9a-fA-F]{2}$/.test(hex)) {
          out.push(Number.parseInt(hex, 16));
          i += 2;
        } else out.push(s[i] as number);
      }
      return Buffer.from(out).toString('utf8');
    },
  },
  html_escape: {
    min: 1,
    max: 1,
    fn: (a) => argString(a, 0).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string),
  },
  html_unescape: {
    min: 1,
    max: 1,
    fn: (a) =>
      argString(a, 0).replace(
        /&(amp|lt|gt|quot|#34|#39|apos);/g,
        (_m, e: string) =>
          ({ amp: '&', lt: '<', gt: '>', quot: '"', '#34': '"', '#39': "'", apos: "'" })[e] as string,
      ),
  },
  gzip: { min: 1, max: 1, fn: (a) => gzipSync(bytesOf(a[0] as DslValue)).toString('latin1') },
  gzip_decode: {
    min: 1,
    max: 1,
    fn: (a) => gunzipSync(Buffer.from(argString(a, 0), 'latin1')).toString('utf8'),
  },
  zlib: { min: 1, max: 1, fn: (a) => deflateSync(bytesOf(a[0] as DslValue)).toString('latin1') },
  zlib_decode: {
    min: 1,
    max: 1,
    fn: (a) => inflateSync(Buffer.from(argString(a, 0), 'latin1')).toString('utf8'),
  },
  compare_versions: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).every((c) => satisfiesConstraint(argString(a, 0), toDslString(c))),
  },
  rand_base: {
    min: 1,
    max: 2,
    fn: (a) =>
      randomFrom(
        a.length > 1 && argString(a, 1).trim() !== '' ? argString(a, 1) : ALPHA + DIGITS,
        toDslNumber(a[0] as DslValue),
      ),
  },
  rand_char: {
    min: 0,
    max: 2,
    fn: (a) =>
      randomFrom(
        a.length > 0 && argString(a, 0) !== '' ? argString(a, 0) : ALPHA + DIGITS,
        1,
        argString(a, 1),
      ),
  },
  rand_int: {
    min: 0,
    max: 2,
    fn: (a) => {
      const min = a.length > 0 ? toDslNumber(a[0] as DslValue) : 0;
      const max = a.length > 1 ? toDslNumber(a[1] as DslValue) : 2147483647;
      return max <= min ? min : randomInt(min, max);
    },
  },
  rand_text_alpha: {
    min: 1,
    max: 2,
    fn: (a) => randomFrom(ALPHA, toDslNumber(a[0] as DslValue), argString(a, 1)),
  },
  rand_text_alphanumeric: {
    min: 1,
    max: 2,
    fn: (a) => randomFrom(ALPHA + DIGITS, toDslNumber(a[0] as DslValue), argString(a, 1)),
  },
  rand_text_numeric: {
    min: 1,
    max: 2,
    fn: (a) => randomFrom(DIGITS, toDslNumber(a[0] as DslValue), argString(a, 1)),
  },
  randstr: {
    min: 0,
    max: 1,
    fn: (a) => randomFrom(LOWER_ALNUM, a.length > 0 ? toDslNumber(a[0] as DslValue) : 27),
  },
  to_number: { min: 1, max: 1, fn: (a) => toDslNumber(a[0] as DslValue) },
  to_string: { min: 1, max: 1, fn: (a) => argString(a, 0) },
  dec_to_hex: { min: 1, max: 1, fn: (a) => Math.trunc(toDslNumber(a[0] as DslValue)).toString(16) },
  hex_to_dec: { min: 1, max: 1, fn: (a) => Number.parseInt(argString(a, 0).replace(/^0x/i, ''), 16) },
  unix_time: {
    min: 0,
    max: 1,
    fn: (a) => Math.floor(Date.now() / 1000) + (a.length ? toDslNumber(a[0] as DslValue) : 0),
  },
  print_debug: { min: 0, max: Infinity, fn: () => true },
  equals_any: {
    min: 2,
    max: Infinity,
    fn: (a) => a.slice(1).some((s) => toDslString(s) === argString(a, 0)),
  },
  json_minify: {
    min: 1,
    max: 1,
    fn: (a) => {
      try {
        return JSON.stringify(JSON.parse(argString(a, 0)));
      } catch {
        throw new DslRuntimeError('invalid json');
      }
    },
  },
  ip_format: { min: 2, max: 2, fn: (a) => argString(a, 0) },
};

export { escapeRegExp };
