import { describe, expect, it } from 'vitest';
import {
  dayToNumber,
  isWithinWindow,
  localDate,
  localTime,
  localToInstant,
  nextRunAfter,
  normaliseDays,
  numberToDay,
  overviewEnd,
  runsBetween,
} from './schedules-fns.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('day-of-week mapping (spec 3)', () => {
  it.each([
    ['sun', 0],
    ['mon', 1],
    ['tue', 2],
    ['wed', 3],
    ['thu', 4],
    ['fri', 5],
    ['sat', 6],
    ['*', 1],
  ] as const)('%s ↔ %i', (name, n) => {
    expect(dayToNumber(name)).toBe(n);
    if (name !== '*') expect(numberToDay(n)).toBe(name);
  });
  it('normalises to sorted unique numbers', () => {
    expect(normaliseDays(['sat', '*', 'mon', 0, 'sun'])).toEqual([0, 1, 6]);
  });
});

describe('localToInstant across DST', () => {
  it.each([
    // Europe/Berlin: 2026-03-29 02:00 → 03:00 (CET → CEST); 2026-10-25 03:00 → 02:00 (CEST → CET)
    ['Europe/Berlin', '2026-03-28', '02:30', '2026-03-28T01:30:00.000Z'],
    ['Europe/Berlin', '2026-03-29', '01:59', '2026-03-29T00:59:00.000Z'],
    ['Europe/Berlin', '2026-03-29', '02:30', '2026-03-29T01:30:00.000Z'], // gap: wall 03:30
    ['Europe/Berlin', '2026-03-29', '03:00', '2026-03-29T01:00:00.000Z'],
    ['Europe/Berlin', '2026-03-29', '03:30', '2026-03-29T01:30:00.000Z'],
    ['Europe/Berlin', '2026-03-30', '02:30', '2026-03-30T00:30:00.000Z'],
    ['Europe/Berlin', '2026-10-25', '01:30', '2026-10-24T23:30:00.000Z'],
    ['Europe/Berlin', '2026-10-25', '02:30', '2026-10-25T00:30:00.000Z'], // ambiguous: the earlier
    ['Europe/Berlin', '2026-10-25', '03:30', '2026-10-25T02:30:00.000Z'],
    // America/New_York: 2026-03-08 02:00 → 03:00 (EST → EDT); 2026-11-01 02:00 → 01:00 (EDT → EST)
    ['America/New_York', '2026-03-07', '02:30', '2026-03-07T07:30:00.000Z'],
    ['America/New_York', '2026-03-08', '02:30', '2026-03-08T07:30:00.000Z'], // gap: wall 03:30 EDT
    ['America/New_York', '2026-03-08', '03:30', '2026-03-08T07:30:00.000Z'],
    ['America/New_York', '2026-03-09', '02:30', '2026-03-09T06:30:00.000Z'],
    ['America/New_York', '2026-11-01', '00:30', '2026-11-01T04:30:00.000Z'],
    ['America/New_York', '2026-11-01', '01:30', '2026-11-01T05:30:00.000Z'], // ambiguous: EDT
    ['America/New_York', '2026-11-01', '02:30', '2026-11-01T07:30:00.000Z'],
    ['UTC', '2026-06-01', '00:00', '2026-06-01T00:00:00.000Z'],
    ['Asia/Kolkata', '2026-06-01', '02:00', '2026-05-31T20:30:00.000Z'],
  ])('%s %s %s → %s', (tz, date, time, expected) => {
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    const [hour, minute] = time.split(':').map(Number) as [number, number];
    expect(localToInstant({ year, month, day }, { hour, minute }, tz).toISOString()).toBe(expected);
  });
});

describe('nextRunAfter', () => {
  it.each([
    // Default window: Saturday 02:00 Berlin
    ['Europe/Berlin', [6], '02:00', '2026-03-23T12:00:00Z', '2026-03-28T01:00:00.000Z'],
    ['Europe/Berlin', [6], '02:00', '2026-03-28T01:00:00Z', '2026-04-04T00:00:00.000Z'], // after DST
    ['Europe/Berlin', [0], '02:30', '2026-03-28T12:00:00Z', '2026-03-29T01:30:00.000Z'], // gap day
    ['Europe/Berlin', [0], '02:30', '2026-03-29T01:30:00Z', '2026-04-05T00:30:00.000Z'],
    ['Europe/Berlin', [0], '02:30', '2026-10-25T00:30:00Z', '2026-11-01T01:30:00.000Z'], // no 2nd 02:30
    ['Europe/Berlin', [0, 1, 2, 3, 4, 5, 6], '23:59', '2026-12-31T22:59:00Z', '2027-01-01T22:59:00.000Z'],
    ['America/New_York', [0], '02:30', '2026-03-07T12:00:00Z', '2026-03-08T07:30:00.000Z'],
    ['America/New_York', [0], '01:30', '2026-10-31T12:00:00Z', '2026-11-01T05:30:00.000Z'],
    ['America/New_York', [0], '01:30', '2026-11-01T05:30:00Z', '2026-11-08T06:30:00.000Z'],
    ['America/New_York', [1, 3, 5], '09:00', '2026-11-01T12:00:00Z', '2026-11-02T14:00:00.000Z'],
    ['America/New_York', [], '09:00', '2026-11-01T12:00:00Z', null],
  ])('%s days %j at %s after %s → %s', (tz, days, startTime, after, expected) => {
    expect(iso(nextRunAfter({ tz, days, startTime }, new Date(after)))).toBe(expected);
  });

  it('yields each local run once over a year with two DST changes', () => {
    for (const tz of ['Europe/Berlin', 'America/New_York']) {
      for (const startTime of ['01:30', '02:30', '03:30']) {
        const runs = runsBetween(
          { tz, days: [0], startTime },
          new Date('2026-01-01T00:00:00Z'),
          new Date('2026-12-31T23:59:00Z'),
        );
        expect(runs).toHaveLength(52); // 52 Sundays in 2026
        const dates = runs.map((r) => localDate(r, tz));
        expect(new Set(dates).size).toBe(52);
        for (const r of runs) expect(['01:30', '02:30', '03:30']).toContain(localTime(r, tz));
      }
    }
  });
});

describe('overview window and missed runs', () => {
  it('stops at the end of the local month when asked', () => {
    const now = new Date('2026-03-20T10:00:00Z');
    expect(overviewEnd(now, 'Europe/Berlin', 30, false).toISOString()).toBe('2026-04-19T10:00:00.000Z');
    expect(overviewEnd(now, 'Europe/Berlin', 30, true).toISOString()).toBe('2026-03-31T21:59:59.999Z');
    expect(overviewEnd(new Date('2026-12-30T10:00:00Z'), 'UTC', 30, true).toISOString()).toBe(
      '2026-12-31T23:59:59.999Z',
    );
  });
  it('starts a late run only inside its window', () => {
    const due = new Date('2026-03-28T01:00:00Z');
    const w = { startTime: '02:00', endTime: '06:00' };
    expect(isWithinWindow(due, new Date('2026-03-28T04:59:00Z'), w)).toBe(true);
    expect(isWithinWindow(due, new Date('2026-03-28T05:01:00Z'), w)).toBe(false);
    expect(
      isWithinWindow(due, new Date('2026-03-28T08:00:00Z'), { startTime: '22:00', endTime: '06:00' }),
    ).toBe(true);
  });
});
