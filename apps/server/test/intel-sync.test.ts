import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { matchProduct } from '@perimeter/engine';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { intelSources, vulnEpss, vulnKev, vulnRecords } from '../src/db/schema/index.ts';
import { claimLease, saveCursor, sourceRow } from '../src/modules/intel/intel-repo.ts';
import { type SyncOptions, syncSource } from '../src/modules/intel/intel-sync.ts';
import { PgVulnStore } from '../src/modules/scans/scans-intel-repo.ts';
import type { AppContext } from '../src/server/context.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  epssFile,
  generatedRecord,
  IntelMirror,
  kevCatalogue,
  type NvdRecord,
} from './support/intel-mirror.ts';
import { datasetPath } from './support/scan-lab.ts';

/**
 * Each sync against a local mirror (127.0.235.x) serving the sources' real formats: NVD paging and
 * incremental windows, rate-limit answers with and without a key, a connection dropped mid-page,
 * a malformed page, resuming from the cursor, the lease; KEV, EPSS and retire.js.
 */
let mirror: IntelMirror;
let t: TestApp;
let ctx: AppContext;
const T0 = new Date('2026-01-01T00:00:00Z');
const DAY = 86_400_000;
let sleeps: number[] = [];
const cveExamples = datasetPath('cve', 'nvd-json-2.0-examples');

beforeAll(async () => {
  mirror = await IntelMirror.start('127.0.235.1');
  t = await createTestApp({
    INTEL_NVD_URL: `${mirror.url}/nvd`,
    INTEL_KEV_URL: `${mirror.url}/kev.json`,
    INTEL_EPSS_URL: `${mirror.url}/epss.csv.gz`,
    INTEL_RETIRE_URL: `${mirror.url}/retire.json`,
    INTEL_NVD_REQUESTS_PER_30S: '1000',
  });
  ctx = t.runtime.ctx;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await mirror?.stop();
});

const records = new Map<number, NvdRecord>();
function useRecords(n: number) {
  records.clear();
  for (let i = 0; i < n; i++) records.set(i, generatedRecord(i, new Date(T0.getTime() - DAY)));
  mirror.nvd = { count: n, record: (i) => records.get(i) as NvdRecord };
}

beforeEach(async () => {
  mirror.requests.length = 0;
  mirror.fault = () => undefined;
  sleeps = [];
  await ctx.db.delete(intelSources);
  await ctx.db.delete(vulnRecords);
  useRecords(5);
});

const opts = (extra: Partial<SyncOptions> = {}): SyncOptions => ({
  owner: 'test',
  sleep: async (ms) => {
    sleeps.push(ms);
  },
  now: () => T0,
  retryBaseMs: 100,
  attempts: 3,
  ...extra,
});

const withEnv = (env: Partial<AppContext['config']['env']>): AppContext => ({
  ...ctx,
  config: { ...ctx.config, env: { ...ctx.config.env, ...env } },
});

async function description(id: string): Promise<string | undefined> {
  const [row] = await ctx.db.select().from(vulnRecords).where(eq(vulnRecords.id, id));
  return (row?.record as { description?: string } | undefined)?.description;
}
const count = async () =>
  (await ctx.db.select({ n: sql<number>`count(*)::int` }).from(vulnRecords))[0]?.n ?? 0;
const nvdQueries = () => mirror.nvdRequests().map((r) => Object.fromEntries(r.query));

describe('NVD CVE API 2.0', () => {
  it('loads everything with resultsPerPage 2000, then continues incrementally from the time the load began', async () => {
    const r = await syncSource(ctx, 'nvd', opts());
    expect(r).toMatchObject({ status: 'ok', records: 5 });
    expect(nvdQueries()).toEqual([{ resultsPerPage: '2000', startIndex: '0' }]);
    const row = await sourceRow(ctx.db, 'nvd');
    expect(row?.cursor).toEqual({ mode: 'incremental', since: T0.toISOString(), startIndex: 0 });
    expect(row?.lastSuccessAt).not.toBeNull();
    expect(row?.records).toBe(5);
    expect(row?.leaseOwner).toBeNull();
    // The CPE configurations are stored: record 0 (f5 nginx, versionEndExcluding 1.0.0) matches up to its edge.
    const ids = async (version: string) =>
      (await matchProduct(new PgVulnStore(ctx.db), { name: 'nginx', version })).map((m) => m.record.id);
    expect(await ids('0.9.9')).toContain(records.get(0)?.id);
    expect(await ids('1.0.0')).not.toContain(records.get(0)?.id);
  });

  it('pages with startIndex until totalResults', async () => {
    const r = await syncSource(ctx, 'nvd', opts({ pageSize: 2 }));
    expect(r).toMatchObject({ status: 'ok', records: 5 });
    expect(nvdQueries().map((q) => q.startIndex)).toEqual(['0', '2', '4']);
    expect(nvdQueries().every((q) => q.resultsPerPage === '2')).toBe(true);
  });

  it('catches up in contiguous windows of at most 120 days and stores what changed', async () => {
    await syncSource(ctx, 'nvd', opts());
    mirror.requests.length = 0;
    const later = new Date(T0.getTime() + 300 * DAY);
    records.set(1, {
      ...(records.get(1) as NvdRecord),
      description: 'changed in window 2',
      lastModified: new Date(T0.getTime() + 200 * DAY).toISOString().slice(0, 23),
    });
    records.set(5, generatedRecord(5, new Date(T0.getTime() + 250 * DAY)));
    mirror.nvd = { count: 6, record: (i) => records.get(i) as NvdRecord };
    const r = await syncSource(ctx, 'nvd', opts({ now: () => later }));
    expect(r).toMatchObject({ status: 'ok', records: 6 });
    const windows = nvdQueries().map((q) => [
      Date.parse(q.lastModStartDate as string),
      Date.parse(q.lastModEndDate as string),
    ]);
    expect(windows).toHaveLength(3);
    expect(windows[0]?.[0]).toBe(T0.getTime());
    expect(windows[2]?.[1]).toBe(later.getTime());
    for (let i = 0; i < windows.length; i++) {
      const [a, b] = windows[i] as [number, number];
      expect(b - a).toBeLessThanOrEqual(120 * DAY);
      if (i > 0) expect(a).toBe(windows[i - 1]?.[1]);
    }
    expect(nvdQueries()[0]?.lastModStartDate).toBe('2026-01-01T00:00:00.000+00:00');
    expect(await description(records.get(1)?.id as string)).toBe('changed in window 2');
    expect((await sourceRow(ctx.db, 'nvd'))?.cursor).toEqual({
      mode: 'incremental',
      since: later.toISOString(),
      startIndex: 0,
    });
  });

  it('403 without a key: backs off and retries; when it persists the run fails naming NVD_API_KEY and keeps the data', async () => {
    await syncSource(ctx, 'nvd', opts());
    useRecords(5);
    await ctx.db.delete(intelSources);
    mirror.requests.length = 0;
    mirror.fault = (_req, n) => (n <= 2 ? 403 : undefined);
    expect(await syncSource(ctx, 'nvd', opts())).toMatchObject({ status: 'ok' });
    expect(sleeps).toEqual([100, 200]);
    expect(mirror.nvdRequests().every((r) => r.headers.apikey === undefined)).toBe(true);

    await ctx.db.delete(intelSources);
    mirror.fault = () => 403;
    const failed = await syncSource(ctx, 'nvd', opts());
    expect(failed.status).toBe('failed');
    const error = (failed as { error: string }).error;
    expect(error).toMatch(
      /403 Forbidden: without an API key NVD allows 5 requests per rolling 30 s — set NVD_API_KEY/,
    );
    expect(error).toMatch(/gave up after 3 attempts/);
    const row = await sourceRow(ctx.db, 'nvd');
    expect(row?.lastError).toBe(error);
    expect(row?.lastSuccessAt).toBeNull();
    expect(await count()).toBe(5);
  });

  it('403 with a key: the key goes in the apiKey header and the error says the key may be invalid', async () => {
    mirror.fault = () => 403;
    const keyed = withEnv({ NVD_API_KEY: 'test-nvd-key' });
    const failed = await syncSource(keyed, 'nvd', opts());
    expect(failed.status).toBe('failed');
    expect((failed as { error: string }).error).toMatch(
      /403 Forbidden with the API key: it may be invalid or not yet activated/,
    );
    expect(mirror.nvdRequests().map((r) => r.headers.apikey)).toEqual([
      'test-nvd-key',
      'test-nvd-key',
      'test-nvd-key',
    ]);
  });

  it('429 waits as long as Retry-After says, 5xx backs off; both are retried', async () => {
    mirror.fault = (_req, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '7' } } : n === 2 ? 503 : undefined;
    expect(await syncSource(ctx, 'nvd', opts())).toMatchObject({ status: 'ok', records: 5 });
    expect(sleeps).toEqual([7000, 200]);
    expect(nvdQueries().map((q) => q.startIndex)).toEqual(['0', '0', '0']);
  });

  it('keeps to 5 requests per rolling 30 s without a key (no override), 50 with one', async () => {
    useRecords(7);
    const budget = withEnv({ INTEL_NVD_REQUESTS_PER_30S: undefined });
    await syncSource(budget, 'nvd', opts({ pageSize: 1 }));
    expect(nvdQueries()).toHaveLength(7);
    // Requests 6 and 7 wait for the window (the fake sleep does not advance the clock).
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeGreaterThan(25_000);
    sleeps = [];
    await ctx.db.delete(intelSources);
    await syncSource(
      withEnv({ INTEL_NVD_REQUESTS_PER_30S: undefined, NVD_API_KEY: 'k' }),
      'nvd',
      opts({ pageSize: 1 }),
    );
    expect(sleeps).toEqual([]);
  });

  it('a connection dropped mid-page is retried; a run that fails mid-load resumes from its cursor', async () => {
    let dropped = 0;
    mirror.fault = (req) => (req.query.get('startIndex') === '2' && dropped++ === 0 ? 'drop' : undefined);
    expect(await syncSource(ctx, 'nvd', opts({ pageSize: 2 }))).toMatchObject({ status: 'ok', records: 5 });
    expect(nvdQueries().map((q) => q.startIndex)).toEqual(['0', '2', '2', '4']);

    await ctx.db.delete(intelSources);
    await ctx.db.delete(vulnRecords);
    mirror.requests.length = 0;
    mirror.fault = (req) => (req.query.get('startIndex') === '4' ? 'drop' : undefined);
    const failed = await syncSource(ctx, 'nvd', opts({ pageSize: 2 }));
    expect(failed).toMatchObject({ status: 'failed', records: 4 });
    expect((failed as { error: string }).error).toMatch(
      /connection to 127\.0\.235\.1:\d+ failed .*the next run resumes/,
    );
    expect((await sourceRow(ctx.db, 'nvd'))?.cursor).toMatchObject({ mode: 'full', startIndex: 4 });

    mirror.requests.length = 0;
    mirror.fault = () => undefined;
    expect(await syncSource(ctx, 'nvd', opts({ pageSize: 2 }))).toMatchObject({ status: 'ok', records: 5 });
    expect(nvdQueries().map((q) => q.startIndex)).toEqual(['4']);
  });

  it('a malformed page fails the run with a clear error; nothing of it is stored and the previous data is kept', async () => {
    await syncSource(ctx, 'nvd', opts());
    const before = await description(records.get(2)?.id as string);
    expect(before).toMatch(/^Generated record 2:/);
    for (const [i, r] of records)
      records.set(i, { ...r, description: `new ${i}`, lastModified: T0.toISOString().slice(0, 23) });
    await ctx.db.delete(intelSources);
    mirror.fault = (req) => (req.query.get('startIndex') === '2' ? 'malformed' : undefined);
    const failed = await syncSource(ctx, 'nvd', opts({ pageSize: 2 }));
    expect(failed.status).toBe('failed');
    expect((failed as { error: string }).error).toMatch(
      /^nvd: NVD page at startIndex 2 is malformed \(vulnerabilities\.0\.cve\.id: .*\); nothing of it was stored, the previous data is kept$/,
    );
    expect(await count()).toBe(5);
    expect(await description(records.get(2)?.id as string)).toBe(before);
    expect(await description(records.get(0)?.id as string)).toBe('new 0');

    mirror.fault = (req) => (req.query.get('startIndex') === '2' ? 'not-json' : undefined);
    const truncated = await syncSource(ctx, 'nvd', opts({ pageSize: 2 }));
    expect((truncated as { error: string }).error).toMatch(/NVD page at startIndex 2 is not valid JSON/);
    expect(await description(records.get(2)?.id as string)).toBe(before);
  });

  it.skipIf(!cveExamples)(
    'reads NVD’s own records (the shared dataset’s NVD 2.0 examples) served page by page',
    async () => {
      const dir = cveExamples as string;
      mirror.rawCves = readdirSync(dir)
        .sort()
        .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as object);
      try {
        const r = await syncSource(ctx, 'nvd', opts({ pageSize: 1 }));
        expect(r).toMatchObject({ status: 'ok', records: 2 });
        expect(nvdQueries().map((q) => q.startIndex)).toEqual(['0', '1']);
        const [row] = await ctx.db.select().from(vulnRecords).where(eq(vulnRecords.id, 'CVE-2021-41773'));
        expect(row?.record).toMatchObject({ id: 'CVE-2021-41773', severity: 'high', source: 'nvd' });
        expect(row?.lastModified).toBe('2024-07-26T19:40:13.757Z');
      } finally {
        mirror.rawCves = null;
      }
    },
  );

  it('runs one at a time: a held lease makes a second run busy; a crashed run’s expired lease is taken over from its cursor', async () => {
    // worker-a died after storing the page at startIndex 0–3: its lease and cursor stay behind.
    expect(await claimLease(ctx.db, 'nvd', 'worker-a', 600)).toBe(true);
    await saveCursor(
      ctx.db,
      'nvd',
      'worker-a',
      { mode: 'full', startIndex: 4, startedAt: T0.toISOString() },
      600,
    );
    expect(await syncSource(ctx, 'nvd', opts({ owner: 'cli-b' }))).toMatchObject({ status: 'busy' });
    expect(mirror.requests).toHaveLength(0);
    await ctx.db.update(intelSources).set({ leaseUntil: new Date(Date.now() - 1000) });
    expect(await syncSource(ctx, 'nvd', opts({ owner: 'cli-b', pageSize: 2 }))).toMatchObject({
      status: 'ok',
      records: 1,
    });
    expect(nvdQueries().map((q) => q.startIndex)).toEqual(['4']);
    expect((await sourceRow(ctx.db, 'nvd'))?.cursor).toMatchObject({
      mode: 'incremental',
      since: T0.toISOString(),
    });
  });
});

describe('CISA KEV, FIRST EPSS, retire.js', () => {
  it('KEV: loads the catalogue, skips an unchanged one, and keeps it when a new one is malformed', async () => {
    mirror.kev = kevCatalogue('2026.01.02', [
      { cve: 'CVE-2021-41773', dateAdded: '2021-11-03', dueDate: '2021-11-17', ransomware: true },
      { cve: 'CVE-2019-11358', dateAdded: '2022-01-10', dueDate: '2022-07-10', ransomware: false },
    ]);
    expect(await syncSource(ctx, 'kev', opts())).toMatchObject({ status: 'ok', records: 2 });
    const [row] = await ctx.db.select().from(vulnKev).where(eq(vulnKev.cveId, 'CVE-2021-41773'));
    expect(row).toMatchObject({ dateAdded: '2021-11-03', dueDate: '2021-11-17', knownRansomware: true });
    expect(await syncSource(ctx, 'kev', opts())).toMatchObject({ status: 'unchanged', records: 2 });
    mirror.kev = {
      catalogVersion: '2026.01.03',
      vulnerabilities: [{ cveID: 'CVE-2024-1', dateAdded: 'yesterday' }],
    };
    const failed = await syncSource(ctx, 'kev', opts());
    expect(failed).toMatchObject({ status: 'failed', records: 2 });
    expect((failed as { error: string }).error).toMatch(
      /^kev: malformed KEV catalogue at vulnerabilities\.0\.cveID: .*the previous catalogue is kept$/,
    );
  });

  it('EPSS: loads the gzip CSV, skips a day already loaded, and keeps the scores when a file is malformed', async () => {
    mirror.epss = epssFile('2026-01-02', [
      ['CVE-2021-41773', 0.94365, 0.99951],
      ['CVE-2019-11358', 0.0123, 0.8],
    ]);
    expect(await syncSource(ctx, 'epss', opts())).toMatchObject({ status: 'ok', records: 2 });
    const [row] = await ctx.db.select().from(vulnEpss).where(eq(vulnEpss.cveId, 'CVE-2021-41773'));
    expect(row).toMatchObject({ percentile: expect.closeTo(0.99951, 5), scoreDate: '2026-01-02' });
    expect(row?.score).toBeCloseTo(0.94365, 5);
    expect(await syncSource(ctx, 'epss', opts())).toMatchObject({ status: 'unchanged' });
    mirror.epss = epssFile('2026-01-03', [['CVE-2021-41773', 1.7, 0.5]]);
    const failed = await syncSource(ctx, 'epss', opts());
    expect(failed).toMatchObject({ status: 'failed', records: 2 });
    expect((failed as { error: string }).error).toMatch(
      /line 3 is not "CVE-id,score,percentile"; the previous scores are kept/,
    );
  });

  it('retire.js: loads the repository as JavaScript library advisories', async () => {
    mirror.retire = {
      jquery: {
        vulnerabilities: [
          {
            below: '3.5.0',
            atOrAbove: '1.2.0',
            severity: 'medium',
            identifiers: { CVE: ['CVE-2020-11022'], summary: 'XSS in htmlPrefilter' },
            info: ['https://github.com/jquery/jquery/security/advisories/GHSA-gxr4-xjj5-5px2'],
          },
        ],
        extractors: { filename: ['jquery-(§§version§§)\\.js'] },
      },
    };
    expect(await syncSource(ctx, 'retire', opts())).toMatchObject({ status: 'ok', records: 1 });
    expect(await syncSource(ctx, 'retire', opts())).toMatchObject({ status: 'unchanged' });
    mirror.retire = ['not', 'a', 'repository'];
    expect(await syncSource(ctx, 'retire', opts())).toMatchObject({ status: 'failed', records: 1 });
  });

  it('never leaves loopback under NODE_ENV=test', async () => {
    const r = await syncSource(withEnv({ INTEL_KEV_URL: 'https://www.cisa.gov/kev.json' }), 'kev', opts());
    expect(r).toMatchObject({ status: 'failed' });
    expect((r as { error: string }).error).toMatch(/refusing www\.cisa\.gov under NODE_ENV=test/);
  });
});
