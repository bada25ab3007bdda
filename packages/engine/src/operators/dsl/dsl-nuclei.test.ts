import { createHmac } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { translateGoPattern, translateGoRegex } from '../go-regex.ts';
import { generateJwt } from './dsl-functions-extra.ts';
import { ALL_DSL_FUNCTIONS, findDslFunction } from './dsl-registry.ts';
import { formatDateTime } from './dsl-time.ts';
import { compileDsl, type DslValue, interpolate, listPlaceholders } from './index.ts';

const run = (expr: string, ctx: Record<string, DslValue> = {}): DslValue => compileDsl(expr).evaluate(ctx);

describe('nuclei helper functions (projectdiscovery/dsl semantics)', () => {
  const at = new Date(2024, 2, 5, 7, 8, 9); // local time, as nuclei formats it
  const unix = Math.floor(at.getTime() / 1000);
  const cases: [string, DslValue | RegExp][] = [
    [`date_time("%Y-%M-%D %H:%m:%s", ${unix})`, '2024-03-05 07:08:09'],
    [`date_time("%Y/%M", ${unix})`, '2024/03'],
    [`date_time("2006-01-02T15:04:05", ${unix})`, '2024-03-05T07:08:09'],
    [`date_time("02 Jan 2006", ${unix})`, '05 Mar 2024'],
    ['to_unix_time("1700000000")', 1700000000],
    ['to_unix_time("2023-11-14T22:13:20Z")', 1700000000],
    ['unixtime() > 1600000000', true],
    ['wait_for(1)', true],
    ['hmac("sha256", "data", "key")', createHmac('sha256', 'key').update('data').digest('hex')],
    ['hmac("sha1", "data", "key")', createHmac('sha1', 'key').update('data').digest('hex')],
    ['padding("abc", "A", 6, "prefix")', 'AAAabc'],
    ['padding("abc", "xy", 6, "suffix")', 'abcxyx'],
    ['padding("abcdef", "A", 3, "suffix")', 'abcdef'],
    ['padding("ab", "-", 4)', 'ab--'],
    ['rand_ip("10.1.2.0/24")', /^10\.1\.2\.\d{1,3}$/],
    ['randbase(6)', /^[A-Za-z0-9]{6}$/],
    ['rand_base(4, "z")', 'zzzz'],
    ['startswith("nginx/1.2", "ngi")', true],
    ['trimprefix("prefix-x", "prefix-")', 'x'],
    ['urlencode("a b/c")', 'a%20b%2Fc'],
    ['url_encode("a-b_c.d!e~f*g\'h(i)")', "a-b_c.d!e~f*g'h(i)"],
    ['url_encode("a-b", true)', 'a%2Db'],
    ['urldecode("%3Cx%3E+%zz")', '<x>+%zz'],
    ['tolower("AbC")', 'abc'],
    ['to_bool("true") && !to_bool("0")', true],
    ['oct_to_dec("0o17")', 15],
    ['bin_to_dec("0b101")', 5],
    ['remove_bad_chars("a-b_c", "-_")', 'abc'],
    ['sort("cba")', 'abc'],
    ['uniq("aabbc")', 'abc'],
    ['count("a,b,c", ",")', 2],
    ['to_title("hello world")', 'Hello World'],
    ['hex_encode(xor("ab", "AB"))', '2020'],
    ['json_prettify("{\\"a\\":1}")', '{\n    "a": 1\n}'],
    ['len(zip("a.txt", "hello")) > 20', true],
    ['gzip_mtime(gzip("x"))', 0],
    ['unpack(">I", hex_decode("00000102"))', 258],
    ['unpack("<H", hex_decode("0201"))', 258],
    ['unpack("b", hex_decode("ff"))', -1],
  ];
  it.each(cases)('%s', (expr, expected) => {
    const v = run(expr);
    if (expected instanceof RegExp) expect(String(v)).toMatch(expected);
    else expect(v).toEqual(expected);
  });

  it('aes_cbc encrypts with PKCS#7 padding (bytes as a latin1 string)', () => {
    const v = String(run('aes_cbc("plaintext", "0123456789abcdef", "fedcba9876543210")'));
    expect(Buffer.from(v, 'latin1')).toHaveLength(16);
  });

  it('zip() writes an archive whose entry inflates back', () => {
    const zip = Buffer.from(String(run('zip("dir/a.php", "<?php echo 1;")')), 'latin1');
    expect(zip.readUInt32LE(0)).toBe(0x04034b50);
    const nameLength = zip.readUInt16LE(26);
    const size = zip.readUInt32LE(18);
    expect(zip.subarray(30, 30 + nameLength).toString()).toBe('dir/a.php');
    expect(inflateRawSync(zip.subarray(30 + nameLength, 30 + nameLength + size)).toString()).toBe(
      '<?php echo 1;',
    );
  });

  it('generate_jwt signs HS256 and writes alg none without a signature', () => {
    const token = generateJwt('{"sub":"admin"}', 'HS256', 'secret');
    const [h, p, sig] = token.split('.');
    expect(JSON.parse(Buffer.from(h as string, 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'JWT',
    });
    expect(JSON.parse(Buffer.from(p as string, 'base64url').toString())).toEqual({ sub: 'admin' });
    expect(sig).toBe(createHmac('sha256', 'secret').update(`${h}.${p}`).digest('base64url'));
    expect(generateJwt('{"a":1}', 'none', '').endsWith('.')).toBe(true);
    expect(run('generate_jwt(\'{"a":1}\', "HS512", "k")')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('formats Go layouts and rejects unknown % verbs', () => {
    expect(formatDateTime('2006', new Date(2020, 0, 1))).toBe('2020');
    expect(() => formatDateTime('%Q', new Date())).toThrow(/invalid date time format/);
  });

  it('knows every function under its name without underscores (nuclei aliases)', () => {
    for (const name of Object.keys(ALL_DSL_FUNCTIONS))
      expect(findDslFunction(name.replace(/_/g, '')), name).toBeDefined();
    expect(findDslFunction('randbase')).toBe(ALL_DSL_FUNCTIONS.rand_base);
  });

  it('reports a nuclei helper we lack by name, and a name nuclei does not have as unknown', () => {
    expect(() => compileDsl('len(generate_dotnet_gadget("windows-identity", "x", "raw")) > 0')).toThrow(
      /nuclei helper 'generate_dotnet_gadget' is not supported/,
    );
    expect(() => compileDsl('len(cookie_unsign(x)) > 0')).toThrow(/unknown function 'cookie_unsign'/);
  });
});

describe('govaluate syntax details', () => {
  it.each([
    ['"a", "b"', ['a', 'b']],
    ['contains("operator:x", "operator":"Bash")', true],
    ['true ? "y" : "n"', 'y'],
    ['false ? "y" : "n"', 'n'],
  ] as [string, DslValue][])('%s', (expr, expected) => {
    expect(run(expr)).toEqual(expected);
  });
});

describe('placeholders nuclei-style', () => {
  it.each([
    ["{{to_lower('{{name}}')}}", { name: 'ABC' }, 'abc', []],
    ['{{base64("{{user}}:{{pass}}")}}', { user: 'u', pass: 'p' }, 'dTpw', []],
    ['{{{x}}}', { x: 5 }, '{5}', []],
    ['{{{{x}}', { x: 5 }, '{{5', []],
    ['{{md5(concat("{{a}}", md5("{{b}}")))}}', { a: 'x', b: 'y' }, undefined, []],
    ['ssti {{7*7}} stays', {}, 'ssti {{7*7}} stays', []],
    ['{{";".join(obj.tags.keys())}}', {}, '{{";".join(obj.tags.keys())}}', []],
    ['{{phpinfo()}}', {}, '{{phpinfo()}}', []],
    ['{{(function(){ return 1; })()}}', {}, '{{(function(){ return 1; })()}}', []],
    ['{{to_upper(missing)}}', {}, '{{to_upper(missing)}}', ['missing']],
    ['{{interactsh-url}}', {}, '{{interactsh-url}}', ['interactsh-url']],
    ['open {{ only', {}, 'open {{ only', []],
  ] as [string, Record<string, DslValue>, string | undefined, string[]][])(
    '%s',
    (text, vars, out, unresolved) => {
      const r = interpolate(text, vars);
      if (out !== undefined) expect(r.text).toBe(out);
      else expect(r.text).toMatch(/^[0-9a-f]{32}$/);
      expect(r.unresolved).toEqual(unresolved);
    },
  );

  it('sends a payload value holding {{…}} as it is, not evaluated again', () => {
    const r = interpolate('{{BaseURL}}/?q={{p}}', { BaseURL: 'http://h', p: '{{7*7}}{{BaseURL}}' });
    expect(r).toEqual({ text: 'http://h/?q={{7*7}}{{BaseURL}}', unresolved: [] });
  });

  it('bare zero-argument helpers nest', () => {
    expect(interpolate("{{to_upper('{{randstr}}')}}", {}).text).toMatch(/^[A-Z0-9]{27}$/);
  });

  it('lists nested expressions with inner markers replaced', () => {
    expect(listPlaceholders("a {{to_lower('{{randstr}}')}} b")).toEqual(['randstr', "to_lower('x')"]);
  });
});

describe('Go regular expressions', () => {
  it.each([
    ['(?i)abc', 'xABCx', true],
    ['<form.*?(?i)(?-i)enctype=x', '<form a enctype=x', true],
    ['<form.*?(?i)(?-i)enctype=x', '<form a ENCTYPE=x', false],
    ['(?)content="CloudWAF"', 'content="CloudWAF"', true],
    ['a(?i:bc)d', 'aBCd', true],
    ['a(?i:bc)d', 'aBCD', false],
    ['(?i)[a-f]+(?-i)X', 'ABx', false],
    ['(?i)[a-f]+(?-i)X', 'AbX', true],
    ['(?i)(?:key)[0-9a-z\\-_]{3}', 'KEY_-a', true],
    ['(?P<ver>[0-9.]+)', 'v1.2', true],
    ['(?s)a.b', 'a\nb', true],
    ['a.b', 'a\nb', false],
    ['a.b', 'a\rb', true],
    ['x(?m)^y$', 'x\ny', false],
    ['(?m)^y$', 'x\ny\nz', true],
    ['[[:alpha:]]+\\z', 'ab1 cd', true],
    ['\\Aab', 'ab', true],
    ['\\Qa.b\\E', 'axb', false],
    ['\\x{41}', 'A', true],
  ])('%s on %j → %s', (pattern, text, expected) => {
    expect(translateGoRegex(pattern).test(text)).toBe(expected);
  });

  it('keeps JS flags when the flags never change after the start', () => {
    expect(translateGoPattern('(?i)abc')).toEqual({ source: 'abc', flags: 'i' });
    expect(translateGoPattern('(?is)a.c')).toEqual({ source: 'a.c', flags: 'is' });
  });
});
