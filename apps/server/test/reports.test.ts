import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { TReport } from '@perimeter/contracts';
import { describe, expect, it } from 'vitest';
import { scanMessage } from '../src/lib/scan-messages.ts';
import { client } from './support/app.ts';
import { useReportsApp } from './support/reports-fixture.ts';

// The data report and the PDF's sections and languages; plans, formats, access and size:
// reports-formats.test.ts.
const { app, outDir, signUp, seedTwoScans, fileReport, pdfText } = useReportsApp();

describe('data report', () => {
  it('has the findings, what changed since the previous scan, CVEs, masked leaks and the scope', async () => {
    const { token, userId } = await signUp();
    const { first, second } = await seedTwoScans(userId);
    const res = await client(app.t.app, token).get<{ data: TReport }>(
      `/main/get_user_events_data_report?id=${second.id}`,
    );
    expect(res.status).toBe(200);
    const r = res.body.data;
    expect(r.changes.previous_scan_id).toBe(first.id);
    expect(r.changes.new.map((c) => c.name)).toEqual(['=HYPERLINK("http://evil")']);
    expect(r.changes.fixed.map((c) => c.name)).toEqual(['Directory listing enabled']);
    expect(r.changes.regressed.map((c) => c.scan_subclass)).toEqual(['leakcheck']);
    expect(r.findings.map((f) => f.severity)).toEqual(['critical', 'high', 'high', 'medium']);
    expect(r.summary.severity_counts).toMatchObject({ critical: 1, high: 2, medium: 1, low: 0 });
    expect(r.findings[0]!.how_to_reproduce?.curl).toContain('curl -sk');
    expect(r.cves[0]).toMatchObject({
      cve: 'CVE-2020-11022',
      latest_version: '3.7.1',
      downloads_per_month: 123456,
    });
    expect(r.leaks[0]!.password).toBe('pa******rd');
    expect(r.scope.map((s) => s.name)).toHaveLength(2);
    expect(r.restricted).toBeNull();

    const firstReport = await client(app.t.app, token).get<{ data: TReport }>(
      `/main/get_user_events_data_report?id=${first.id}`,
    );
    expect(firstReport.body.data.changes.previous_scan_id).toBeNull();
    expect(firstReport.body.data.changes.new).toHaveLength(4);
  });
});

describe('file reports', () => {
  it('PDF: every section, readable by pdftotext, with a Content-Disposition filename', async () => {
    const { token, userId } = await signUp();
    const { second, target } = await seedTwoScans(userId);
    const res = await fileReport(token, { id: second.id, format: 'pdf' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="perimeter-report-.*\.pdf"/);
    const text = pdfText(res.rawPayload, 'full');
    for (const expected of [
      'Perimeter security report',
      target.value,
      'Executive summary',
      'What changed since the previous scan',
      'New: 1',
      'Fixed: 1',
      'Regressed (seen again after being fixed): 1',
      'Findings by severity',
      'Exposed .env file',
      'Description',
      'Impact',
      'How to resolve',
      'How to reproduce',
      `curl -sk 'http://app.${target.value}/.env'`,
      'Web references',
      'Classification',
      'Known vulnerabilities (CVE) and technologies',
      'CVE-2020-11022',
      '3.7.1',
      'Leaked credentials',
      'pa******rd',
      'Appendix: scope of the scan',
      `www.${target.value}`,
      'page 1 of',
    ]) {
      expect(text, expected).toContain(expected);
    }
    expect(text).not.toContain('Part of this report is hidden');
    expect(text).toContain('Complete: every planned stage and check ran');
    expect(text).not.toContain('Partial scan');
    // A look at the pages (kept for a human: PNGs under the temp folder printed below).
    execFileSync('pdftoppm', ['-png', '-r', '60', path.join(outDir, 'full.pdf'), path.join(outDir, 'full')]);
    expect(
      readdirSync(outDir).filter((f) => f.startsWith('full-') && f.endsWith('.png')).length,
    ).toBeGreaterThan(3);
    console.log(`report pages rendered under ${outDir}`);
  });

  it('a partial scan: the PDF and the JSON say what was skipped and why, and which template sets ran', async () => {
    const { token, userId } = await signUp();
    const { second } = await seedTwoScans(userId);
    const partial = {
      stages: [
        {
          stage: 'templates',
          status: 'stalled',
          reason: 'no progress for 120000 ms',
          planned: 130,
          ran: 120,
          skipped: [
            {
              reason: 'check failed: dns timeout',
              count: 10,
              examples: ['dmarc-policy-none on shop.example'],
            },
          ],
        },
      ],
    };
    const sets = [
      {
        name: 'nuclei-templates',
        version: 'v10.2.1',
        hash: `abcdef012345${'0'.repeat(52)}`,
        templates: 9000,
      },
    ];
    await app.sql.query('update scans set partial = $2, template_sets = $3 where id = $1', [
      second.id,
      JSON.stringify(partial),
      JSON.stringify(sets),
    ]);
    const res = await fileReport(token, { id: second.id, format: 'pdf' });
    expect(res.statusCode).toBe(200);
    const text = pdfText(res.rawPayload, 'partial').replace(/\s+/g, ' ');
    for (const expected of [
      'PARTIAL: not everything planned ran',
      'Partial scan: not everything planned ran',
      'templates: ended by the watchdog (no progress) — ran 120 of 130',
      '10 skipped: check failed: dns timeout',
      'dmarc-policy-none on shop.example',
      'nuclei-templates v10.2.1 (abcdef012345, 9000)',
    ])
      expect(text, expected).toContain(expected);
    const json = await fileReport(token, { id: second.id, format: 'json' });
    const body = JSON.parse(json.body) as TReport;
    expect(body.scan.partial).toEqual(partial);
    expect(body.scan.template_sets).toEqual(sets);
  });

  it('PDF in Russian renders Cyrillic', async () => {
    const { token, userId } = await signUp('business', 'ru');
    const { second } = await seedTwoScans(userId);
    const res = await fileReport(token, { id: second.id, format: 'pdf' });
    expect(res.statusCode).toBe(200);
    const text = pdfText(res.rawPayload, 'ru');
    expect(text).toContain('Отчёт Perimeter о безопасности');
    expect(text).toContain('Что изменилось с прошлого сканирования');
    expect(text).toContain('Утёкшие учётные данные');
    // No raw values: target type, scan type, plan, duration and statuses are in Russian.
    expect(text).toMatch(/\(домен\)/);
    expect(text).not.toContain('(domain)');
    expect(text).toContain('полное сканирование');
    expect(text).toContain('95 с');
    expect(text).not.toMatch(/\bfull\b|\bbusiness\b|\b95 s\b/);
    expect(text).toMatch(/Статус: (новая|открыта|вернулась)/);
  });

  it('lists the skipped hosts and the scan message, translated, with the plan name in Russian', async () => {
    const { token, userId } = await signUp('business', 'ru');
    const { second } = await seedTwoScans(userId);
    const skipped = [
      {
        host: 'old.acme.test',
        reason: 'plan limit: the Trial scan plan covers 30 subdomains per scan',
        code: 'plan_subdomain_limit',
        params: { plan: 'Trial scan', subdomains: 30 },
      },
      {
        host: 'mail.acme.test',
        reason: 'no open port among the 100 scanned',
        code: 'no_open_port',
        params: { ports: 100 },
      },
      { host: 'legacy.acme.test', reason: 'an old reason without a code' },
    ];
    const message = scanMessage('plan_subdomain_limit', { plan: 'Trial scan', subdomains: 30, skipped: 1 });
    await app.sql.query('update scans set skipped_hosts = $2, message = $3 where id = $1', [
      second.id,
      JSON.stringify(skipped),
      message,
    ]);
    const json = JSON.parse((await fileReport(token, { id: second.id, format: 'json' })).body) as TReport;
    expect(json.scan.skipped_hosts).toEqual(skipped);
    expect(json.scan).toMatchObject({
      message,
      message_code: 'plan_subdomain_limit',
      message_params: { plan: 'Trial scan', subdomains: 30, skipped: 1 },
    });
    const text = pdfText(
      (await fileReport(token, { id: second.id, format: 'pdf' })).rawPayload,
      'skipped-ru',
    );
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Не просканировано хостов: 3');
    expect(flat).toContain('old.acme.test');
    expect(flat).toContain('тариф «Пробное сканирование» охватывает 30 поддоменов за сканирование');
    expect(flat).toContain('нет открытых портов среди 100 проверенных');
    expect(flat).toContain('an old reason without a code');
    expect(flat).toContain('Примечание: Ограничение тарифа: тариф «Пробное сканирование» охватывает 30');
    expect(flat).not.toMatch(/Plan limit|Trial scan|no open port/);
  });

  it('shows every date in the account time zone: PDF and CSV', async () => {
    const { token, userId } = await signUp('business', 'ru');
    await app.sql.query('update users set tz = $2 where id = $1', [userId, 'Pacific/Kiritimati']);
    const { second } = await seedTwoScans(userId);
    const pdf = pdfText((await fileReport(token, { id: second.id, format: 'pdf' })).rawPayload, 'tz');
    // Started 2026-11-08 02:00 UTC = 16:00 at UTC+14.
    expect(pdf).toMatch(/08\.11\.2026, 16:00:00 GMT\+14/);
    expect(pdf).toContain('Pacific/Kiritimati');
    const csv = (await fileReport(token, { id: second.id, format: 'csv' })).body;
    expect(csv).toMatch(/,\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+14:00,/);
    expect(csv).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/);
  });
});
