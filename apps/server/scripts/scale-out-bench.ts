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
 * port and the leak check), BENCH_HTTP_DELAY_MS (every lab HTTP response N ms late).
 *
 * What the figure can show depends on the machine: the lab answers on loopback in microseconds, so
 * a lab scan is CPU-bound, and worker processes beyond the machine's cores cannot make CPU-bound
 * scans finish sooner — they only share the same cores. Real hosts are a network round trip away
 * and a scan spends most of its time waiting on them: BENCH_HTTP_DELAY_MS=50 gives the lab that
 * wait (on HTTP responses only), the workload where more processes help on a small machine. The
 * report prints the core count and says when a row runs more worker processes than cores.
 */
import os from 'node:os';
import { BenchReport, interleaveOrder, loadAverage, MIN_ROUNDS, median } from '@perimeter/lab/bench';
import { benchLog, startBenchCluster } from './bench-cluster.ts';

const SCANS = Number(process.env.BENCH_SCANS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? MIN_ROUNDS);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,3').split(',').map(Number);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '2').split(',').map(Number);
const log = benchLog('scale');
const CORES = os.cpus().length;
const GOAL = { workers: 3, speedUp: 2.5 };

const cluster = await startBenchCluster('scale');
const workload = cluster.workload;
try {
  const { token, targetIds } = await cluster.labUser();
  const pairs = WORKERS.flatMap((workers) => CONCURRENCIES.map((concurrency) => ({ workers, concurrency })));
  const runs: { workers: number; concurrency: number; seconds: number; load: string }[] = [];
  log(`${workload}; ${SCANS} scans per run, ${pairs.length} worker × concurrency pairs, ${ROUNDS} rounds`);
  for (const [round, order] of interleaveOrder(pairs.length, ROUNDS).entries())
    for (const i of order) {
      const { workers: n, concurrency } = pairs[i] as { workers: number; concurrency: number };
      const ids = await cluster.createScans(token, targetIds, SCANS);
      // The workers start first (their start-up is not what is measured), then the queue fills.
      const workers = Array.from({ length: n }, () => cluster.startWorker(concurrency));
      await Promise.all(workers.map((w) => w.ready));
      const before = loadAverage();
      const started = Date.now();
      for (const id of ids) await cluster.call('POST', '/main/start_created_abstract_scan', token, { id });
      await cluster.waitEnded(ids);
      const seconds = (Date.now() - started) / 1000;
      const states = await cluster.endStates(ids);
      if (states !== `${ids.length} done`) log(`not all done: ${states}`);
      await cluster.stopWorkers(workers.map((w) => w.child));
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
    `\`npm run bench:scale -w apps/server\`: ${SCANS} lab scans per run — ${workload}. Embedded PostgreSQL, the API in the bench process, worker processes started as \`start:worker\` does; ${ROUNDS} interleaved rounds, medians; **${CORES} cores** (shared with the API, PostgreSQL and the lab).`,
  );
  report.say('');
  const base = median(
    runs.filter((r) => r.workers === WORKERS[0] && r.concurrency === CONCURRENCIES[0]).map((r) => r.seconds),
  );
  report.say(
    `| workers × concurrency | concurrent scans | median | speed-up vs ${WORKERS[0]} × ${CONCURRENCIES[0]} | runs | load before | note |`,
  );
  report.say('|---|---:|---:|---:|---|---|---|');
  for (const { workers, concurrency } of pairs) {
    const mine = runs.filter((r) => r.workers === workers && r.concurrency === concurrency);
    const m = median(mine.map((r) => r.seconds));
    const loads = mine.map((r) => Number(r.load.split(' ')[0]));
    report.say(
      `| ${workers} × ${concurrency} | ${workers * concurrency} | ${m.toFixed(1)} s | ${(base / m).toFixed(2)}× | ${mine.map((r) => r.seconds.toFixed(1)).join(', ')} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |${workers > CORES ? ` ${workers} processes on ${CORES} cores |` : ' |'}`,
    );
  }
  report.say('');
  const goalRow = runs.filter((r) => r.workers === GOAL.workers && r.concurrency === CONCURRENCIES[0]);
  const waits = Number(process.env.BENCH_HTTP_DELAY_MS ?? 0) > 0;
  const busiest = Math.max(...runs.map((r) => Number(r.load.split(' ')[0])));
  if (goalRow.length && WORKERS[0] === 1) {
    const speedUp = base / median(goalRow.map((r) => r.seconds));
    report.say(
      `${GOAL.workers} workers vs 1: **${speedUp.toFixed(2)}×** (issue 19's goal ≥ ${GOAL.speedUp}×, ${speedUp >= GOAL.speedUp ? 'met' : 'missed'}). ${
        waits
          ? `The lab delays its HTTP responses by ${process.env.BENCH_HTTP_DELAY_MS} ms, so part of each scan waits as on real hosts, which more processes can overlap on few cores; the rest of a scan (DNS brute force, port scan, parsing, the database) still needs CPU.`
          : `The lab answers on loopback at once, so these scans are CPU-bound: with ${GOAL.workers} processes on ${CORES} cores the figure is bounded by the cores (at most ${Math.min(GOAL.workers, CORES)}× in theory, less with the API, PostgreSQL and the lab on the same cores), not by how the workers share the queue.`
      }${busiest >= CORES ? ` The load average before the runs reached ${busiest.toFixed(1)} on ${CORES} cores: the 1-minute average still carries the previous runs' own processes, and any other work on the machine shares these cores too, so no run had them to itself.` : ''}`,
    );
  }
  report.figure('runs', runs);
  report.figure('machine', { cores: CORES, httpDelayMs: Number(process.env.BENCH_HTTP_DELAY_MS ?? 0) });
  if (ROUNDS < MIN_ROUNDS) report.notRecordable(`${ROUNDS} rounds (at least ${MIN_ROUNDS})`);
  report.finish();
} finally {
  await cluster.close();
}
