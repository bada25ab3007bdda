import type { TScan } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../src/lib/queue.ts';
import { registerScanWorkers } from '../src/modules/scans/scans-jobs.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, addVerifiedDomain, createScan, labEnv, signUp, waitForScan } from './support/scan-lab.ts';

/** Ownership re-checks before a scan runs, and cancelling a running scan. */
const DOMAIN = 'acme.test';
let lab: Lab;
let t: TestApp;
let boss: PgBoss;
let sql: pg.Client;
let api: Api;
let targetId: string;
let txtValue: string;

beforeAll(async () => {
  lab = await startLab({ subnet: '127.0.90', dnsPort: 0 });
  t = await createTestApp(labEnv(lab));
  // The queue without workers at first: jobs wait until the test registers them.
  boss = await startQueue(t.databaseUrl, createLogger('silent'));
  sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
  ({ api } = await signUp(t, 'business'));
  targetId = await addVerifiedDomain(api, lab, DOMAIN);
  const txt = await api.post<{ data: { value: string } }>('/main/user_target/get_verification_txt', ref());
  txtValue = txt.body.data.value;
}, 60_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await sql?.end();
  await t?.close();
  await lab?.stop();
});

const ref = () => ({ target_type: 'domain', user_target_id: targetId });

async function reverify() {
  lab.setTxt(`_perimeter.${DOMAIN}`, [txtValue]);
  const check = await api.post<{ data: { verified: boolean } }>(
    '/main/user_target/check_verification',
    ref(),
  );
  expect(check.body.data.verified).toBe(true);
}

describe('ownership is re-checked before every scan', () => {
  it('refuses to start a scan when the TXT record is gone, and the target becomes unverified', async () => {
    const scan = await createScan(api, targetId);
    lab.removeTxt(`_perimeter.${DOMAIN}`);
    const res = await api.post<{ detail: string; code: string }>('/main/start_created_abstract_scan', {
      id: scan.id,
    });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/could no longer be confirmed/);
    expect(res.body.detail).toContain(DOMAIN);
    const info = await api.get<{ data: { verified: boolean; status: string } }>(
      `/main/user_target/get_info_by_id?target_type=domain&user_target_id=${targetId}`,
    );
    expect(info.body.data.verified).toBe(false);
    expect(info.body.data.status).toBe('unverified');
    const again = await api.get<{ data: TScan }>(`/main/get_abstract_scan?id=${scan.id}`);
    expect(again.body.data.status).toBe('created');
  });

  it('a worker refuses a queued scan whose proof disappeared meanwhile', async () => {
    await reverify();
    const scan = await createScan(api, targetId);
    const started = await api.post<{ data: TScan }>('/main/start_created_abstract_scan', { id: scan.id });
    expect(started.body.data.status).toBe('pending');
    const job = await sql.query('select count(*)::int as n from pgboss.job where data->>$1 = $2', [
      'scanId',
      scan.id,
    ]);
    expect(job.rows[0].n).toBe(1);
    lab.removeTxt(`_perimeter.${DOMAIN}`);
    await registerScanWorkers(t.runtime.ctx, boss);
    const end = await waitForScan(api, scan.id, ['canceled', 'done'], 30_000);
    expect(end.status).toBe('canceled');
    expect(end.message).toMatch(/could no longer be confirmed/);
  });
});

describe('cancel', () => {
  it('stops a running scan within 5 s and keeps its partial results', async () => {
    await reverify();
    const scan = await createScan(api, targetId);
    await api.post('/main/start_created_abstract_scan', { id: scan.id });
    await waitForScan(api, scan.id, ['running'], 30_000);
    // Let discovery find something first.
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const { rows } = await sql.query('select count(*)::int as n from scan_scope where scan_id = $1', [
        scan.id,
      ]);
      if (rows[0].n > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const cancelled = await api.post<{ data: TScan }>('/main/cancel_running_abstract_scan', { id: scan.id });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.status).toBe('canceled');
    // The message in English, and as a code the UI translates.
    expect(cancelled.body.data).toMatchObject({
      message: 'Cancelled by the user.',
      message_code: 'canceled_by_user',
      message_params: {},
    });
    const at = Date.now();
    const { rows: jobs } = await sql.query<{ job_id: string }>('select job_id from scans where id = $1', [
      scan.id,
    ]);
    let state = '';
    while (Date.now() - at < 10_000) {
      const { rows } = await sql.query<{ state: string }>('select state from pgboss.job where id = $1', [
        jobs[0]?.job_id,
      ]);
      state = rows[0]?.state ?? '';
      if (state === 'completed' || state === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const stoppedMs = Date.now() - at;
    console.log(`worker stopped ${stoppedMs} ms after the cancel`);
    expect(state).toBe('completed');
    expect(stoppedMs).toBeLessThan(5000);
    const progress = await waitForScan(api, scan.id, ['canceled'], 1000);
    expect(progress).toMatchObject({ status: 'canceled', message_code: 'canceled_by_user' });
    const { rows: scope } = await sql.query('select count(*)::int as n from scan_scope where scan_id = $1', [
      scan.id,
    ]);
    expect(scope[0].n).toBeGreaterThan(0);
    // A cancelled scan cannot be cancelled or started again.
    expect((await api.post('/main/cancel_running_abstract_scan', { id: scan.id })).status).toBe(409);
    expect((await api.post('/main/start_created_abstract_scan', { id: scan.id })).status).toBe(409);
  }, 60_000);
});
