/**
 * `npm run bench:scale -w apps/server` — a script, not a test. How a queue of lab scans finishes
 * with 1, 2 and 3 worker processes (`apps/server/src/main-worker.ts`, as an operator runs them) and
 * each WORKER_CONCURRENCY, on one PostgreSQL (the embedded one, or DATABASE_URL's server).
 *
 * Each run queues BENCH_SCANS scans of the lab's three domains (the same work every run), starts N
 * workers with WORKER_CONCURRENCY=C, and once they are ready starts the scans and times until the
 * last one ends. The (N, C) pairs run interleaved (forwards, then backwards) for BENCH_ROUNDS
 * rounds; medians and the load average before each run are printed and written to bench-results/
 * (`-- --record` also appends them to docs/benchmarks.md).
 *
 * The default scan is what a user gets: a full scan (every class) with the product's default port
 * list (top100) and the whole built-in subdomain wordlist (2,809 names brute-forced per domain
 * against the lab's DNS), the lab on a free loopback /24. Options: BENCH_SCANS (30), BENCH_ROUNDS
 * (5), BENCH_WORKERS (1,2,3), BENCH_CONCURRENCY (2; a list such as 1,2,4 gives the curve),
 * BENCH_WORDLIST (default: all; N: the first N names), BENCH_PORTS (default: top100; `lab`: only
 * the lab's ports; or a port list), BENCH_FULL=0 (light scans: template checks of the lab's web
 * port and the leak check).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  BenchReport,
  interleaveOrder,
  loadAverage,
  MIN_ROUNDS,
  median,
  startFreeLab,
} from '@perimeter/lab/bench';
import { loadConfig } from '../src/lib/config/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startQueue } from '../src/lib/queue.ts';
import { buildApp } from '../src/server/app.ts';
import { openRuntime } from '../src/server/runtime.ts';

const SCANS = Number(process.env.BENCH_SCANS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? MIN_ROUNDS);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,3').split(',').map(Number);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '2').split(',').map(Number);
const DOMAINS = ['acme.test', 'beta.test', 'wild.test'];
/** BENCH_FULL=0: template checks of one web port and the leak check instead of full scans. */
const FULL = process.env.BENCH_FULL !== '0';
const WORDLIST = process.env.BENCH_WORDLIST ?? 'default';
const PORTS = process.env.BENCH_PORTS ?? 'default';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const log = (msg: string) => console.log(`[scale ${new Date().toISOString().slice(11, 19)}] ${msg}`);

const lab = await startFreeLab();
const labPorts = [...new Set(Object.values(lab.portMap))].sort((a, b) => a - b).join(',');
const ports = !FULL
  ? String(lab.portMap[80] ?? 80)
  : PORTS === 'lab'
    ? labPorts
    : PORTS === 'default'
      ? undefined
      : PORTS;
const scanEnv: Record<string, string> = {
  PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
  PERIMETER_DNS_SERVERS: `${lab.dns.host}:${lab.dns.port}`,
  PERIMETER_SCAN_ALLOW: `${lab.subnet}.0/24`,
  PERIMETER_CT_URL: lab.ctUrl,
  ...(ports ? { PERIMETER_SCAN_PORTS: ports } : {}),
  ...(WORDLIST !== 'default' ? { PERIMETER_SCAN_WORDLIST_LIMIT: WORDLIST } : {}),
};
const workload = FULL
  ? `full scans (every class) of ${DOMAINS.join(', ')}; ports: ${ports ? (PORTS === 'lab' ? `only the lab's (${labPorts})` : ports) : 'the product default (top100)'}; subdomain wordlist: ${WORDLIST === 'default' ? 'the whole built-in list (2,809 names, the product default)' : `the first ${WORDLIST} names`}`
  : "light scans: template checks of the lab's web port and the leak check";
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-scale-'));
const config = loadConfig({
  ...process.env,
  ...scanEnv,
  NODE_ENV: 'production',
  PERIMETER_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
  RATE_LIMIT_AUTH_PER_MINUTE: '10000',
});
log(
  `lab on ${lab.subnet}.0/24 (DNS ${lab.dns.host}:${lab.dns.port}); ${config.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'}; load ${loadAverage()}`,
);
const runtime = await openRuntime(config, createLogger('silent'));
// As `start:api` does: pg-boss's schema, so the API can enqueue (the workers start per round).
const boss = await startQueue(runtime.databaseUrl, createLogger('silent'));
const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance });
const pool = runtime.ctx.database.pool;

async function call<T>(
  method: 'GET' | 'POST',
  url: string,
  token: string | undefined,
  payload?: object,
): Promise<T> {
  const res = await app.inject({
    method,
    url: `/api${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload ? { payload } : {}),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: T }).data;
}

function startWorker(concurrency: number): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'apps/server/src/main-worker.ts')],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...scanEnv,
        DATABASE_URL: runtime.databaseUrl,
        PERIMETER_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        WORKER_CONCURRENCY: String(concurrency),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line.includes('"worker role ready"')) resolve();
    });
  });
  return { child, ready };
}

const stop = (children: ChildProcess[]) =>
  Promise.all(
    children.map((c) => {
      if (c.exitCode !== null) return null;
      c.kill('SIGTERM');
      return new Promise((r) => c.once('exit', r));
    }),
  );

try {
  const email = `scale-${Date.now()}@example.com`;
  const password = 'correct horse battery staple';
  await call('POST', '/users/auth/registration/', undefined, {
    first_name: 'Scale',
    last_name: 'Bench',
    company: 'Perf',
    email,
    password1: password,
    password2: password,
  });
  await pool.query(`update users set plan = 'enterprise', email_verified = true where email = $1`, [email]);
  const { access: token } = await call<{ access: string }>('POST', '/users/auth/login/', undefined, {
    email,
    password,
  });
  const targetIds: string[] = [];
  for (const domain of DOMAINS) {
    const added = await call<{ added: { user_target_id: string }[] }>(
      'POST',
      '/main/user_target/add_targets',
      token,
      {
        targets: [domain],
      },
    );
    const ref = { target_type: 'domain', user_target_id: added.added[0]?.user_target_id as string };
    const txt = await call<{ value: string }>('POST', '/main/user_target/get_verification_txt', token, ref);
    lab.setTxt(`_perimeter.${domain}`, [txt.value]);
    await call('POST', '/main/user_target/check_verification', token, ref);
    targetIds.push(ref.user_target_id);
  }

  const pairs = WORKERS.flatMap((workers) => CONCURRENCIES.map((concurrency) => ({ workers, concurrency })));
  const runs: { workers: number; concurrency: number; seconds: number; load: string }[] = [];
  log(`${workload}; ${SCANS} scans per run, ${pairs.length} worker × concurrency pairs, ${ROUNDS} rounds`);
  for (const [round, order] of interleaveOrder(pairs.length, ROUNDS).entries())
    for (const i of order) {
      const { workers: n, concurrency } = pairs[i] as { workers: number; concurrency: number };
      const ids: string[] = [];
      for (let k = 0; k < SCANS; k++) {
        const scan = await call<{ id: string }>('POST', '/main/create_abstract_scan', token, {
          targets: [{ target_type: 'domain', user_target_id: targetIds[k % targetIds.length] }],
          ...(FULL
            ? { scan_type: 'full' }
            : {
                scan_type: 'custom',
                custom_scan_config: { classes: [], subclasses: ['exploit_scanner', 'leakcheck'] },
              }),
        });
        ids.push(scan.id);
      }
      // The workers start first (their start-up is not what is measured), then the queue fills.
      const workers = Array.from({ length: n }, () => startWorker(concurrency));
      await Promise.all(workers.map((w) => w.ready));
      const before = loadAverage();
      const started = Date.now();
      for (const id of ids) await call('POST', '/main/start_created_abstract_scan', token, { id });
      for (;;) {
        const { rows } = await pool.query<{ n: number }>(
          `select count(*)::int as n from scans where id = any($1) and status in ('done', 'canceled', 'failed')`,
          [ids],
        );
        if (rows[0]?.n === ids.length) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const seconds = (Date.now() - started) / 1000;
      const { rows: ended } = await pool.query<{ status: string; message: string | null; n: number }>(
        `select status, min(message) as message, count(*)::int as n from scans where id = any($1) group by 1`,
        [ids],
      );
      const notDone = ended.filter((r) => r.status !== 'done');
      if (notDone.length)
        log(
          `not done: ${notDone.map((r) => `${r.n} ${r.status} (${r.message ?? 'no message'})`).join('; ')}`,
        );
      await stop(workers.map((w) => w.child));
      runs.push({ workers: n, concurrency, seconds, load: before });
      log(
        `round ${round + 1}: ${n} worker(s) × concurrency ${concurrency}: ${SCANS} scans in ${seconds.toFixed(1)} s (load before ${before})`,
      );
    }

  const report = new BenchReport(
    'scale-out',
    'Scale-out: worker processes × WORKER_CONCURRENCY (issues 18, 19)',
  );
  report.say(
    `\`npm run bench:scale -w apps/server\`: ${SCANS} lab scans per run — ${workload}. Embedded PostgreSQL, the API in the bench process, worker processes started as \`start:worker\` does; ${ROUNDS} interleaved rounds, medians; ${os.cpus().length} cores.`,
  );
  report.say('');
  const base = median(
    runs.filter((r) => r.workers === WORKERS[0] && r.concurrency === CONCURRENCIES[0]).map((r) => r.seconds),
  );
  report.say(
    `| workers × concurrency | concurrent scans | median | speed-up vs ${WORKERS[0]} × ${CONCURRENCIES[0]} | runs | load before |`,
  );
  report.say('|---|---:|---:|---:|---|---|');
  for (const { workers, concurrency } of pairs) {
    const mine = runs.filter((r) => r.workers === workers && r.concurrency === concurrency);
    const m = median(mine.map((r) => r.seconds));
    const loads = mine.map((r) => Number(r.load.split(' ')[0]));
    report.say(
      `| ${workers} × ${concurrency} | ${workers * concurrency} | ${m.toFixed(1)} s | ${(base / m).toFixed(2)}× | ${mine.map((r) => r.seconds.toFixed(1)).join(', ')} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`,
    );
  }
  report.figure('runs', runs);
  if (ROUNDS < MIN_ROUNDS) report.notRecordable(`${ROUNDS} rounds (at least ${MIN_ROUNDS})`);
  report.finish();
} finally {
  await app.close();
  await boss.stop({ graceful: false, wait: true, timeout: 5000 });
  await runtime.close();
  await lab.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
