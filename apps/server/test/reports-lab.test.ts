import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TEvent, TReport } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  type Api,
  addVerifiedDomain,
  createScan,
  labEnv,
  loadIntel,
  type PgBoss,
  signUp,
  startWorkers,
  waitForScan,
} from './support/scan-lab.ts';

/**
 * Reports of real scans of the lab: the data report and the three files carry exactly the
 * findings the events endpoints show for the scan, and a second scan reports nothing new.
 */
const DOMAIN = 'acme.test';
let lab: Lab;
let t: TestApp;
let boss: PgBoss;
let api: Api;
let token: string;
const outDir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-report-lab-'));

beforeAll(async () => {
  lab = await startLab({ subnet: '127.0.152', dnsPort: 0 });
  t = await createTestApp(labEnv(lab));
  boss = await startWorkers(t);
  await loadIntel(t.runtime.ctx, lab);
  ({ api, token } = await signUp(t, 'business'));
}, 120_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
  await lab?.stop();
});

async function scanEvents(scanId: string): Promise<TEvent[]> {
  const out: TEvent[] = [];
  for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck'] as const) {
    for (let offset = 0; ; offset += 100) {
      const res = await api.post<{ data: { items: TEvent[]; total: number } }>(
        `/main/get_one_user_abstract_scan_events?limit=100&offset=${offset}`,
        { scan_subclass: sub, id: scanId },
      );
      expect(res.status).toBe(200);
      out.push(...res.body.data.items);
      if (
        res.body.data.items.length === 0 ||
        out.filter((e) => e.scan_subclass === sub).length >= res.body.data.total
      )
        break;
    }
  }
  return out;
}

async function fullScan(targetId: string): Promise<string> {
  const scan = await createScan(api, targetId);
  const started = await api.post('/main/start_created_abstract_scan', { id: scan.id });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const done = await waitForScan(api, scan.id, ['done', 'canceled'], 170_000);
  expect(done.status, done.message ?? '').toBe('done');
  return scan.id;
}

async function file(scanId: string, format: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/main/get_user_events_file_report',
    headers: { authorization: `Bearer ${token}` },
    payload: { id: scanId, format },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res;
}

describe('reports of lab scans', () => {
  it('data report, PDF, CSV and JSON hold exactly the scan’s findings; a rescan reports nothing new', async () => {
    const targetId = await addVerifiedDomain(api, lab, DOMAIN);
    const first = await fullScan(targetId);
    const events = await scanEvents(first);
    expect(events.length).toBeGreaterThan(0);

    const data = await api.get<{ data: TReport }>(`/main/get_user_events_data_report?id=${first}`);
    expect(data.status).toBe(200);
    const report = data.body.data;
    expect(report.findings.map((f) => f.id).sort()).toEqual(events.map((e) => e.id).sort());
    expect(report.changes.previous_scan_id).toBeNull();
    expect(report.changes.new).toHaveLength(events.length);
    expect(report.cves.length).toBe(events.filter((e) => e.scan_subclass === 'exploit_db').length);
    expect(report.leaks.length).toBe(events.filter((e) => e.scan_subclass === 'leakcheck').length);
    expect(report.scope.length).toBeGreaterThan(0);

    const csv = await file(first, 'csv');
    expect(
      csv.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n'),
    ).toHaveLength(events.length + 1);
    const json = JSON.parse((await file(first, 'json')).body) as TReport;
    expect(json.findings.map((f) => f.id).sort()).toEqual(events.map((e) => e.id).sort());

    const pdf = await file(first, 'pdf');
    const pdfPath = path.join(outDir, 'lab.pdf');
    writeFileSync(pdfPath, pdf.rawPayload);
    const text = execFileSync('pdftotext', [pdfPath, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    for (const e of events) {
      if (e.scan_subclass === 'exploit_scanner')
        expect(text, e.name).toContain(e.name.replace(/\s+/g, ' ').slice(0, 40));
      if (e.scan_subclass === 'exploit_db') expect(text, e.cve).toContain(e.cve);
      if (e.scan_subclass === 'leakcheck') expect(text, e.email).toContain(e.email);
    }
    console.log(`lab report: ${events.length} findings, PDF ${pdf.rawPayload.length} bytes at ${pdfPath}`);

    const second = await fullScan(targetId);
    const again = await api.get<{ data: TReport }>(`/main/get_user_events_data_report?id=${second}`);
    expect(again.body.data.changes.previous_scan_id).toBe(first);
    expect(again.body.data.changes.new).toEqual([]);
    expect(again.body.data.changes.regressed).toEqual([]);
  }, 420_000);
});
