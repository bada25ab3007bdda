import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, newUserInput, useTestApp } from './app.ts';
import {
  seedCveFinding,
  seedLeakFinding,
  seedScan,
  seedScope,
  seedTarget,
  seedTemplateFinding,
} from './findings-seed.ts';

/** The app of a reports test file, with its sign-up, the two seeded scans and the report helpers. */
export function useReportsApp() {
  const app = useTestApp();
  /** Where the PDFs are written (left there to look at). */
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-report-test-'));

  async function signUp(plan = 'business', language = 'en') {
    const input = newUserInput();
    await client(app.t.app).post('/users/auth/registration/', input);
    const login = await client(app.t.app).post<{ data: { access: string } }>('/users/auth/login/', {
      email: input.email,
      password: input.password1,
    });
    const { rows } = await app.sql.query<{ id: string }>(
      'update users set plan = $2, language = $3, email_verified = true where email = $1 returning id',
      [input.email, plan, language],
    );
    return { token: login.body.data.access, userId: rows[0]!.id };
  }

  /** Two scans of one target: the second sees A and B again, finds E, finds D gone and C back. */
  async function seedTwoScans(userId: string) {
    const db = app.t.runtime.ctx.db;
    const target = await seedTarget(db, userId, `shop${Math.random().toString(36).slice(2, 8)}.example`);
    const first = await seedScan(db, userId, target.id, new Date('2026-11-01T02:00:00Z'));
    const ids1 = { userId, targetId: target.id, scanId: first.id };
    const a = await seedTemplateFinding(db, ids1, {
      key: 'a',
      name: 'Exposed .env file',
      severity: 'critical',
      host: `app.${target.value}`,
      curl: `curl -sk 'http://app.${target.value}/.env'`,
    });
    const b = await seedCveFinding(db, ids1, {
      key: 'b',
      cve: 'CVE-2020-11022',
      tech: 'jquery',
      version: '3.4.1',
      severity: 'medium',
      host: `www.${target.value}`,
    });
    const c = await seedLeakFinding(db, ids1, {
      key: 'c',
      email: `ceo@${target.value}`,
      password: 'pa******rd',
    });
    const d = await seedTemplateFinding(db, ids1, {
      key: 'd',
      name: 'Directory listing enabled',
      severity: 'low',
      host: `files.${target.value}`,
    });
    const second = await seedScan(db, userId, target.id, new Date('2026-11-08T02:00:00Z'));
    const ids2 = { ...ids1, scanId: second.id };
    for (const [id, sub, change] of [
      [a.id, 'exploit_scanner', 'seen'],
      [b.id, 'exploit_db', 'seen'],
      [c.id, 'leakcheck', 'regressed'],
    ] as const) {
      await app.sql.query(
        `insert into finding_sightings (scan_id, finding_id, subclass, user_id, change) values ($1, $2, $3, $4, $5)`,
        [second.id, id, sub, userId, change],
      );
    }
    await app.sql.query(`update findings_leakcheck set status = 'regressed' where id = $1`, [c.id]);
    await app.sql.query(
      `update findings_exploit_scanner set status = 'fixed', fixed_scan_id = $2 where id = $1`,
      [d.id, second.id],
    );
    await seedTemplateFinding(db, ids2, {
      key: 'e',
      name: '=HYPERLINK("http://evil")',
      severity: 'high',
      host: `api.${target.value}`,
    });
    await seedScope(db, second.id, `app.${target.value}`);
    await seedScope(db, second.id, `www.${target.value}`);
    return { target, first, second };
  }

  async function fileReport(token: string, body: unknown) {
    const res = await app.t.app.inject({
      method: 'POST',
      url: '/api/main/get_user_events_file_report',
      headers: { authorization: `Bearer ${token}` },
      payload: body as Record<string, unknown>,
    });
    return res;
  }

  function pdfText(pdf: Buffer, name: string): string {
    const file = path.join(outDir, `${name}.pdf`);
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  }

  return { app, outDir, signUp, seedTwoScans, fileReport, pdfText };
}
