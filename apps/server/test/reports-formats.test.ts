import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { TEventsPage, TReport } from '@perimeter/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { client } from './support/app.ts';
import { seedScan, seedTarget } from './support/findings-seed.ts';
import { useReportsApp } from './support/reports-fixture.ts';

// The report on a plan that hides details, CSV and JSON, who may read a report, and a large PDF;
// the report's sections and languages: reports.test.ts.
const { app, outDir, signUp, seedTwoScans, fileReport, pdfText } = useReportsApp();

describe('file reports', () => {
  it('trial plan: details hidden, and the PDF says so and what unlocks them', async () => {
    const { token, userId } = await signUp('trial_scan');
    const { second } = await seedTwoScans(userId);
    const data = await client(app.t.app, token).get<{ data: TReport }>(
      `/main/get_user_events_data_report?id=${second.id}`,
    );
    expect(data.body.data.restricted?.unlock_plans).toEqual(['try_it', 'starter', 'business', 'enterprise']);
    expect(data.body.data.findings[0]!.how_to_reproduce).toBeNull();
    // What was found stays on every surface; the details are hidden on every surface.
    expect(data.body.data.leaks).toEqual([expect.objectContaining({ password: '', sources: [] })]);
    expect(data.body.data.cves.map((c) => [c.cve, c.description])).toEqual([['CVE-2020-11022', null]]);
    const api = client(app.t.app, token);
    for (const [path, scope] of [
      ['/main/get_all_user_abstract_scan_events', {}],
      ['/main/get_one_user_abstract_scan_events', { id: second.id }],
    ] as const) {
      const scanner = await api.post<{ data: TEventsPage }>(path, {
        ...scope,
        scan_subclass: 'exploit_scanner',
      });
      expect(scanner.status).toBe(200);
      expect(scanner.body.data.details_hidden).toBe(true);
      const env = scanner.body.data.items.find(
        (i) => i.scan_subclass === 'exploit_scanner' && i.name === 'Exposed .env file',
      );
      expect(env).toMatchObject({
        evidence: null,
        description: null,
        remediation: null,
        impact: null,
        references: [],
      });
      const cve = await api.post<{ data: TEventsPage }>(path, { ...scope, scan_subclass: 'exploit_db' });
      expect(cve.body.data.items).toEqual([
        expect.objectContaining({ cve: 'CVE-2020-11022', description: null, references: [], cwe: [] }),
      ]);
      const leaks = await api.post<{ data: TEventsPage }>(path, { ...scope, scan_subclass: 'leakcheck' });
      expect(leaks.body.data.items).toEqual([expect.objectContaining({ password: '', sources: [] })]);
    }
    const csv = await fileReport(token, { id: second.id, format: 'csv' });
    expect(csv.body).toContain('Exposed .env file');
    expect(csv.body).not.toContain('curl -sk');
    const res = await fileReport(token, { id: second.id, format: 'pdf' });
    const text = pdfText(res.rawPayload, 'trial');
    expect(text).toContain('Part of this report is hidden');
    expect(text).toMatch(/Try it!, Starter, Business or\s+Enterprise/);
    expect(text).toContain('Hidden on the Trial scan plan');
    expect(text).toContain('Exposed .env file');
    expect(text).not.toContain('curl -sk');
    expect(text).not.toContain('pa******rd');
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      '60',
      '-f',
      '1',
      '-l',
      '3',
      path.join(outDir, 'trial.pdf'),
      path.join(outDir, 'trial'),
    ]);
  });

  it('CSV: one row per finding, formula injection neutralised; JSON equals the data report', async () => {
    const { token, userId } = await signUp();
    const { second } = await seedTwoScans(userId);
    const csv = await fileReport(token, { id: second.id, format: 'csv' });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toMatch(/filename=".*\.csv"/);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toMatch(/^scan_subclass,severity,name,host/);
    expect(lines).toHaveLength(5);
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil"")"`);

    const json = await fileReport(token, {
      id: second.id,
      format: 'json',
      options: { severity: ['critical'] },
    });
    expect(json.headers['content-disposition']).toMatch(/filename=".*\.json"/);
    const fromFile = JSON.parse(json.body) as TReport;
    expect(fromFile.findings.map((f) => f.name)).toEqual(['Exposed .env file']);
    const data = await client(app.t.app, token).get<{ data: TReport }>(
      `/main/get_user_events_data_report?id=${second.id}`,
    );
    const all = await fileReport(token, { id: second.id, format: 'json' });
    const { generated_at: _a, ...a } = JSON.parse(all.body) as TReport;
    const { generated_at: _b, ...b } = data.body.data;
    expect(a).toEqual(b);
  });

  it('another user’s scan id answers 404; bad bodies and queries never 5xx', async () => {
    const owner = await signUp();
    const other = await signUp();
    const { second } = await seedTwoScans(owner.userId);
    expect((await fileReport(other.token, { id: second.id, format: 'csv' })).statusCode).toBe(404);
    expect((await fileReport(other.token, { id: second.id, format: 'pdf' })).statusCode).toBe(404);
    expect(
      (await client(app.t.app, other.token).get(`/main/get_user_events_data_report?id=${second.id}`)).status,
    ).toBe(404);
    expect((await fileReport('', { id: second.id })).statusCode).toBe(401);

    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(second.id, 'pdf', 'csv', 'json', 'xml', 'ru', ['critical'], ['nope'], {}),
      fc.dictionary(
        fc.constantFrom('language', 'severity', 'subclasses', 'hide_resolved', 'x'),
        fc.anything(),
      ),
    );
    const body = fc.oneof(fc.dictionary(fc.constantFrom('id', 'format', 'options', 'x'), value), value);
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await app.t.app.inject({
          method: 'POST',
          url: '/api/main/get_user_events_file_report',
          headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' },
          payload: JSON.stringify(b) ?? 'null',
        });
        expect(res.statusCode, `${JSON.stringify(b)} → ${res.body.slice(0, 200)}`).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('id', 'x'), fc.oneof(fc.string(), fc.constant(second.id))),
        async (q) => {
          const res = await client(app.t.app, other.token).get(
            `/main/get_user_events_data_report?${new URLSearchParams(q)}`,
          );
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a 10,000-finding PDF renders off the event loop', async () => {
    const { token, userId } = await signUp();
    const db = app.t.runtime.ctx.db;
    const target = await seedTarget(db, userId, 'big.example');
    const scan = await seedScan(db, userId, target.id, new Date('2026-11-10T02:00:00Z'));
    const sevs = ['critical', 'high', 'medium', 'low', 'informational'];
    await app.sql.query(
      `with f as (
         insert into findings_exploit_scanner (user_id, target_id, fingerprint, severity, severity_ordering, main_domain,
           template_id, name, host, subdomain, matched_at, first_scan_id, last_scan_id, detail)
         select $1, $2, 'fp' || i, (array['critical','high','medium','low','informational'])[1 + i % 5], 5 - i % 5,
           'big.example', 'tpl-' || (i % 50), 'Finding number ' || i, 'h' || (i % 400) || '.big.example',
           'h' || (i % 400) || '.big.example', 'http://h.big.example/', $3, $3,
           jsonb_build_object('description', 'Description of finding ' || i, 'remediation', 'Fix it.',
             'references', jsonb_build_array('https://example.org/' || i),
             'evidence', jsonb_build_object('curl', 'curl -sk http://h' || i || '.big.example/', 'request', '', 'response', 'HTTP/1.1 200 OK'))
         from generate_series(1, 10000) i returning id, host)
       insert into finding_sightings (scan_id, finding_id, subclass, user_id, host, change)
       select $3, id, 'exploit_scanner', $1, host, 'new' from f`,
      [userId, target.id, scan.id],
    );
    expect(sevs).toHaveLength(5);
    let maxLag = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxLag = Math.max(maxLag, now - last - 10);
      last = now;
    }, 10);
    const started = performance.now();
    const res = await fileReport(token, { id: scan.id, format: 'pdf' });
    const ms = performance.now() - started;
    clearInterval(timer);
    expect(res.statusCode).toBe(200);
    const text = pdfText(res.rawPayload, 'big');
    expect(text).toContain('Finding number 5');
    expect(text).toMatch(/The remaining \d+ findings are listed in compact form/);
    console.log(
      `10,000-finding PDF: ${Math.round(ms)} ms, ${res.rawPayload.length} bytes, max event-loop lag ${Math.round(maxLag)} ms`,
    );
    expect(ms).toBeLessThan(60_000);
    // Layout and rendering happen in a worker thread: on the main thread they would stall the loop for
    // about the whole render time; what remains there (queries, model) is a fraction of it.
    expect(maxLag).toBeLessThan(ms / 2);
  }, 120_000);
});
