import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  databaseState,
  enabledSources,
  fixFirstOrder,
  isLoopbackUrl,
  isSyncScheduled,
  kevRows,
  nextWindow,
  nvdDate,
  nvdRequestBudget,
  parseEpssCsv,
  RollingLimiter,
} from './intel-fns.ts';
import { nextCronRun, runSummary } from './intel-jobs.ts';
import { databaseNotice } from './intel-service.ts';

const DAY = 86_400_000;

describe('intel pure functions', () => {
  it('NVD windows are at most 120 days and end now', () => {
    const since = new Date('2026-01-01T00:00:00Z');
    expect(nextWindow(since, new Date(since.getTime() + 300 * DAY))).toEqual({
      start: since,
      end: new Date(since.getTime() + 120 * DAY),
    });
    const now = new Date(since.getTime() + 3 * DAY);
    expect(nextWindow(since, now)).toEqual({ start: since, end: now });
    expect(nextWindow(now, now)).toBeNull();
    expect(nvdDate(since)).toBe('2026-01-01T00:00:00.000+00:00');
  });

  it('the rolling limiter allows N requests per window, then waits for the oldest to leave it', () => {
    let now = 0;
    const limiter = new RollingLimiter(5, 30_000, () => now);
    for (let i = 0; i < 5; i++) {
      expect(limiter.delay()).toBe(0);
      limiter.record();
      now += 1000;
    }
    expect(limiter.delay()).toBe(25_000);
    now = 30_000;
    expect(limiter.delay()).toBe(0);
    expect(nvdRequestBudget(undefined)).toBe(5);
    expect(nvdRequestBudget('key')).toBe(50);
    expect(nvdRequestBudget('key', 1000)).toBe(1000);
  });

  it('backoff doubles, is capped, and honours Retry-After', () => {
    expect([0, 1, 2, 3].map((a) => backoffMs(a, 6000))).toEqual([6000, 12_000, 24_000, 48_000]);
    expect(backoffMs(10, 6000)).toBe(120_000);
    expect(backoffMs(0, 6000, '7')).toBe(7000);
  });

  it('reads the EPSS CSV and rejects a bad row with its line number', () => {
    const ok = parseEpssCsv(
      '#model_version:v2025.03.14,score_date:2026-01-02T00:00:00+0000\ncve,epss,percentile\nCVE-2021-41773,0.94365,0.99951\n',
    );
    expect(ok).toEqual({
      modelVersion: 'v2025.03.14',
      scoreDate: '2026-01-02',
      rows: [{ cveId: 'CVE-2021-41773', score: 0.94365, percentile: 0.99951 }],
    });
    expect(() => parseEpssCsv('cve,epss,percentile\nCVE-1,0.1,0.2\n')).toThrow(/line 2/);
    expect(() => parseEpssCsv('id,score\n')).toThrow(/header/);
  });

  it('reads the KEV catalogue (ransomware "Known") and rejects a malformed one', () => {
    const { rows, version } = kevRows({
      catalogVersion: '2026.01.02',
      vulnerabilities: [
        {
          cveID: 'CVE-2021-41773',
          dateAdded: '2021-11-03',
          dueDate: '2021-11-17',
          knownRansomwareCampaignUse: 'Known',
        },
      ],
    });
    expect(version).toBe('2026.01.02');
    expect(rows[0]).toMatchObject({ cveId: 'CVE-2021-41773', knownRansomware: true, dueDate: '2021-11-17' });
    expect(() => kevRows({ vulnerabilities: [{ cveID: 'x' }] })).toThrow(/malformed KEV catalogue/);
  });

  it('says when the database is empty or stale, and how to fix it', () => {
    const now = new Date('2026-01-10T00:00:00Z');
    expect(databaseState(0, now, now, 7)).toBe('empty');
    expect(databaseState(10, new Date(now.getTime() - 8 * DAY), now, 7)).toBe('stale');
    expect(databaseState(10, null, now, 7)).toBe('stale');
    expect(databaseState(10, new Date(now.getTime() - DAY), now, 7)).toBe('current');
    const info = { cveRecords: 0, kevRecords: 0, epssRecords: 0, lastSuccessAt: null, staleAfterDays: 7 };
    expect(databaseNotice({ ...info, state: 'empty' }, true)).toMatch(
      /^The CVE database is empty: scans find no CVE matches until it is loaded — .*npm run cli -- intel sync/,
    );
    expect(
      databaseNotice(
        { ...info, state: 'stale', cveRecords: 10, lastSuccessAt: new Date('2026-01-01T00:00:00Z') },
        false,
      ),
    ).toBe(
      'The CVE database (10 records) has not been updated since 2026-01-01 (stale after 7 days) — run `npm run cli -- intel sync` (or set INTEL_SYNC=true), or `npm run cli -- cve import <file>` on an air-gapped site.',
    );
    expect(databaseNotice({ ...info, state: 'current' }, true)).toBeNull();
  });

  it('scheduled syncs are off under test unless asked for; sources and loopback are parsed strictly', () => {
    expect(isSyncScheduled({ NODE_ENV: 'production' })).toBe(true);
    expect(isSyncScheduled({ NODE_ENV: 'test' })).toBe(false);
    expect(isSyncScheduled({ NODE_ENV: 'test', INTEL_SYNC: true })).toBe(true);
    expect(isSyncScheduled({ NODE_ENV: 'production', INTEL_SYNC: false })).toBe(false);
    expect(enabledSources('epss, nvd')).toEqual(['nvd', 'epss']);
    expect(enabledSources('none')).toEqual([]);
    expect(isLoopbackUrl('http://127.0.235.1:8080/nvd')).toBe(true);
    expect(isLoopbackUrl('http://[::1]/x')).toBe(true);
    expect(isLoopbackUrl('https://services.nvd.nist.gov/rest/json/cves/2.0')).toBe(false);
    expect(nextCronRun('17 */6 * * *', new Date('2026-01-01T07:00:00Z'))?.toISOString()).toBe(
      '2026-01-01T12:17:00.000Z',
    );
  });

  it('one log line per run; a failed source makes it a warning', () => {
    expect(runSummary([{ source: 'kev', status: 'ok', records: 2, detail: '' }])).toEqual({
      level: 'info',
      line: 'vulnerability intelligence synced: kev ok (2 records)',
    });
    const offline = runSummary([
      {
        source: 'nvd',
        status: 'failed',
        records: 0,
        error: 'nvd: cannot resolve services.nvd.nist.gov (ENOTFOUND): no Internet access?',
      },
      {
        source: 'kev',
        status: 'failed',
        records: 0,
        error: 'kev: cannot resolve www.cisa.gov (ENOTFOUND): no Internet access?',
      },
    ]);
    expect(offline.level).toBe('warn');
    expect(offline.line).toMatch(
      /^vulnerability intelligence sync incomplete: nvd: cannot resolve .*; kev: cannot resolve/,
    );
  });

  it('fix first: KEV, then EPSS, then severity and CVSS', () => {
    const f = (
      kev: boolean,
      epssScore: number | null,
      severityOrdering: number,
      cvssScore: number | null = null,
    ) => ({
      kev,
      epssScore,
      severityOrdering,
      cvssScore,
    });
    const list = [f(false, 0.9, 3), f(true, null, 2), f(false, null, 5, 9.8), f(false, 0.9, 4)];
    expect([...list].sort(fixFirstOrder)).toEqual([list[1], list[3], list[0], list[2]]);
  });
});
