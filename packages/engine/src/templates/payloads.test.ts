import { describe, expect, it } from 'vitest';
import { payloadCombinations } from './payloads.ts';

const values = (payloads: Record<string, string[]>) =>
  [...payloadCombinations(payloads, 'batteringram')].map((c) => ({ ...c }));

describe('batteringram combinations', () => {
  it('give each value once, in order, in every position, run after run', () => {
    const payloads = { a: ['1', '2', '1', '3', '2'] };
    expect(values(payloads)).toEqual([{ a: '1' }, { a: '2' }, { a: '3' }]);
    // A second template run over the same sets (its values are kept for the list).
    expect(values(payloads)).toEqual([{ a: '1' }, { a: '2' }, { a: '3' }]);
    expect(values({ a: ['x', 'y'], b: ['y', 'z'] })).toEqual([
      { a: 'x', b: 'x' },
      { a: 'y', b: 'y' },
      { a: 'z', b: 'z' },
    ]);
  });

  it('follow the list a payload set gives now (a word list read again from its file)', () => {
    let lines = ['one', 'two'];
    const payloads = {} as Record<string, string[]>;
    Object.defineProperty(payloads, 'w', { enumerable: true, get: () => lines });
    expect(values(payloads)).toEqual([{ w: 'one' }, { w: 'two' }]);
    lines = ['three'];
    expect(values(payloads)).toEqual([{ w: 'three' }]);
  });
});
