import { describe, expect, it } from 'vitest';
import type { OperatorEvent } from '../operator-types.ts';
import { compileExtractor, type ExtractorDef } from './extractors.ts';
import { compileJsonQuery } from './json-query.ts';

const event: OperatorEvent = {
  defaultPart: 'body',
  values: {
    body: '<html><head><title>Admin Panel</title><meta name="generator" content="WordPress 4.7.1"></head><a href="/a">A</a><a href="/b">B</a> version=1.2.3 version=4.5.6</html>',
    server: 'nginx/1.14.0',
    set_cookie: 'session=abc',
    json: '{"version":{"number":"7.10.2"},"items":[{"name":"a"},{"name":"b"}],"tls_version":"tls12","issuer_org":["Acme"]}',
    status_code: 200,
  },
};

const cases: [string, ExtractorDef, string[]][] = [
  ['regex group 0', { type: 'regex', regex: ['version=[0-9.]+'] }, ['version=1.2.3', 'version=4.5.6']],
  ['regex group 1', { type: 'regex', regex: ['version=([0-9.]+)'], group: 1 }, ['1.2.3', '4.5.6']],
  [
    'regex named group syntax (?P<v>)',
    { type: 'regex', regex: ['<title>(?P<t>[^<]+)</title>'], group: 1 },
    ['Admin Panel'],
  ],
  ['regex on a part', { type: 'regex', part: 'server', regex: ['nginx/([\\d.]+)'], group: 1 }, ['1.14.0']],
  ['regex no match', { type: 'regex', regex: ['nothing'] }, []],
  [
    'regex case-insensitive output',
    { type: 'regex', regex: ['<title>([^<]+)</title>'], group: 1, 'case-insensitive': true },
    ['admin panel'],
  ],
  ['kval header', { type: 'kval', kval: ['server'] }, ['nginx/1.14.0']],
  ['kval dashed name', { type: 'kval', kval: ['Set-Cookie'] }, ['session=abc']],
  ['kval missing', { type: 'kval', kval: ['x_missing'] }, []],
  ['kval empty (nuclei extracts nothing)', { type: 'kval', kval: [] }, []],
  ['json path', { type: 'json', part: 'json', json: ['.version.number'] }, ['7.10.2']],
  ['json iterate', { type: 'json', part: 'json', json: ['.items[] | .name'] }, ['a', 'b']],
  ['json leading space', { type: 'json', part: 'json', json: [' .tls_version'] }, ['tls12']],
  ['json array iterate', { type: 'json', part: 'json', json: [' .issuer_org[]'] }, ['Acme']],
  ['json concat', { type: 'json', part: 'json', json: ['"v" + .version.number'] }, ['v7.10.2']],
  ['json on non-json', { type: 'json', json: ['.a'] }, []],
  ['xpath text', { type: 'xpath', xpath: ['/html/head/title'] }, ['Admin Panel']],
  ['xpath attribute', { type: 'xpath', xpath: ['//a'], attribute: 'href' }, ['/a', '/b']],
  ['xpath @attr step', { type: 'xpath', xpath: ["//meta[@name='generator']/@content"] }, ['WordPress 4.7.1']],
  ['xpath position', { type: 'xpath', xpath: ['//a[2]'] }, ['B']],
  ['xpath union', { type: 'xpath', xpath: ['//*/@href|//meta/@content'] }, ['/a', '/b', 'WordPress 4.7.1']],
  [
    'xpath concat',
    { type: 'xpath', xpath: ["concat(/html/head/title, ' / ', //a[2])"] },
    ['Admin Panel / B'],
  ],
  ['xpath concat of nothing', { type: 'xpath', xpath: ["concat(//nope, ' ', //none)"] }, []],
  ['dsl list', { type: 'dsl', dsl: ['server, status_code'] }, ['nginx/1.14.0', '200']],
  ['dsl', { type: 'dsl', dsl: ['concat("code:", status_code)'] }, ['code:200']],
  ['dsl to_upper', { type: 'dsl', dsl: ['to_upper(server)'] }, ['NGINX/1.14.0']],
];

describe('extractors', () => {
  it.each(cases)('%s', (_name, def, expected) => {
    expect(compileExtractor(def).extract(event)).toEqual(expected);
  });

  it('marks internal extractors', () => {
    expect(compileExtractor({ type: 'regex', regex: ['x'], internal: true, name: 'v' }).internal).toBe(true);
  });

  const invalid: [string, ExtractorDef, RegExp][] = [
    ['bad regex', { type: 'regex', regex: ['('] }, /invalid regex/],
    ['bad jq', { type: 'json', json: ['$$'] }, /jq/],
    ['bad dsl', { type: 'dsl', dsl: ['1 +'] }, /unexpected|expected/],
    ['unknown type', { type: 'nope' } as unknown as ExtractorDef, /unknown extractor type/],
  ];
  it.each(invalid)('rejects %s', (_name, def, re) => {
    expect(() => compileExtractor(def)).toThrow(re);
  });
});

describe('json query subset', () => {
  const doc = {
    a: { b: [1, 2, { c: 'x' }] },
    list: [
      { k: 'v1', t: 'on' },
      { k: 'v2', t: 'off' },
    ],
  };
  it.each([
    ['.a.b[0]', [1]],
    ['.a.b[-1].c', ['x']],
    ['.a.b[]', [1, 2, { c: 'x' }]],
    ['.["a"]["b"][1]', [2]],
    ['.list[] | select(.t == "on") | .k', ['v1']],
    ['.a | keys', [['b']]],
    ['.list | length', [2]],
    ['.', [doc]],
  ] as [string, unknown[]][])('%s', (q, expected) => {
    expect(compileJsonQuery(q).run(doc)).toEqual(expected);
  });
});
