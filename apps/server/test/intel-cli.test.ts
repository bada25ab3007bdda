import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intelSources } from '../src/db/schema/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../src/lib/queue.ts';
import { INTEL_QUEUE, registerIntelJobs } from '../src/modules/intel/intel-jobs.ts';
import { sourceRow } from '../src/modules/intel/intel-repo.ts';
import type { AppContext } from '../src/server/context.ts';
import { createTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.ts';
import { epssFile, generatedRecord, IntelMirror, kevCatalogue } from './support/intel-mirror.ts';
import { REPO_ROOT } from './support/scan-lab.ts';

/**
 * `npm run cli -- intel sync|status|export` and `cve import` of a snapshot into another
 * installation; the worker's schedule (on when INTEL_SYNC=true, a first sync at once; off under
 * test by default). Sources are mirrored on 127.0.238.1.
 */
const run = promisify(execFile);
let mirror: IntelMirror;
let t: TestApp;
let other: TestApp;
let dir: string;

const urls = () => ({
  INTEL_NVD_URL: `${mirror.url}/nvd`,
  INTEL_KEV_URL: `${mirror.url}/kev.json`,
  INTEL_EPSS_URL: `${mirror.url}/epss.csv.gz`,
  INTEL_RETIRE_URL: `${mirror.url}/retire.json`,
  INTEL_NVD_REQUESTS_PER_30S: '1000',
});

beforeAll(async () => {
  mirror = await IntelMirror.start('127.0.238.1');
  mirror.nvd = { count: 3, record: (i) => generatedRecord(i, new Date('2025-12-01T00:00:00Z')) };
  mirror.kev = kevCatalogue('2026.01.02', [
    { cve: 'CVE-2000-100000', dateAdded: '2025-12-02', dueDate: '2025-12-23', ransomware: false },
  ]);
  mirror.epss = epssFile('2026-01-02', [
    ['CVE-2000-100000', 0.5, 0.97],
    ['CVE-2001-100001', 0.01, 0.4],
  ]);
  mirror.retire = {
    jquery: { vulnerabilities: [{ below: '3.5.0', identifiers: { CVE: ['CVE-2020-11022'] } }] },
  };
  t = await createTestApp(urls());
  other = await createTestApp();
  dir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-intel-cli-'));
}, 60_000);
afterAll(async () => {
  await t?.close();
  await other?.close();
  await mirror?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function cli(app: TestApp, env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
    [path.join(REPO_ROOT, 'apps/server/src/cli.ts'), ...args],
    {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: app.databaseUrl,
        PERIMETER_DATA_DIR: dir,
        PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'silent',
        ...env,
      },
      timeout: 90_000,
    },
  );
  return stdout;
}

describe('intel CLI', () => {
  it('syncs every source with progress, prints the status, exports a snapshot another site imports', async () => {
    const out = await cli(t, urls(), 'intel', 'sync');
    expect(out).toMatch(/^nvd: full load 3 of 3$/m);
    expect(out).toMatch(/^nvd: ok — 3 records stored from 1 window\(s\); 3 records$/m);
    expect(out).toMatch(/^kev: ok — 1 entries, 0 findings updated; 1 records$/m);
    expect(out).toMatch(/^epss: ok — 2 scores, 0 findings updated; 2 records$/m);
    expect(out).toMatch(/^retire: ok — 1 advisories; 1 records$/m);
    expect(await cli(t, urls(), 'intel', 'sync', '--source', 'kev')).toMatch(
      /^kev: unchanged — catalogue 2026\.01\.02 unchanged; 1 records$/m,
    );

    mirror.fault = (req) => (req.path === '/epss.csv.gz' ? 404 : undefined);
    await expect(cli(t, urls(), 'intel', 'sync', '--source', 'epss')).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringMatching(
        /^epss: FAILED — epss: HTTP 404 for http:\/\/127\.0\.238\.1:\d+\/epss\.csv\.gz$/m,
      ),
    });
    mirror.fault = () => undefined;
  }, 240_000);

  it('status: per source records, last success, last error, next run; leak providers', async () => {
    const status = await cli(t, { ...urls(), HIBP_API_KEY: 'k1', DEHASHED_API_KEY: 'k2' }, 'intel', 'status');
    expect(status).toMatch(
      /^nvd +records +3 {2}last success \d{4}-\d\d-\d\dT[\d:]+Z {2}not scheduled \(INTEL_SYNC\)$/m,
    );
    expect(status).toMatch(/^epss +records +2 .*\n {8}last error \S+: epss: HTTP 404/m);
    expect(status).toMatch(/^CVE database: 4 records, current$/m);
    expect(status).toMatch(/^leak providers: hibp, dehashed; local leak index: 0 records$/m);
    const scheduled = await cli(
      t,
      { ...urls(), INTEL_SYNC: 'true', INTEL_SOURCES: 'nvd,kev,retire' },
      'intel',
      'status',
    );
    expect(scheduled).toMatch(/^kev .* next run \d{4}-\d\d-\d\dT\d\d:17:00Z$/m);
    // A source turned off (INTEL_SOURCES) says so, and keeps what it loaded.
    expect(scheduled).toMatch(/^epss +records +2 .* off$/m);
    expect(scheduled).toMatch(
      /^leak providers: none configured \(set HIBP_API_KEY, LEAKCHECK_API_KEY or DEHASHED_API_KEY\)/m,
    );
  }, 120_000);

  it('export → cve import moves the database, KEV, EPSS and the sync cursors to an air-gapped site', async () => {
    const file = path.join(dir, 'intel.ndjson.gz');
    expect(await cli(t, {}, 'intel', 'export', file)).toMatch(
      /^exported 4 CVE records, 1 KEV entries and 2 EPSS scores/,
    );
    expect(await cli(other, {}, 'cve', 'import', file)).toMatch(
      /intel snapshot, 4 records, 1 KEV entries, 2 EPSS scores/,
    );
    const nvd = await sourceRow(other.runtime.ctx.db, 'nvd');
    expect(nvd?.cursor).toMatchObject({ mode: 'incremental' });
    expect(nvd?.lastSuccessAt).not.toBeNull();
    const status = await cli(other, {}, 'intel', 'status');
    expect(status).toMatch(/^CVE database: 4 records, current$/m);
  }, 120_000);
});

describe('the worker schedule', () => {
  let boss: PgBoss;
  let workers: Awaited<ReturnType<typeof registerIntelJobs>>;
  afterAll(async () => {
    await workers?.stop(1000);
    await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  });
  const withEnv = (env: Partial<AppContext['config']['env']>): AppContext => ({
    ...other.runtime.ctx,
    config: { ...other.runtime.ctx.config, env: { ...other.runtime.ctx.config.env, ...env } },
  });

  it('is off under test by default; with INTEL_SYNC=true it is scheduled and a never-synced source syncs at once', async () => {
    boss = await startQueue(other.databaseUrl, createLogger('silent'));
    await registerIntelJobs(other.runtime.ctx, boss);
    expect((await boss.getSchedules()).map((s) => s.name)).not.toContain(INTEL_QUEUE);

    mirror.kev = kevCatalogue('2026.01.05', [
      { cve: 'CVE-2001-100001', dateAdded: '2026-01-05', dueDate: '2026-01-26', ransomware: true },
    ]);
    // KEV has never been synced here: the worker syncs it at once instead of waiting for the cron.
    await other.runtime.ctx.db.delete(intelSources).where(eq(intelSources.source, 'kev'));
    const ctx = withEnv({ INTEL_SYNC: true, INTEL_SOURCES: 'kev', INTEL_KEV_URL: `${mirror.url}/kev.json` });
    workers = await registerIntelJobs(ctx, boss);
    expect((await boss.getSchedules()).find((s) => s.name === INTEL_QUEUE)?.cron).toBe('17 */6 * * *');
    const until = Date.now() + 45_000;
    let row = await sourceRow(other.runtime.ctx.db, 'kev');
    while (!row?.lastSuccessAt && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      row = await sourceRow(other.runtime.ctx.db, 'kev');
    }
    expect(row).toMatchObject({ records: 1, cursor: { version: '2026.01.05' }, lastError: null });
  }, 60_000);
});
