/**
 * `npm run bench:scale -w apps/server` — a script, not a test. How a queue of lab scans finishes
 * with 1, 2 and 3 worker processes (`apps/server/src/main-worker.ts`, as an operator runs them)
 * on one PostgreSQL (the embedded one, or DATABASE_URL's server).
 *
 * Each round queues BENCH_SCANS scans of the lab's domains (custom: template checks of the lab's
 * web port and the leak check, the same work every round), starts N workers with
 * WORKER_CONCURRENCY=BENCH_CONCURRENCY, and once they are ready starts the scans and times until the
 * last one ends. The worker counts are interleaved (1,2,3,1,2,3,…) for BENCH_ROUNDS rounds; medians are
 * printed with the load average before each run, and written to bench-results/. Options:
 * BENCH_SCANS (30), BENCH_ROUNDS (5), BENCH_WORKERS (1,2,3), BENCH_CONCURRENCY (2), BENCH_FULL=1 (full
 * scans of all the lab's ports: the heavier, more realistic load).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Lab, startLab } from '@perimeter/lab';
import { loadConfig } from '../src/lib/config/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startQueue } from '../src/lib/queue.ts';
import { buildApp } from '../src/server/app.ts';
import { openRuntime } from '../src/server/runtime.ts';

const SCANS = Number(process.env.BENCH_SCANS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,3').split(',').map(Number);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '2';
const DOMAINS = ['acme.test', 'beta.test', 'wild.test'];
/** BENCH_FULL=1: full scans (every class) of all the lab's ports instead of template checks of one web port. */
const FULL = process.env.BENCH_FULL === '1';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const log = (msg: string) => console.log(`[scale ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** A lab on a loopback /24 that nothing else holds right now (tried at random). */
async function freeLab(): Promise<Lab> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const octet = 100 + Math.floor(Math.random() * 150);
    try {
      return await startLab({ subnet: `127.0.${octet}`, dnsPort: 0 });
    } catch (err) {
      if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new Error('no free loopback /24 for the lab');
}

const lab = await freeLab();
const ports = FULL
  ? [...new Set(Object.values(lab.portMap))].sort((a, b) => a - b).join(',')
  : String(lab.portMap[80] ?? 80);
const scanEnv = {
  PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
  PERIMETER_DNS_SERVERS: `${lab.dns.host}:${lab.dns.port}`,
  PERIMETER_SCAN_ALLOW: `${lab.subnet}.0/24`,
  PERIMETER_CT_URL: lab.ctUrl,
  PERIMETER_SCAN_PORTS: ports,
  PERIMETER_SCAN_WORDLIST_LIMIT: '20',
};
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
  `lab on ${lab.subnet}.0/24; ${config.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'}; load ${load()}`,
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

function startWorker(): { child: ChildProcess; ready: Promise<void> } {
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
        WORKER_CONCURRENCY: CONCURRENCY,
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

  const runs: { workers: number; seconds: number; load: string }[] = [];
  for (let round = 1; round <= ROUNDS; round++)
    for (const n of WORKERS) {
      const ids: string[] = [];
      for (let i = 0; i < SCANS; i++) {
        const scan = await call<{ id: string }>('POST', '/main/create_abstract_scan', token, {
          targets: [{ target_type: 'domain', user_target_id: targetIds[i % targetIds.length] }],
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
      const workers = Array.from({ length: n }, startWorker);
      await Promise.all(workers.map((w) => w.ready));
      const before = load();
      const started = Date.now();
      for (const id of ids) await call('POST', '/main/start_created_abstract_scan', token, { id });
      for (;;) {
        const { rows } = await pool.query<{ n: number }>(
          `select count(*)::int as n from scans where id = any($1) and status in ('done', 'canceled')`,
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
      runs.push({ workers: n, seconds, load: before });
      log(
        `round ${round}: ${n} worker(s) × concurrency ${CONCURRENCY}: ${SCANS} scans in ${seconds.toFixed(1)} s (load before ${before})`,
      );
    }

  const base = median(runs.filter((r) => r.workers === WORKERS[0]).map((r) => r.seconds));
  const lines = [
    `Scale-out: ${SCANS} lab scans (${FULL ? 'full scans of all lab ports' : 'template checks of one web port + leak check'}), WORKER_CONCURRENCY=${CONCURRENCY}, ${ROUNDS} interleaved rounds, ${os.cpus().length} cores, medians:`,
    ...WORKERS.map((n) => {
      const m = median(runs.filter((r) => r.workers === n).map((r) => r.seconds));
      return `- ${n} worker process(es): ${m.toFixed(1)} s (${(base / m).toFixed(2)}× of ${WORKERS[0]})`;
    }),
  ];
  console.log(`\n${lines.join('\n')}`);
  mkdirSync(path.join(repoRoot, 'bench-results'), { recursive: true });
  const file = path.join(
    repoRoot,
    'bench-results',
    `scale-out-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  );
  writeFileSync(
    file,
    JSON.stringify({ scans: SCANS, concurrency: CONCURRENCY, runs, summary: lines }, null, 2),
  );
  log(`written to ${path.relative(repoRoot, file)}`);
} finally {
  await app.close();
  await boss.stop({ graceful: false, wait: true, timeout: 5000 });
  await runtime.close();
  await lab.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
