import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TEvent, TReport, TScanProgress } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  type Api,
  addVerifiedDomain,
  allEvents,
  createScan,
  expectedOfDomain,
  findingKey,
  labEnv,
  loadIntel,
  type PgBoss,
  signUp,
  startWorkers,
  waitForScan,
} from './support/scan-lab.ts';

/**
 * Reports of real scans of the lab: the data report and the three files carry exactly the lab's
 * expected findings of the domain (the same the events endpoints show), and a second scan
 * reports nothing new. Only the lab's own CVE feed and leak corpus are loaded.
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
  for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck'] as const)
    out.push(...(await allEvents(api, sub, scanId)));
  return out;
}

/** RFC 4180 rows (quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

const sorted = (xs: string[]) => [...xs].sort();
const strip = (s: string) => s.replace(/\s+/g, '');
const SEVERITY_LABEL: Record<string, string> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  informational: 'Informational',
  unknown: 'Unknown',
};

/** Takes each row out of `text` once (longest first): the rows not found, and what is left. */
function takeRows(text: string, rows: string[]): { missing: string[]; rest: string } {
  let rest = text;
  const missing: string[] = [];
  for (const row of [...rows].sort((a, b) => b.length - a.length)) {
    const i = rest.indexOf(row);
    if (i < 0) missing.push(row);
    else rest = `${rest.slice(0, i)}¦${rest.slice(i + row.length)}`;
  }
  return { missing, rest };
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
  it('data report, PDF, CSV and JSON hold exactly the lab’s expected findings; a rescan reports nothing new', async () => {
    const targetId = await addVerifiedDomain(api, lab, DOMAIN);
    const first = await fullScan(targetId);
    const want = expectedOfDomain(lab, DOMAIN);
    const wantOf = (sub: string) => sorted(want.filter((f) => f.subclass === sub).map(findingKey));

    // The events of the scan are exactly the expected findings; from here on the report is
    // compared with them (ids, names, hosts) and with expected.json (CVE rows, leak rows).
    const events = await scanEvents(first);
    expect(sorted(events.map(findingKey))).toEqual(sorted(want.map(findingKey)));
    const byId = new Map(events.map((e) => [e.id, e]));
    const line = (f: { scan_subclass: string; name: string; host: string }) =>
      `${f.scan_subclass} | ${f.name} | ${f.host}`;

    const data = await api.get<{ data: TReport }>(`/main/get_user_events_data_report?id=${first}`);
    expect(data.status).toBe(200);
    const report = data.body.data;
    expect(report.restricted).toBeNull();
    expect(sorted(report.findings.map((f) => f.id))).toEqual(sorted(events.map((e) => e.id)));
    for (const f of report.findings) {
      const e = byId.get(f.id);
      expect(f.scan_subclass, f.id).toBe(e?.scan_subclass);
      if (e?.scan_subclass === 'exploit_scanner') expect(`${f.name} ${f.host}`).toBe(`${e.name} ${e.host}`);
      if (e?.scan_subclass === 'exploit_db') {
        expect(f.name).toContain(e.cve);
        expect(f.host).toBe(e.port ? `${e.host}:${e.port}` : e.host);
      }
      if (e?.scan_subclass === 'leakcheck') expect(f.name).toContain(e.email);
    }
    const cveRow = (c: TReport['cves'][number]) =>
      `exploit_db ${c.cve} ${c.host}:${c.port ?? ''} ${c.tech} ${c.version}`;
    const leakRow = (l: TReport['leaks'][number]) =>
      `leakcheck ${l.email} ${l.leak_date ?? ''} ${sorted(l.sources).join('|')}`;
    expect(sorted(report.cves.map(cveRow))).toEqual(wantOf('exploit_db'));
    expect(sorted(report.leaks.map(leakRow))).toEqual(wantOf('leakcheck'));
    expect(report.summary.total).toBe(want.length);
    expect(report.summary.by_subclass).toEqual({
      exploit_scanner: wantOf('exploit_scanner').length,
      exploit_db: wantOf('exploit_db').length,
      leakcheck: wantOf('leakcheck').length,
    });
    // The scan page's numbers agree: the progress panel's counts, the findings total and the
    // scope chips count the same things.
    const progress = await api.get<{ data: TScanProgress }>(
      `/main/get_user_abstract_scan_progress?id=${first}`,
    );
    const scope = await api.post<{ data: { summary: Record<string, number> } }>(
      '/main/get_one_user_abstract_scan_scope?limit=20&offset=0',
      { id: first, targets_type: 'domain', sort_order: 'desc' },
    );
    expect(scope.status).toBe(200);
    const counts = progress.body.data.counts;
    const chips = scope.body.data.summary;
    expect(counts.findings).toBe(report.summary.total);
    for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck'] as const)
      expect(counts[sub] ?? 0, sub).toBe(report.summary.by_subclass[sub]);
    expect({
      subdomains: counts.subdomain ?? 0,
      ip_addresses: counts.ip ?? 0,
      technologies: counts.technology ?? 0,
      emails: counts.email ?? 0,
    }).toEqual({
      subdomains: chips.subdomains,
      ip_addresses: chips.ip_addresses,
      technologies: chips.technologies,
      emails: chips.emails,
    });
    expect(report.changes.previous_scan_id).toBeNull();
    expect(sorted(report.changes.new.map((c) => c.id))).toEqual(sorted(events.map((e) => e.id)));
    expect(report.scope.length).toBeGreaterThan(0);

    // JSON file: the same findings, CVE rows and leak rows.
    const json = JSON.parse((await file(first, 'json')).body) as TReport;
    expect(sorted(json.findings.map((f) => f.id))).toEqual(sorted(events.map((e) => e.id)));
    expect(json.findings).toEqual(report.findings);
    expect(sorted(json.cves.map(cveRow))).toEqual(wantOf('exploit_db'));
    expect(sorted(json.leaks.map(leakRow))).toEqual(wantOf('leakcheck'));

    // CSV file: one row per finding, the same subclass, name and host as the data report.
    const csv = parseCsv((await file(first, 'csv')).body.replace(/^\uFEFF/, ''));
    const header = csv[0] ?? [];
    const col = (name: string) => header.indexOf(name);
    expect(col('scan_subclass')).toBeGreaterThanOrEqual(0);
    const csvLines = csv.slice(1).map((r) =>
      line({
        scan_subclass: r[col('scan_subclass')] ?? '',
        name: r[col('name')] ?? '',
        host: r[col('host')] ?? '',
      }),
    );
    expect(sorted(csvLines)).toEqual(sorted(report.findings.map(line)));

    // PDF: the "what changed" table lists every finding (severity, name, host) and no other;
    // every finding has its block; the CVE table and the leak table hold exactly the expected rows.
    const pdf = await file(first, 'pdf');
    const pdfPath = path.join(outDir, 'lab.pdf');
    writeFileSync(pdfPath, pdf.rawPayload);
    const flat = execFileSync('pdftotext', [pdfPath, '-'], { encoding: 'utf8' })
      .replace(/Perimeter · confidential · page \d+ of \d+/g, ' ')
      .replace(/\s+/g, ' ');
    const at = (heading: string, from: number) => {
      const i = flat.indexOf(heading, from);
      expect(i, heading).toBeGreaterThan(-1);
      return i;
    };
    const changesAt = at('What changed since the previous scan', 0);
    const findingsAt = at('Findings by severity', changesAt);
    const cveAt = at('Known vulnerabilities (CVE) and technologies', findingsAt);
    const leakAt = at('Leaked credentials', cveAt);
    const scopeAt = at('Appendix: scope of the scan', leakAt);

    const changes = takeRows(
      strip(flat.slice(changesAt, findingsAt)),
      report.findings.map((f) => strip(`${SEVERITY_LABEL[f.severity]}${f.name}${f.host}`)),
    );
    expect(changes.missing, 'findings missing from the PDF').toEqual([]);
    expect(changes.rest, 'a finding in the PDF that is not expected').not.toContain(DOMAIN);

    const blocks = flat.slice(findingsAt, cveAt);
    expect(sorted([...blocks.matchAll(/Host: (\S+) · Status: new/g)].map((m) => m[1] ?? ''))).toEqual(
      sorted(report.findings.map((f) => f.host)),
    );
    for (const f of report.findings) expect(strip(blocks), f.name).toContain(strip(f.name));

    const cveRows = strip(flat.slice(cveAt, leakAt))
      .split(/(?=CVE-\d{4}-\d{4,}(?:Critical|High|Medium|Low|Informational|Unknown))/)
      .filter((r) => /^CVE-\d/.test(r))
      .map((r) =>
        r.replace(/^(CVE-\d{4}-\d+)(?:Critical|High|Medium|Low|Informational|Unknown)(?:\([\d.]+\))?/, '$1'),
      );
    const wantCves = want.flatMap((f) =>
      f.subclass === 'exploit_db' ? [strip(`${f.cve}${f.tech}${f.version}${f.host}:${f.port}`)] : [],
    );
    const unused = [...cveRows];
    // Longest first, so that `host:80` cannot take the row of `host:8080`.
    const missingCves = [...wantCves]
      .sort((a, b) => b.length - a.length)
      .filter((w) => {
        const i = unused.findIndex((r) => r.startsWith(w));
        if (i >= 0) unused.splice(i, 1);
        return i < 0;
      });
    expect(missingCves, 'CVE rows missing from the PDF').toEqual([]);
    expect(unused, 'CVE rows in the PDF that are not expected').toEqual([]);

    const leakRows = takeRows(
      strip(flat.slice(leakAt, scopeAt)),
      report.leaks.map((l) => strip(`${l.email}${l.password}${l.leak_date ?? '—'}${l.sources.join(', ')}`)),
    );
    expect(leakRows.missing, 'leak rows missing from the PDF').toEqual([]);
    expect(leakRows.rest, 'a leak row in the PDF that is not expected').not.toContain(`@${DOMAIN}`);
    console.log(`lab report: ${events.length} findings, PDF ${pdf.rawPayload.length} bytes at ${pdfPath}`);

    const second = await fullScan(targetId);
    const again = await api.get<{ data: TReport }>(`/main/get_user_events_data_report?id=${second}`);
    expect(again.body.data.changes.previous_scan_id).toBe(first);
    expect(again.body.data.changes.new).toEqual([]);
    expect(again.body.data.changes.regressed).toEqual([]);
    expect(again.body.data.changes.fixed).toEqual([]);
    expect(sorted(again.body.data.findings.map((f) => f.id))).toEqual(sorted(events.map((e) => e.id)));
  }, 420_000);
});
