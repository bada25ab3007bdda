import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TEvent, TIntelDatabase, TReport } from '@perimeter/contracts';
import { LAB_CVE_FEED_PATH, type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intelSources } from '../src/db/schema/index.ts';
import { logDatabaseNotice } from '../src/modules/intel/intel-service.ts';
import { syncSource } from '../src/modules/intel/intel-sync.ts';
import { importCveSources } from '../src/modules/scans/scans-intel-service.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { epssFile, IntelMirror, kevCatalogue } from './support/intel-mirror.ts';
import {
  type Api,
  addVerifiedDomain,
  allEvents,
  createScan,
  labEnv,
  type PgBoss,
  signUp,
  startWorkers,
  waitForScan,
} from './support/scan-lab.ts';

/**
 * KEV and EPSS joined to the CVE events of real lab scans (lab 127.0.237.x, sources mirrored on
 * 127.0.236.1): the "database empty" and "leak check not configured" notices, the known-exploited
 * filter, the EPSS sort, the fix-first order of the report, the backport note of a distribution
 * banner, a later KEV sync reaching findings already stored, and a database older than
 * INTEL_STALE_DAYS (3 here) said stale.
 */
const DOMAIN = 'acme.test';
let lab: Lab;
let mirror: IntelMirror;
let t: TestApp;
let boss: PgBoss;
let api: Api;
let token: string;
let targetId: string;

beforeAll(async () => {
  lab = await startLab({ subnet: '127.0.237', dnsPort: 0 });
  mirror = await IntelMirror.start('127.0.236.1');
  t = await createTestApp(
    labEnv(lab, {
      INTEL_KEV_URL: `${mirror.url}/kev.json`,
      INTEL_EPSS_URL: `${mirror.url}/epss.csv.gz`,
      INTEL_STALE_DAYS: '3',
    }),
  );
  boss = await startWorkers(t);
  ({ api, token } = await signUp(t, 'business'));
  targetId = await addVerifiedDomain(api, lab, DOMAIN);
}, 120_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
  await mirror?.stop();
  await lab?.stop();
});

/** A scan of the CVE and leak subclasses only (no templates: faster, and all this file needs). */
async function cveScan(): Promise<string> {
  const scan = await createScan(api, targetId, {
    scan_type: 'custom',
    custom_scan_config: { subclasses: ['exploit_db', 'leakcheck'] },
  });
  const started = await api.post('/main/start_created_abstract_scan', { id: scan.id });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const done = await waitForScan(api, scan.id, ['done', 'canceled'], 170_000);
  expect(done.status, done.message ?? '').toBe('done');
  return scan.id;
}

const report = async (scanId: string) =>
  (await api.get<{ data: TReport }>(`/main/get_user_events_data_report?id=${scanId}`)).body.data;
type CveEvent = Extract<TEvent, { scan_subclass: 'exploit_db' }>;
const cves = async (body: Record<string, unknown> = {}) =>
  (
    await api.post<{ data: { items: CveEvent[] } }>('/main/get_all_user_abstract_scan_events?limit=100', {
      scan_subclass: 'exploit_db',
      ...body,
    })
  ).body.data.items;

describe('vulnerability intelligence in lab scans', () => {
  it('an empty database and no leak source are said, not shown as "no vulnerabilities" and "0 leaks"', async () => {
    const db = await api.get<{ data: TIntelDatabase }>('/intel/database');
    expect(db.status).toBe(200);
    expect(db.body.data).toMatchObject({ state: 'empty', cve_records: 0, sync_scheduled: false });
    const scanId = await cveScan();
    const r = await report(scanId);
    expect(r.summary.by_subclass.exploit_db).toBe(0);
    expect(r.summary.notices).toEqual(['leak_check_not_configured', 'cve_database_empty']);
    expect((await api.get('/intel/database')).status).toBe(200);
  }, 200_000);

  it('KEV and EPSS reach the CVE events: filter, EPSS sort, fix-first report order, backport notes', async () => {
    await importCveSources(t.runtime.ctx, [fileURLToPath(LAB_CVE_FEED_PATH)], () => {});
    mirror.kev = kevCatalogue('2026.01.02', [
      { cve: 'CVE-2021-41773', dateAdded: '2021-11-03', dueDate: '2021-11-17', ransomware: true },
      { cve: 'CVE-2019-11358', dateAdded: '2022-01-10', dueDate: '2022-07-10', ransomware: false },
    ]);
    mirror.epss = epssFile('2026-01-02', [
      ['CVE-2021-41773', 0.94365, 0.99951],
      ['CVE-2021-42013', 0.9421, 0.9993],
      ['CVE-2016-6210', 0.0512, 0.8912],
      ['CVE-2019-11358', 0.0123, 0.7801],
    ]);
    const opts = { owner: 'test', retryBaseMs: 10 };
    expect(await syncSource(t.runtime.ctx, 'kev', opts)).toMatchObject({ status: 'ok', records: 2 });
    expect(await syncSource(t.runtime.ctx, 'epss', opts)).toMatchObject({ status: 'ok', records: 4 });
    expect((await api.get<{ data: TIntelDatabase }>('/intel/database')).body.data.state).toBe('current');

    const scanId = await cveScan();
    const events = (await allEvents(api, 'exploit_db', scanId)) as CveEvent[];
    const byCve = new Map(events.map((e) => [e.cve, e]));
    expect(byCve.get('CVE-2021-41773')).toMatchObject({
      kev: true,
      kev_date_added: '2021-11-03',
      kev_due_date: '2021-11-17',
      kev_ransomware: true,
      epss_percentile: expect.closeTo(0.99951, 4),
      match_confidence: 'medium',
    });
    expect(byCve.get('CVE-2021-41773')?.epss_score).toBeCloseTo(0.94365, 4);
    expect(byCve.get('CVE-2021-41773')?.backport_note).toMatch(
      /banner announces \("Apache\/2\.4\.49 \(Unix\)"\)/,
    );
    expect(byCve.get('CVE-2015-9251')).toMatchObject({
      kev: false,
      epss_score: null,
      match_confidence: 'high',
      backport_note: null,
    });
    // OpenSSH's greeting names Ubuntu's package revision: the fix may be backported.
    const ssh = byCve.get('CVE-2016-6210');
    expect(ssh).toMatchObject({ match_confidence: 'low', package_revision: '4ubuntu2.10' });
    expect(ssh?.backport_note).toMatch(
      /Ubuntu package revision 4ubuntu2\.10: Ubuntu backports security fixes/,
    );

    const unique = (xs: string[]) => [...new Set(xs)].sort();
    const kevOnly = await cves({ known_exploited: true });
    expect(unique(kevOnly.map((e) => e.cve))).toEqual(['CVE-2019-11358', 'CVE-2021-41773']);
    const byEpss = await cves({ sort_key: 'epss_score', sort_order: 'desc' });
    const scored = byEpss.filter((e) => e.epss_score !== null);
    expect(unique(scored.map((e) => e.cve))).toEqual([
      'CVE-2016-6210',
      'CVE-2019-11358',
      'CVE-2021-41773',
      'CVE-2021-42013',
    ]);
    expect(byEpss[0]?.cve).toBe('CVE-2021-41773');
    // Descending, and the CVEs without a score last.
    const scores = byEpss.map((e) => e.epss_score ?? -1);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));

    const r = await report(scanId);
    expect(r.summary.notices).toEqual(['leak_check_not_configured']);
    // What to fix first: known exploited, then by EPSS, then severity.
    const rank = (c: TReport['cves'][number]) => [c.kev ? 1 : 0, c.epss_score ?? -1];
    for (let i = 1; i < r.cves.length; i++) {
      const [ka, ea] = rank(r.cves[i - 1] as TReport['cves'][number]) as [number, number];
      const [kb, eb] = rank(r.cves[i] as TReport['cves'][number]) as [number, number];
      expect(ka > kb || (ka === kb && ea >= eb)).toBe(true);
    }
    expect(r.cves[0]?.cve).toBe('CVE-2021-41773');
    expect(r.cves.find((c) => c.cve === 'CVE-2016-6210')?.backport_note).toMatch(/Ubuntu package revision/);

    // The PDF says it too.
    const pdf = await t.app.inject({
      method: 'POST',
      url: '/api/main/get_user_events_file_report',
      headers: { authorization: `Bearer ${token}` },
      payload: { id: scanId, format: 'pdf' },
    });
    expect(pdf.statusCode).toBe(200);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-intel-pdf-'));
    writeFileSync(path.join(dir, 'r.pdf'), pdf.rawPayload);
    const text = execFileSync('pdftotext', [path.join(dir, 'r.pdf'), '-'], { encoding: 'utf8' }).replace(
      /\s+/g,
      ' ',
    );
    rmSync(dir, { recursive: true, force: true });
    expect(text).toContain('Known exploited (CISA KEV), used by ransomware, fix by 2021-11-17');
    expect(text).toContain('EPSS 94.4% (percentile 100)');
    expect(text).toContain('Leak check not configured');
    expect(text).toMatch(/Ubuntu package revision 4ubuntu2\.10/);

    // A later KEV catalogue reaches the findings already stored.
    mirror.kev = kevCatalogue('2026.01.03', [
      { cve: 'CVE-2016-6210', dateAdded: '2026-01-03', dueDate: '2026-01-24', ransomware: false },
    ]);
    expect(await syncSource(t.runtime.ctx, 'kev', opts)).toMatchObject({ status: 'ok', records: 1 });
    expect(unique((await cves({ known_exploited: true })).map((e) => e.cve))).toEqual(['CVE-2016-6210']);
  }, 200_000);

  it('a database not updated for INTEL_STALE_DAYS is said stale: the CVE tab, the scan summary, the start-up log', async () => {
    const ctx = t.runtime.ctx;
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000);
    await ctx.db.update(intelSources).set({ lastSuccessAt: fiveDaysAgo });
    const db = (await api.get<{ data: TIntelDatabase }>('/intel/database')).body.data;
    expect(db).toMatchObject({
      state: 'stale',
      stale_after_days: 3,
      last_success_at: fiveDaysAgo.toISOString(),
    });
    expect(db.cve_records).toBeGreaterThan(0);

    const scanId = await cveScan();
    expect((await report(scanId)).summary.notices).toEqual([
      'leak_check_not_configured',
      'cve_database_stale',
    ]);

    const warned: string[] = [];
    const logger = Object.assign(Object.create(ctx.logger), {
      warn: (line: string) => warned.push(line),
      info: () => {},
    });
    await logDatabaseNotice({ ...ctx, logger });
    expect(warned).toEqual([
      expect.stringMatching(
        /^The CVE database \(\d+ records\) has not been updated since \d{4}-\d\d-\d\d \(stale after 3 days\) — run `npm run cli -- intel sync`/,
      ),
    ]);
  }, 200_000);
});
