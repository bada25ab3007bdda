import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { LeakCipher } from '@perimeter/engine';
import { type Lab, startLab } from '@perimeter/lab';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { addLeaks } from '../src/modules/scans/scans-intel-repo.ts';
import { client, createTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.ts';
import { createPgCluster, freePort, type PgCluster } from './support/pg-cluster.ts';
import { type Api, addVerifiedDomain, createScan, labEnv, REPO_ROOT, signUp } from './support/scan-lab.ts';

/**
 * Fault injection with real parts: a PostgreSQL 15 cluster of the test's own (stopped and started
 * by the test), real worker processes (`apps/server/src/main-worker.ts`, the worker role as an
 * operator runs it) and the lab. What must hold: processes survive a database outage and finish
 * their scans with the same findings, a scan whose retries run out ends failed with its reason,
 * a killed worker's scan resumes within 30 s, and many workers starting at once all come up.
 */
const cluster: PgCluster | undefined = await createPgCluster();
const suite = cluster ? describe : describe.skip;

let lab: Lab;
let t: TestApp;
let api: Api;
let token: string;
let dataDir: string;
let targetId: string;
const children: ChildProcess[] = [];

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = [], database = 'faults') {
  const c = new pg.Client({ connectionString: cluster?.url(database) });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

interface Worker {
  child: ChildProcess;
  lines: { msg: string; scanId?: string; templates?: number; at: number }[];
  ready: Promise<void>;
  alive(): boolean;
}

function startWorker(database: string, extra: Record<string, string> = {}): Worker {
  // node itself (not the tsx wrapper), so SIGKILL reaches the worker.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'apps/server/src/main-worker.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ...labEnv(lab, {
          PERIMETER_SCAN_PORTS: String(lab.portMap[80] ?? 80),
          PERIMETER_SCAN_WORDLIST_LIMIT: '20',
        }),
        DATABASE_URL: cluster?.url(database) ?? '',
        PERIMETER_DATA_DIR: dataDir,
        PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
        WORKER_CONCURRENCY: '2',
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  const lines: Worker['lines'] = [];
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`worker exited before it was ready (${code ?? signal})`)),
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      let entry: { msg?: string; scanId?: string; templates?: number };
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      lines.push({ msg: entry.msg ?? '', scanId: entry.scanId, templates: entry.templates, at: Date.now() });
      if (entry.msg === 'worker role ready') resolve();
    });
  });
  ready.catch(() => {});
  return { child, lines, ready, alive: () => child.exitCode === null && child.signalCode === null };
}

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  ms: number,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stopChildren(list: ChildProcess[]) {
  for (const c of list) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(
    list.map((c) =>
      c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null,
    ),
  );
}

const statusOf = async (ids: string[]) =>
  Object.fromEntries(
    (
      await query<{ status: string; n: number }>(
        'select status, count(*)::int as n from scans where id = any($1) group by status',
        [ids],
      )
    ).map((r) => [r.status, r.n]),
  ) as Record<string, number>;

async function startScans(n: number, as: Api = api): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const scan = await createScan(as, targetId, {
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: ['exploit_scanner', 'leakcheck'] },
    });
    expect((await as.post('/main/start_created_abstract_scan', { id: scan.id })).status).toBe(200);
    ids.push(scan.id);
  }
  return ids;
}

const findingsOf = async (scanId: string) =>
  (
    await query<{ key: string }>(
      `select fs.subclass || ' ' || coalesce(fs.host, '') || ' ' || coalesce(es.template_id, lc.email, '') as key
       from finding_sightings fs
       left join findings_exploit_scanner es on es.id = fs.finding_id
       left join findings_leakcheck lc on lc.id = fs.finding_id
       where fs.scan_id = $1 order by 1`,
      [scanId],
    )
  ).map((r) => r.key);

beforeAll(async () => {
  if (!cluster) return;
  lab = await startLab({ subnet: '127.0.245', dnsPort: 0 });
  await query('create database faults', [], 'postgres');
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-faults-'));
  t = await createTestApp(
    labEnv(lab, { PERIMETER_SCAN_PORTS: String(lab.portMap[80] ?? 80), PERIMETER_SCAN_WORDLIST_LIMIT: '20' }),
    cluster.url('faults'),
  );
  ({ api, token } = await signUp(t, 'enterprise'));
  await addLeaks(
    t.runtime.ctx.db,
    new LeakCipher(t.runtime.ctx.config.secrets.encryptionKey),
    lab.expected().leakCorpus,
  );
  targetId = await addVerifiedDomain(api, lab, 'acme.test');
}, 120_000);

afterAll(async () => {
  await stopChildren(children);
  await t?.close();
  await lab?.stop();
  await cluster?.destroy();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

suite('fault injection (PostgreSQL 15 cluster, worker processes, the lab)', () => {
  it('eight workers started at once on a fresh database all come up and stay up', async () => {
    await query('create database faults_fresh', [], 'postgres');
    const workers = Array.from({ length: 8 }, () => startWorker('faults_fresh', { WORKER_CONCURRENCY: '1' }));
    await Promise.all(workers.map((w) => w.ready));
    await new Promise((r) => setTimeout(r, 2000));
    expect(workers.map((w) => w.alive())).toEqual(Array(8).fill(true));
    // Each compiled the template sets before it said it was ready: no scan waits for the compile.
    for (const w of workers) {
      const msgs = w.lines.map((l) => l.msg);
      const compiled = w.lines.find((l) => l.msg === 'template sets compiled');
      expect(compiled?.templates).toBeGreaterThan(0);
      expect(msgs.indexOf('template sets compiled')).toBeLessThan(msgs.indexOf('worker role ready'));
    }
    const queues = await query<{ name: string }>(
      'select name from pgboss.queue order by 1',
      [],
      'faults_fresh',
    );
    expect(queues.map((q) => q.name)).toEqual(
      expect.arrayContaining(['notify-scan', 'scan-run', 'schedule-start', 'webhook-deliver']),
    );
    await stopChildren(workers.map((w) => w.child));
  }, 240_000);

  it('PostgreSQL stopped for 10 s during scans: every worker lives on, every scan ends done with the findings of a clean run, none twice', async () => {
    const healthPort = await freePort();
    const workerReady = () => fetch(`http://127.0.0.1:${healthPort}/ready`).then((r) => r.status);
    const workers = [
      startWorker('faults'),
      startWorker('faults', { WORKER_HEALTH_PORT: String(healthPort) }),
    ];
    await Promise.all(workers.map((w) => w.ready));
    expect(await workerReady()).toBe(200);
    const [clean] = await startScans(1);
    await until(
      'the clean scan',
      async () => ((await statusOf([clean as string])).done === 1 ? true : undefined),
      120_000,
    );
    const expected = await findingsOf(clean as string);
    expect(expected.length).toBeGreaterThan(3);

    const ids = await startScans(4);
    await until(
      'two scans running',
      async () => ((await statusOf(ids)).running ?? 0) >= 2 || undefined,
      60_000,
    );
    const ready = await t.app.inject({ method: 'GET', url: '/api/main/health/ready' });
    expect(ready.statusCode).toBe(200);
    cluster?.stop();
    const down = await t.app.inject({ method: 'GET', url: '/api/main/health/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ code: 'not_ready' });
    expect((await t.app.inject({ method: 'GET', url: '/api/main/health/live' })).statusCode).toBe(200);
    expect(await workerReady()).toBe(503);
    await new Promise((r) => setTimeout(r, 10_000));
    expect(workers.map((w) => w.alive())).toEqual([true, true]);
    cluster?.start();

    await until(
      'every scan to end',
      async () => {
        const s = await statusOf(ids);
        return (s.done ?? 0) + (s.canceled ?? 0) === ids.length ? true : undefined;
      },
      180_000,
    );
    expect(workers.map((w) => w.alive())).toEqual([true, true]);
    expect(await workerReady()).toBe(200);
    expect(await statusOf(ids)).toEqual({ done: ids.length });
    for (const id of ids) expect(await findingsOf(id)).toEqual(expected);
    const dup = await query<{ n: number }>(
      `select (select count(*) from (select target_id, fingerprint from findings_exploit_scanner group by 1, 2 having count(*) > 1) a)::int
            + (select count(*) from (select target_id, fingerprint from findings_leakcheck group by 1, 2 having count(*) > 1) b)::int as n`,
    );
    expect(dup[0]?.n).toBe(0);
    const fixed = await query<{ n: number }>(
      `select count(*)::int as n from finding_sightings where scan_id = any($1) and change in ('fixed', 'regressed')`,
      [ids],
    );
    expect(fixed[0]?.n).toBe(0);
    const retried = workers.flatMap((w) => w.lines).filter((l) => l.msg === 'queue reachable again').length;
    console.log(`outage: ${ids.length} scans done after the restart; ${retried} worker loops reconnected`);
    await stopChildren(workers.map((w) => w.child));
  }, 420_000);

  it('a killed worker’s scan resumes within 30 s; when its retries run out it ends failed with the reason and the user is mailed', async () => {
    const env = { SCAN_JOB_RETRY_LIMIT: '1', WORKER_CONCURRENCY: '1' };
    // Every lab answer 300 ms late, so the scan is still running when each worker is killed: without
    // it the lab's scan (one port, 20 names) ended ~250 ms after it started on an idle machine, before
    // the kill, and there was nothing to resume.
    lab.setHttpDelay(300);
    onTestFinished(() => lab.setHttpDelay(0));
    const workers = [startWorker('faults', env), startWorker('faults', env)];
    await Promise.all(workers.map((w) => w.ready));
    // The retry limit is the enqueuer's (the API's) setting: an API process configured for one retry.
    const strict = await createTestApp(
      labEnv(lab, { SCAN_JOB_RETRY_LIMIT: '1', PERIMETER_SCAN_PORTS: String(lab.portMap[80] ?? 80) }),
      cluster?.url('faults'),
    );
    const [scanId] = (await startScans(1, client(strict.app, token))) as [string];
    await strict.close();
    const startedOn = (since: number) =>
      workers.find(
        (w) =>
          w.alive() && w.lines.some((l) => l.msg === 'scan started' && l.scanId === scanId && l.at > since),
      );

    const first = await until('the scan to start', () => startedOn(0), 60_000);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    const [killed] = await query<{ status: string }>('select status from scans where id = $1', [scanId]);
    expect(killed?.status, 'the scan was still running when its worker was killed').toBe('running');
    const second = await until('the scan to resume on the other worker', () => startedOn(killedAt), 60_000);
    const resumeSeconds = (Date.now() - killedAt) / 1000;
    console.log(`resumed ${resumeSeconds.toFixed(1)} s after SIGKILL`);
    expect(second).not.toBe(first);
    expect(resumeSeconds).toBeLessThanOrEqual(30);

    // The last attempt dies too: a third worker's stale-scan check must end the scan, not retry it.
    second.child.kill('SIGKILL');
    const third = startWorker('faults', env);
    let last: unknown;
    await third.ready;
    const [row] = await until(
      'the scan to reach a final state',
      async () => {
        const rows = await query<{
          status: string;
          message: string;
          failure_reason: string | null;
          attempts: number;
        }>('select status, message, failure_reason, attempts from scans where id = $1', [scanId]);
        last = rows[0];
        return rows[0]?.status === 'canceled' ? rows : undefined;
      },
      90_000,
    ).catch((err) => {
      console.log('scan row at the time-out:', last, third.lines.slice(-15));
      throw err;
    });
    expect(row?.failure_reason).toMatch(/stopped answering/);
    expect(row?.message).toMatch(/^The scan failed: /);
    expect(row?.attempts).toBe(2);
    expect(third.lines.some((l) => l.msg === 'scan started' && l.scanId === scanId)).toBe(false);
    // The notifier (on the third worker) tells the user.
    const mails = await until(
      'the failure mail',
      async () => {
        const rows = await query<{ subject: string }>(
          `select subject from mail_outbox where kind = 'scan_failed'`,
        );
        return rows.length ? rows : undefined;
      },
      60_000,
    );
    expect(mails[0]?.subject).toMatch(/failed/);
    await stopChildren([third.child]);
  }, 300_000);
});
