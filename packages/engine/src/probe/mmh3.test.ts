import { describe, expect, it } from 'vitest';
import { base64Lines, faviconHash, mmh3 } from './mmh3.ts';

describe('mmh3', () => {
  // Reference values of Python's mmh3.hash (signed 32-bit, seed 0).
  it.each([
    ['', 0],
    ['foo', -156908512],
    ['hello', 613153351],
    ['The quick brown fox jumps over the lazy dog', 776992547],
  ])('%j', (input, expected) => {
    expect(mmh3(Buffer.from(input))).toBe(expected);
  });

  it('hashes favicons the Shodan way (base64 lines of 76 + newline)', () => {
    const data = Buffer.alloc(100, 7);
    const lines = base64Lines(data);
    expect(
      lines
        .split('\n')
        .slice(0, -1)
        .every((l) => l.length <= 76),
    ).toBe(true);
    expect(lines.endsWith('\n')).toBe(true);
    expect(faviconHash(data)).toBe(mmh3(Buffer.from(lines)));
  });
});
