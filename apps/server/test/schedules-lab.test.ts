import { type Lab, startLab } from '@perimeter/lab';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerNotificationWorkers } from '../src/modules/notifications/notifications-jobs.ts';
import { registerScheduleWorkers } from '../src/modules/schedules/schedules-jobs.ts';
import { scanBridge } from '../src/modules/schedules/schedules-scan-adapter.ts';
import type { Scheduler } from '../src/modules/schedules/schedules-scheduler.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  type Api,
  addVerifiedDomain,
  labEnv,
  type PgBoss,
  signUp,
  startWorkers,
  waitForScan,
} from './support/scan-lab.ts';
import { startSmtpCapture } from './support/smtp.ts';

/**
 * The whole chain with the real worker role: a schedule comes due → the scheduler creates the scan
 * and its start job → the job starts it (ownership re-checked against the lab's DNS) → a scan worker
 * runs it to done → the notifier mails the owner.
 */
let lab: Lab;
let t: TestApp;
let boss: PgBoss;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let sql: pg.Client;
let scheduler: Scheduler | undefined;
let notifier: { stop(): Promise<void> } | undefined;
let api: Api;
let userId: string;
let email: string;

beforeAll(async () => {
  lab = await startLab({ subnet: '127.0.153', dnsPort: 0 });
  smtp = await startSmtpCapture();
  t = await createTestApp(labEnv(lab, { SMTP_URL: smtp.url }));
  sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
  boss = await startWorkers(t);
  ({ api, userId, email } = await signUp(t, 'business'));
  await sql.query(`update users set tz = 'UTC' where id = $1`, [userId]);
}, 120_000);

afterAll(async () => {
  await scheduler?.stop();
  await notifier?.stop();
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await sql?.end();
  await t?.close();
  await smtp?.close();
  await lab?.stop();
});

describe('scheduled scan through the worker role', () => {
  it('runs once when due, finishes, and mails the owner', async () => {
    const targetId = await addVerifiedDomain(api, lab, 'acme.test');
    // Due a minute from now (UTC), today.
    const at = new Date(Date.now() + 60_000);
    const hhmm = at.toISOString().slice(11, 16);
    const day = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][at.getUTCDay()];
    const created = await api.post<{ data: { scan_schedule_id: string; next_run_at: string } }>(
      '/users/create_scan_schedule',
      {
        targets: [{ target_type: 'domain', user_target_id: targetId }],
        days: [day],
        start_time: hhmm,
        tz: 'UTC',
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.scan_schedule_id;
    expect(new Date(created.body.data.next_run_at).getTime()).toBeLessThanOrEqual(at.getTime());

    scheduler = await registerScheduleWorkers(t.runtime.ctx, boss, scanBridge, 2000);
    notifier = await registerNotificationWorkers(t.runtime.ctx, boss, {
      webhookRetryDelay: 1,
      webhookRetryLimit: 1,
      sweepMs: 1000,
    });

    let scanId: string | undefined;
    for (let i = 0; i < 120 && !scanId; i++) {
      const { rows } = await sql.query(
        'select scan_id, status, error from scan_schedule_runs where schedule_id = $1',
        [id],
      );
      if (rows[0]?.status === 'failed') throw new Error(`scheduled run failed: ${rows[0].error}`);
      scanId = rows[0]?.scan_id ?? undefined;
      if (!scanId) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(scanId, 'the scheduler created the scan').toBeDefined();
    const done = await waitForScan(api, scanId!, ['done', 'canceled'], 170_000);
    expect(done.status, done.message ?? '').toBe('done');

    const deadline = Date.now() + 30_000;
    while (!smtp.messages.some((m) => m.to.includes(email) && m.subject === 'Scan of acme.test finished')) {
      if (Date.now() > deadline) throw new Error('no scan-finished mail');
      await new Promise((r) => setTimeout(r, 250));
    }
    const runs = await sql.query('select count(*)::int as n from scan_schedule_runs where schedule_id = $1', [
      id,
    ]);
    expect(runs.rows[0].n).toBe(1);
    const scans = await sql.query('select count(*)::int as n from scans where user_id = $1', [userId]);
    expect(scans.rows[0].n).toBe(1);
    const next = await api.get<{ data: { results: Array<{ next_run_at: string; last_run_at: string }> } }>(
      '/users/get_user_scan_schedules',
    );
    expect(new Date(next.body.data.results[0]!.next_run_at).getTime() - at.getTime()).toBeGreaterThan(
      6 * 86_400_000,
    );
  }, 360_000);
});
