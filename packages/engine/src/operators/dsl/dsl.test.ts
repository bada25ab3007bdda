import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compileDsl, DSL_FUNCTIONS, type DslValue, interpolate, murmur3, parseDsl } from './index.ts';

const ctx: Record<string, DslValue> = {
  body: 'Hello World <title>Admin</title>',
  status_code: 200,
  content_length: 31,
  content_type: 'text/html; charset=utf-8',
  header: 'HTTP/1.1 200 OK\r\nServer: nginx/1.14.0\r\n',
  duration: 1.5,
  status_code_2: 404,
  version: '2.4.49',
  n: '42',
};

const run = (expr: string): DslValue => compileDsl(expr).evaluate(ctx);

describe('DSL functions (deterministic)', () => {
  const cases: [string, DslValue][] = [
    ['contains(body, "World")', true],
    ['contains(body, "world")', false],
    ['contains_all(body, "Hello", "Admin")', true],
    ['contains_all(body, "Hello", "nope")', false],
    ['contains_any(body, "nope", "Admin")', true],
    ['contains_any(body, "nope", "zip")', false],
    ['to_lower("AbC")', 'abc'],
    ['tolower("AbC")', 'abc'],
    ['to_upper("AbC")', 'ABC'],
    ['toupper("abc")', 'ABC'],
    ['len("hello")', 5],
    ['len("héllo")', 6],
    ['regex("Serv[a-z]+: nginx", header)', true],
    ['regex("(?i)hello world", body)', true],
    ['regex("^World", body)', false],
    ['concat("a", "b", 1)', 'ab1'],
    ['replace("a-b-c", "-", "+")', 'a+b+c'],
    ['replace_regex("a1b22c", "[0-9]+", "#")', 'a#b#c'],
    ['trim("xxhixx", "x")', 'hi'],
    ['trim_left("xxhixx", "x")', 'hixx'],
    ['trim_right("xxhixx", "x")', 'xxhi'],
    ['trim_space("  hi \\n")', 'hi'],
    ['trim_prefix("prefix-value", "prefix-")', 'value'],
    ['trim_suffix("value.php", ".php")', 'value'],
    ['starts_with("nginx/1.14", "apache", "nginx")', true],
    ['starts_with("nginx/1.14", "apache")', false],
    ['ends_with("file.php", ".php")', true],
    ['ends_with("file.php", ".asp")', false],
    ['line_starts_with("a\\nbcd", "bc")', true],
    ['line_ends_with("abc\\nd", "bc")', true],
    ['base64("hello")', 'aGVsbG8='],
    ['base64_decode("aGVsbG8=")', 'hello'],
    ['base64_py("hello")', 'aGVsbG8=\n'],
    ['md5("hello")', '5d41402abc4b2a76b9719d911017c592'],
    ['sha1("hello")', 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d'],
    ['sha256("hello")', '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'],
    ['mmh3("hello")', '613153351'],
    ['hex_encode("AB")', '4142'],
    ['hex_decode("4142")', 'AB'],
    ['url_encode("a b&c=d/é")', 'a%20b%26c%3Dd%2F%C3%A9'],
    ['url_decode("a+b%26c")', 'a+b&c'],
    ['compare_versions(version, "< 2.4.50")', true],
    ['compare_versions(version, ">= 2.4.49", "< 2.4.51")', true],
    ['compare_versions(version, "> 2.4.49")', false],
    ['compare_versions("1.0.2k", "> 1.0.2")', true],
    ['to_number("42") + 1', 43],
    ['to_number(n) * 2', 84],
    ['to_string(42)', '42'],
    ['status_code()', 200],
    ['status_code(2)', 404],
    ['content_length()', 31],
    ['content_type()', 'text/html; charset=utf-8'],
    ['duration() > 1', true],
    ['html_escape("<a>")', '&lt;a&gt;'],
    ['html_unescape("&lt;a&gt;")', '<a>'],
    ['reverse("abc")', 'cba'],
    ['repeat("ab", 3)', 'ababab'],
    ['join(",", "a", "b")', 'a,b'],
    ['dec_to_hex(255)', 'ff'],
    ['hex_to_dec("ff")', 255],
    ['substr("abcdef", 1, 3)', 'bc'],
    ['equals_any("b", "a", "b")', true],
    ['gzip_decode(gzip("round trip"))', 'round trip'],
    ['zlib_decode(zlib("round trip"))', 'round trip'],
    ['json_minify("{ \\"a\\" : 1 }")', '{"a":1}'],
  ];
  it.each(cases)('%s → %j', (expr, expected) => {
    expect(run(expr)).toEqual(expected);
  });
});

describe('DSL random functions', () => {
  const cases: [string, RegExp][] = [
    ['rand_base(8)', /^[A-Za-z0-9]{8}$/],
    ['rand_base(5, "ab")', /^[ab]{5}$/],
    ['rand_char("xyz")', /^[xyz]$/],
    ['rand_text_alpha(10)', /^[A-Za-z]{10}$/],
    ['rand_text_alphanumeric(12)', /^[A-Za-z0-9]{12}$/],
    ['rand_text_numeric(6)', /^[0-9]{6}$/],
    ['randstr()', /^[a-z0-9]{27}$/],
    ['randstr(4)', /^[a-z0-9]{4}$/],
  ];
  it.each(cases)('%s matches %s', (expr, re) => {
    expect(String(run(expr))).toMatch(re);
  });
  it('rand_int stays in range', () => {
    for (let i = 0; i < 50; i++) {
      const v = run('rand_int(5, 10)') as number;
      expect(v).toBeGreaterThanOrEqual(5);
      expect(v).toBeLessThan(10);
    }
  });
});

describe('DSL operators', () => {
  const cases: [string, DslValue][] = [
    ['status_code == 200', true],
    ['status_code != 200', false],
    ['status_code == "200"', true],
    ['content_length > 10 && content_length < 100', true],
    ['status_code == 404 || status_code == 200', true],
    ['!(status_code == 200)', false],
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['2 ** 3 ** 2', 512],
    ['-3 + 5', 2],
    ['"a" + "b"', 'ab'],
    ['6 & 3', 2],
    ['6 | 3', 7],
    ['6 ^ 3', 5],
    ['1 << 4', 16],
    ['body =~ "W.rld"', true],
    ['body !~ "W.rld"', false],
    ['status_code == 200 ? "ok" : "ko"', 'ok'],
    ['missing ?? "default"', 'default'],
    ['status_code in (200, 301)', true],
    ['"b" >= "a"', true],
    ['true && false', false],
    ['\'single\' + "double"', 'singledouble'],
    ['0x10 + 1', 17],
  ];
  it.each(cases)('%s → %j', (expr, expected) => {
    expect(run(expr)).toEqual(expected);
  });

  it('treats runtime errors as a false test', () => {
    expect(compileDsl('missing_variable == 1').test(ctx)).toBe(false);
    expect(compileDsl('to_number("abc") > 1').test(ctx)).toBe(false);
    expect(compileDsl('status_code == 200').test(ctx)).toBe(true);
  });

  it('rejects syntax errors and unknown functions at compile time', () => {
    expect(() => compileDsl('status_code ==')).toThrow();
    expect(() => compileDsl('contains(body, "a"')).toThrow();
    expect(() => compileDsl('no_such_function(1)')).toThrow(/unknown function/);
    expect(() => compileDsl('"unterminated')).toThrow(/unterminated/);
  });

  it('never evaluates code: a JS payload stays a string', () => {
    expect(run('"process.exit(1)"')).toBe('process.exit(1)');
    expect(() => parseDsl('constructor.constructor("x")()')).toThrow();
  });

  it('has a test row for every function', () => {
    const tested = new Set(
      [
        'contains contains_all contains_any to_lower tolower to_upper toupper len regex concat replace replace_regex trim trim_left trim_right trim_space trim_prefix trim_suffix starts_with ends_with line_starts_with line_ends_with base64 base64_decode base64_py md5 sha1 sha256 mmh3 hex_encode hex_decode url_encode url_decode compare_versions to_number to_string html_escape html_unescape reverse repeat join dec_to_hex hex_to_dec substr equals_any gzip gzip_decode zlib zlib_decode json_minify rand_base rand_char rand_text_alpha rand_text_alphanumeric rand_text_numeric randstr rand_int',
      ]
        .join(' ')
        .split(' '),
    );
    const extra = [
      'base64_encode',
      'sha512',
      'regex_all',
      'regex_any',
      'split',
      'index',
      'unix_time',
      'print_debug',
      'ip_format',
    ];
    const untested = Object.keys(DSL_FUNCTIONS).filter((f) => !tested.has(f) && !extra.includes(f));
    expect(untested).toEqual([]);
  });

  const extraCases: [string, DslValue][] = [
    ['base64_encode("hi")', 'aGk='],
    [`sha512("a") == "${createHash('sha512').update('a').digest('hex')}"`, true],
    ['regex_all("^a", "ab", "ac")', true],
    ['regex_any("^z", "ab", "zc")', true],
    ['len(split("a,b,c", ","))', 3],
    ['index(split("a,b,c", ","), 1)', 'b'],
    ['unix_time() > 1600000000', true],
    ['print_debug("x")', true],
    ['ip_format("127.0.0.1", 1)', '127.0.0.1'],
  ];
  it.each(extraCases)('%s → %j', (expr, expected) => {
    expect(run(expr)).toEqual(expected);
  });
});

describe('mmh3 (favicon hash)', () => {
  it.each([
    ['', 0],
    ['hello', 613153351],
    ['The quick brown fox jumps over the lazy dog', 776992547],
  ])('murmur3(%j) = %d', (input, expected) => {
    expect(murmur3(Buffer.from(input))).toBe(expected);
  });
});

describe('placeholders', () => {
  it.each([
    ['{{BaseURL}}/x', { BaseURL: 'http://h' }, 'http://h/x', []],
    ['{{to_lower("ABC")}}-{{Host}}', { Host: 'h' }, 'abc-h', []],
    ['{{base64(user + ":" + pass)}}', { user: 'u', pass: 'p' }, 'dTpw', []],
    ['§path§', { path: 'admin' }, 'admin', []],
    ['{{interactsh-url}}', {}, '{{interactsh-url}}', ['interactsh-url']],
  ] as [string, Record<string, DslValue>, string, string[]][])('%s', (text, vars, out, unresolved) => {
    const r = interpolate(text, vars);
    expect(r.text).toBe(out);
    expect(r.unresolved).toEqual(unresolved);
  });
});
