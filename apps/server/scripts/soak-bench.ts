/**
 * `npm run bench:soak -w apps/server` — a script, not a test (issue 18's soak, as an operator runs
 * it). The API serves on loopback from this process; BENCH_WORKERS (3) worker processes with
 * WORKER_CONCURRENCY=BENCH_CONCURRENCY (2) work a queue of BENCH_SCANS (30) lab scans (the
 * workload of bench-cluster.ts: by default the product's full scan); BENCH_CLIENTS (500) API
 * clients in a separate process (scripts/events-load.ts, real HTTP, one connection each) poll
 * progress, stats and events for BENCH_SOAK_SECONDS (180); every BENCH_KILL_SECONDS (20) one worker
 * is killed (SIGKILL) and a new one started, as a supervisor restarts it.
 *
 * Prints: the clients' p50/p99 and errors; how the scans ended; and each resume time — from the
 * SIGKILL to the moment another worker started the interrupted scan again (its attempt count rose).
 * Results go to bench-results/; `-- --record` also appends them to docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchReport, loadAverage, median, percentile } from '@perimeter/lab/bench';
import { benchLog, startBenchCluster, type Worker } from './bench-cluster.ts';
import type { ConcurrentRound, LoadPlan } from './events-load.ts';

const WORKERS = Number(process.env.BENCH_WORKERS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);
const SCANS = Number(process.env.BENCH_SCANS ?? 30);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 500);
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 180);
const KILL_SECONDS = Number(process.env.BENCH_KILL_SECONDS ?? 20);
const here = path.dirname(fileURLToPath(import.meta.url));
const log = benchLog('soak');

const cluster = await startBenchCluster('soak');
try {
  const origin = await cluster.app.listen({ host: '127.0.0.1', port: 0 });
  const { token, targetIds } = await cluster.labUser();
  const ids = await cluster.createScans(token, targetIds, SCANS);
  // Only a worker that finished starting is killed (one killed during its start-up holds no scan).
  const ready = new Set<Worker>();
  const start = () => {
    const w = cluster.startWorker(CONCURRENCY);
    w.ready.then(() => ready.add(w)).catch(() => undefined);
    return w;
  };
  let workers: Worker[] = Array.from({ length: WORKERS }, start);
  await Promise.all(workers.map((w) => w.ready));
  log(`${cluster.workload}; ${SCANS} scans, ${WORKERS} workers × ${CONCURRENCY}; load ${loadAverage()}`);
  const started = Date.now();
  for (const id of ids) await cluster.call('POST', '/main/start_created_abstract_scan', token, { id });

  const plan: LoadPlan = {
    origin,
    token,
    cases: [
      { label: 'progress', path: '/api/main/get_last_user_abstract_scan_progress' },
      { label: 'stats', path: '/api/main/get_user_abstract_scans_stats' },
      {
        label: 'events',
        path: '/api/main/get_all_user_abstract_scan_events',
        body: { scan_subclass: 'exploit_scanner', sort_key: 'severity' },
      },
      {
        label: 'leaks',
        path: '/api/main/get_all_user_abstract_scan_events',
        body: { scan_subclass: 'leakcheck' },
      },
    ],
    samples: 0,
    rounds: 1,
    clients: CLIENTS,
    seconds: SOAK_SECONDS,
  };
  const clients = new Promise<ConcurrentRound | undefined>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'events-load.ts'), JSON.stringify(plan), 'concurrent'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
      else
        resolve(
          (JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { concurrent?: ConcurrentRound[] })
            .concurrent?.[0],
        );
    });
  });

  // Scans running when a worker was killed, and their attempt count then; a scan whose count
  // rises was resumed by another worker; one that ends without was on a worker still alive.
  const watched = new Map<string, { attempts: number; killedAt: number }>();
  const resumes: number[] = [];
  let kills = 0;
  // The kills keep their cadence on a timer of their own: the API shares this process, and under
  // hundreds of clients a database round-trip here can take seconds.
  const killer = setInterval(() => {
    const alive = workers.filter(
      (w) => ready.has(w) && w.child.exitCode === null && w.child.signalCode === null,
    );
    const victim = alive[Math.floor(Math.random() * alive.length)];
    if (!victim) return;
    victim.child.kill('SIGKILL');
    kills++;
    const killedAt = Date.now();
    workers = [...workers.filter((w) => w !== victim), start()];
    log(`kill ${kills}: worker pid ${victim.child.pid}; load ${loadAverage()}`);
    // Attempts rise no sooner than the heartbeat timeout after the kill: a snapshot taken now is
    // the count the interrupted scans had.
    void cluster.pool
      .query<{ id: string; attempts: number }>(
        `select id, attempts from scans where id = any($1) and status = 'running'`,
        [ids],
      )
      .then(({ rows }) => {
        for (const r of rows) if (!watched.has(r.id)) watched.set(r.id, { attempts: r.attempts, killedAt });
      });
  }, KILL_SECONDS * 1000);
  await cluster.waitEnded(ids, async () => {
    if (!watched.size) return;
    const { rows } = await cluster.pool.query<{ id: string; attempts: number; status: string }>(
      'select id, attempts, status from scans where id = any($1)',
      [[...watched.keys()]],
    );
    for (const r of rows) {
      const w = watched.get(r.id);
      if (!w) continue;
      if (r.attempts > w.attempts) {
        resumes.push((Date.now() - w.killedAt) / 1000);
        watched.delete(r.id);
        log(
          `scan ${r.id.slice(0, 8)} resumed ${((Date.now() - w.killedAt) / 1000).toFixed(1)} s after the kill`,
        );
      } else if (r.status !== 'running' && r.status !== 'pending' && r.status !== 'queued')
        watched.delete(r.id);
    }
  });
  clearInterval(killer);
  const seconds = (Date.now() - started) / 1000;
  const states = await cluster.endStates(ids);
  log(`all ${SCANS} scans ended in ${seconds.toFixed(0)} s: ${states}; waiting for the clients`);
  const load = await clients;
  await cluster.stopWorkers(workers.map((w) => w.child));
  const alive = workers.filter((w) => w.child.exitCode === 0 || w.child.signalCode === 'SIGTERM').length;

  const report = new BenchReport('soak', 'Soak: API clients, worker kills, resume times (issue 18)');
  report.say(
    `\`npm run bench:soak -w apps/server\`: ${SCANS} scans — ${cluster.workload} — on ${WORKERS} worker processes × WORKER_CONCURRENCY=${CONCURRENCY} (embedded PostgreSQL, the product's default SCAN_HEARTBEAT_TIMEOUT_SECONDS and SCAN_JOB_RETRY_LIMIT); one worker killed with SIGKILL every ${KILL_SECONDS} s and a new one started; ${CLIENTS} API clients in a separate process for ${SOAK_SECONDS} s (real HTTP, one connection each, back-to-back requests: scan progress, scan stats, events; global rate limit raised: one client address).`,
  );
  report.say('');
  report.say(`- scans: all ${SCANS} ended in ${seconds.toFixed(0)} s — ${states}; ${kills} workers killed`);
  report.say(
    resumes.length
      ? `- resume after a kill (SIGKILL → attempt started on another worker): median **${median(resumes).toFixed(1)} s**, p95 ${percentile(resumes, 95).toFixed(1)} s, max ${Math.max(...resumes).toFixed(1)} s over ${resumes.length} interrupted scans (goal ≤ 30 s)`
      : '- resume after a kill: no interrupted scan was seen (no scan was running on a killed worker)',
  );
  if (load)
    report.say(
      `- API under ${CLIENTS} clients: ${load.requests} requests, ${load.rate.toFixed(0)} req/s, p50 ${load.p50.toFixed(0)} ms, p99 ${load.p99.toFixed(0)} ms, **errors ${load.errors}** ${JSON.stringify(load.statuses)}; load average at the start ${load.load}, at the end ${loadAverage()}`,
    );
  report.say(
    `- worker processes left at the end that stopped cleanly on SIGTERM: ${alive} of ${workers.length}`,
  );
  report.figure('soak', { seconds, states, kills, resumes, clients: load });
  report.finish();
} finally {
  await cluster.close();
}
