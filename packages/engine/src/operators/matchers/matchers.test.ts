import { describe, expect, it } from 'vitest';
import type { OperatorEvent } from '../operator-types.ts';
import { compileMatcher, type MatcherDef, runMatchers } from './matchers.ts';

const event: OperatorEvent = {
  defaultPart: 'body',
  values: {
    body: '<html><head><title>Grafana</title><meta name="generator" content="WordPress 4.7.1"></head><body>Login to Grafana v8.3.0</body></html>',
    header: 'HTTP/1.1 200 OK\r\nServer: nginx/1.14.0\r\nX-Powered-By: PHP/5.6.40\r\n',
    server: 'nginx/1.14.0',
    x_powered_by: 'PHP/5.6.40',
    status_code: 200,
    content_length: 125,
    token: 'abc',
  },
  bytes: { body: Buffer.from([0x00, 0x01, 0xca, 0xfe, 0xba, 0xbe]) },
};

const cases: [string, MatcherDef, boolean][] = [
  ['word or', { type: 'word', words: ['nope', 'Grafana'] }, true],
  ['word and (all present)', { type: 'word', words: ['Grafana', 'Login'], condition: 'and' }, true],
  ['word and (one missing)', { type: 'word', words: ['Grafana', 'nope'], condition: 'and' }, false],
  ['word case-sensitive', { type: 'word', words: ['grafana'] }, false],
  ['word case-insensitive', { type: 'word', words: ['GRAFANA'], 'case-insensitive': true }, true],
  ['word negative', { type: 'word', words: ['nope'], negative: true }, true],
  ['word negative on a hit', { type: 'word', words: ['Grafana'], negative: true }, false],
  ['word on header part', { type: 'word', part: 'header', words: ['nginx/1.14'] }, true],
  ['word on a single header', { type: 'word', part: 'x_powered_by', words: ['PHP/5'] }, true],
  ['word on a header by its dashed name', { type: 'word', part: 'X-Powered-By', words: ['PHP/5'] }, true],
  [
    'word with a dynamic placeholder',
    { type: 'word', words: ['{{concat("Graf", "ana")}}', 'Grafana v8'], condition: 'and' },
    true,
  ],
  ['word hex encoding', { type: 'word', words: ['4772616661'], encoding: 'hex' }, true],
  ['word on a missing part', { type: 'word', part: 'nothing', words: ['x'] }, false],
  ['regex', { type: 'regex', regex: ['Grafana v[0-9.]+'] }, true],
  ['regex and', { type: 'regex', regex: ['^<html>', 'v8\\.3'], condition: 'and' }, true],
  ['regex (?i) flag', { type: 'regex', regex: ['(?i)login TO grafana'] }, true],
  ['regex no match', { type: 'regex', regex: ['Kibana'] }, false],
  ['regex negative', { type: 'regex', regex: ['Kibana'], negative: true }, true],
  ['status hit', { type: 'status', status: [301, 200] }, true],
  ['status miss', { type: 'status', status: [404] }, false],
  ['status negative', { type: 'status', status: [404], negative: true }, true],
  ['size hit', { type: 'size', size: [125] }, true],
  ['size miss', { type: 'size', size: [1] }, false],
  ['binary hit', { type: 'binary', binary: ['cafebabe'] }, true],
  ['binary and miss', { type: 'binary', binary: ['cafebabe', 'deadbeef'], condition: 'and' }, false],
  ['dsl hit', { type: 'dsl', dsl: ['status_code == 200 && contains(body, "Grafana")'] }, true],
  ['dsl and', { type: 'dsl', dsl: ['status_code == 200', 'content_length < 10'], condition: 'and' }, false],
  ['dsl or', { type: 'dsl', dsl: ['status_code == 500', 'content_length > 10'] }, true],
  ['dsl negative', { type: 'dsl', dsl: ['status_code == 500'], negative: true }, true],
  ['dsl missing variable is false', { type: 'dsl', dsl: ['nothing == 1'] }, false],
  ['xpath element', { type: 'xpath', xpath: ['/html/head/title'] }, true],
  ['xpath predicate', { type: 'xpath', xpath: ["//meta[@name='generator']"] }, true],
  ['xpath contains()', { type: 'xpath', xpath: ["//meta[contains(@content,'WordPress')]"] }, true],
  ['xpath miss', { type: 'xpath', xpath: ['//form'] }, false],
];

describe('matchers', () => {
  it.each(cases)('%s', (_name, def, expected) => {
    expect(compileMatcher(def).match(event).matched).toBe(expected);
  });

  it('returns the matched words and, with match-all, every regex match', () => {
    expect(compileMatcher({ type: 'word', words: ['Grafana', 'nope'] }).match(event).values).toEqual([
      'Grafana',
    ]);
    const all = compileMatcher({ type: 'regex', regex: ['Grafana'], 'match-all': true }).match(event);
    expect(all.values).toEqual(['Grafana', 'Grafana']);
  });

  it('gives every word as its values when every word is found, response after response', () => {
    const and = compileMatcher({ type: 'word', words: ['Grafana', 'Login'], condition: 'and' });
    const ci = compileMatcher({ type: 'word', words: ['GRAFANA', 'login'], 'case-insensitive': true });
    for (let i = 0; i < 3; i++) {
      expect(and.match(event)).toEqual({ matched: true, values: ['Grafana', 'Login'] });
      expect(ci.match(event)).toEqual({ matched: true, values: ['grafana', 'login'] });
    }
    expect(runMatchers([and, ci], 'and', event).values).toEqual(['Grafana', 'Login', 'grafana', 'login']);
    expect(and.match(event).values).toEqual(['Grafana', 'Login']);
    expect(compileMatcher({ type: 'word', words: ['Grafana'], negative: true }).match(event).matched).toBe(
      false,
    );
  });

  const invalid: [string, MatcherDef, RegExp][] = [
    ['bad regex', { type: 'regex', regex: ['(unclosed'] }, /invalid regex/],
    ['bad dsl', { type: 'dsl', dsl: ['status_code =='] }, /expected|unexpected/],
    ['unknown dsl function', { type: 'dsl', dsl: ['nope(1)'] }, /unknown function/],
    ['bad binary', { type: 'binary', binary: ['xyz'] }, /hex/],
    ['words missing', { type: 'word' } as unknown as MatcherDef, /no words/],
    ['bad status', { type: 'status', status: [Number.NaN] }, /integers/],
    ['bad xpath', { type: 'xpath', xpath: ['//a[position()>1 and x]'] }, /xpath/],
    ['unknown type', { type: 'nope', words: ['x'] } as unknown as MatcherDef, /unknown matcher type/],
  ];
  it.each(invalid)('rejects %s at compile time', (_name, def, re) => {
    expect(() => compileMatcher(def, 'matchers[0]')).toThrow(re);
  });

  it('matchers-condition and/or, named and internal matchers', () => {
    const a = compileMatcher({ type: 'status', status: [200], name: 'ok' });
    const b = compileMatcher({ type: 'word', words: ['Kibana'], name: 'kibana' });
    const c = compileMatcher({ type: 'word', words: ['Grafana'], name: 'grafana' });
    const hidden = compileMatcher({ type: 'word', words: ['Grafana'], name: 'hidden', internal: true });
    expect(runMatchers([a, b], 'and', event).matched).toBe(false);
    expect(runMatchers([a, c], 'and', event).matched).toBe(true);
    const or = runMatchers([a, b, c, hidden], 'or', event);
    expect(or.matched).toBe(true);
    expect(or.names).toEqual(['ok', 'grafana']);
    expect(runMatchers([], 'or', event).matched).toBe(false);
  });

  it("an outcome's values are the matching matchers' values in order, and no matcher's list is changed", () => {
    const words = compileMatcher({ type: 'word', words: ['Grafana', 'nope', 'Grafana'], condition: 'or' });
    const regex = compileMatcher({ type: 'regex', regex: ['Graf[a-z]+'] });
    const status = compileMatcher({ type: 'status', status: [200] });
    const first = words.match(event);
    expect(first.values).toEqual(['Grafana', 'Grafana']);
    expect(runMatchers([status, words], 'and', event).values).toEqual(['Grafana', 'Grafana']);
    expect(runMatchers([words, status, regex], 'and', event).values).toEqual([
      'Grafana',
      'Grafana',
      'Grafana',
    ]);
    expect(first.values).toEqual(['Grafana', 'Grafana']);
    expect(runMatchers([status], 'or', event).values).toEqual([]);
  });
});
