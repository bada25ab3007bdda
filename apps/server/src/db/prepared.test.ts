import { describe, expect, it } from 'vitest';
import { Bindings, type Prepared, PreparedCache } from './prepared.ts';

const statement = (name: string): Prepared<string> => ({ execute: async () => name });

describe('PreparedCache', () => {
  it('builds a shape once per handle and keeps handles apart', () => {
    const cache = new PreparedCache();
    const a = {};
    const b = {};
    let builds = 0;
    const build = () => {
      builds++;
      return statement('page');
    };
    const first = cache.get(a, 'page', build);
    expect(cache.get(a, 'page', build)).toBe(first);
    expect(cache.get(b, 'page', build)).not.toBe(first);
    expect(builds).toBe(2);
    expect(cache.size(a)).toBe(1);
  });

  it('drops the least recently used shape past its bound', () => {
    const cache = new PreparedCache(2);
    const h = {};
    const one = cache.get(h, 'one', () => statement('one'));
    cache.get(h, 'two', () => statement('two'));
    cache.get(h, 'one', () => statement('one again')); // one is now the most recent
    cache.get(h, 'three', () => statement('three')); // two goes
    expect(cache.size(h)).toBe(2);
    expect(cache.get(h, 'one', () => statement('rebuilt'))).toBe(one);
    let rebuilt = false;
    cache.get(h, 'two', () => {
      rebuilt = true;
      return statement('two');
    });
    expect(rebuilt).toBe(true);
  });
});

describe('Bindings', () => {
  it('names values in the order they are bound, and named ones as given', () => {
    const b = new Bindings();
    b.bind('user');
    b.bind(['x', 'y']);
    b.set('limit', 10);
    expect(b.values).toEqual({ b0: 'user', b1: ['x', 'y'], limit: 10 });
  });
});
