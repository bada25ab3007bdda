import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './iso-timestamp.ts';

/** What the API sent before: the text parsed into a Date (as Drizzle maps a timestamptz) and formatted. */
const throughDate = (text: string) => new Date(text).toISOString();

describe('isoTimestamp', () => {
  it('gives Date’s string for PostgreSQL’s UTC text, whatever the fraction', () => {
    for (const text of [
      '2026-11-24 00:57:07.501195+00',
      '2026-11-24 00:57:07.999999+00',
      '2026-11-24 00:57:07.5+00',
      '2026-11-24 00:57:07.05+00',
      '2026-11-24 00:57:07.123+00',
      '2026-11-24 00:57:07.0001+00',
      '2026-11-24 00:57:07+00',
      '2000-02-29 23:59:59.999+00',
      '1000-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999999+00',
    ])
      expect(isoTimestamp(text), text).toBe(throughDate(text));
    expect(isoTimestamp('2026-11-24 00:57:07.501195+00')).toBe('2026-11-24T00:57:07.501Z');
  });

  it('goes through Date for any other text: another time zone, a year before 1000 or past 9999, BC, infinity', () => {
    for (const text of [
      '2026-11-24 01:57:07.501195+01',
      '2026-11-24 00:57:07.501195-03:30',
      '2026-11-24T00:57:07.501Z',
      '12026-11-24 00:57:07+00',
      '0999-01-01 00:00:00+00',
      '0049-01-01 00:00:00+00',
    ])
      expect(isoTimestamp(text), text).toBe(throughDate(text));
    expect(isoTimestamp('2026-11-24 01:57:07.501195+01')).toBe('2026-11-24T00:57:07.501Z');
    for (const text of ['infinity', '-infinity', '0044-03-15 12:00:00+00 BC', '2026-11-24 00:57:07+05:45:10'])
      expect(() => isoTimestamp(text), text).toThrow(RangeError);
  });
});
