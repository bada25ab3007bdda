import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LeakCipher } from '@perimeter/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgLeakSource, PgVulnStore } from '../src/modules/scans/scans-intel-repo.ts';
import { createTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.ts';
import { datasetPath, REPO_ROOT } from './support/scan-lab.ts';

/** `npm run cli -- cve import …` and `leaks import …` load the PostgreSQL stores the scans use. */
const run = promisify(execFile);
let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await createTestApp();
  dir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-intel-'));
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(
    path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
    [path.join(REPO_ROOT, 'apps/server/src/cli.ts'), ...args],
    {
      env: {
        ...process.env,
        DATABASE_URL: t.databaseUrl,
        PERIMETER_DATA_DIR: dir,
        PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'silent',
      },
      timeout: 60_000,
    },
  );
  return stdout;
}

const cveExamples = datasetPath('cve', 'nvd-json-2.0-examples');

describe('operator commands for the CVE database and the leak index', () => {
  it.skipIf(!cveExamples)(
    'cve import loads a directory of NVD 2.0 files; importing again changes nothing',
    async () => {
      const out = await cli('cve', 'import', cveExamples as string);
      expect(out).toMatch(/imported 2 records from 2 feed\(s\); the CVE database holds 2/);
      const store = new PgVulnStore(t.runtime.ctx.db);
      const apache = await store.candidates(['apache:http_server']);
      expect(apache.map((r) => r.id)).toContain('CVE-2021-41773');
      expect((await store.candidates(['*:grafana'])).map((r) => r.id)).toContain('CVE-2021-43798');
      await store.add([...apache]);
      expect(await store.size()).toBe(2);
    },
    90_000,
  );

  it('leaks import reads combo lists and CSV, merges duplicates and keeps passwords encrypted', async () => {
    const combo = path.join(dir, 'combo.txt');
    await writeFile(combo, 'alice@corp.example:Winter2020!\nbob@mail.corp.example;hunter22\nnot a line\n');
    const csv = path.join(dir, 'dump.csv');
    await writeFile(
      csv,
      'email,password,source,leak date\nalice@corp.example,Winter2020!,forum|paste,2020-01-02\n',
    );
    expect(await cli('leaks', 'import', combo, '--source', 'combo-2020')).toMatch(/imported 2 leak records/);
    expect(await cli('leaks', 'import', csv)).toMatch(/imported 1 leak records/);
    const source = new PgLeakSource(
      t.runtime.ctx.db,
      new LeakCipher(t.runtime.ctx.config.secrets.encryptionKey),
    );
    const found = await source.searchDomain('corp.example');
    expect(
      found.map((f) => `${f.email} ${f.sources.join('|')} ${f.leakDate ?? '-'} ${f.passwordMasked}`),
    ).toEqual([
      'alice@corp.example combo-2020 - W*********!',
      'alice@corp.example forum|paste 2020-01-02 W*********!',
      'bob@mail.corp.example combo-2020 - h******2',
    ]);
    const raw = await t.runtime.ctx.database.pool.query('select password_encrypted from leak_records');
    expect(JSON.stringify(raw.rows)).not.toContain('Winter2020');
    await cli('leaks', 'import', combo, '--source', 'combo-2020');
    expect(await source.searchDomain('corp.example')).toHaveLength(3);
  }, 90_000);
});
