/**
 * `tsx scripts/events-ab.ts --a=<checkout> --b=<checkout>` — an interleaved A/B of the events API
 * under the bench's concurrent load, for comparing two builds on a loaded machine. A script, not a
 * test. Needs DATABASE_URL with a user seeded by `npm run bench` (BENCH_REUSE=1 is implied).
 *
 * Each checkout's server (its own scripts/events-setup.ts: the real app, logging to a file) runs in
 * a process of its own, both on the same database; this process is the load generator. It first
 * checks that both servers answer every bench case with the same bytes, then runs `--pairs` pairs
 * of `--seconds`-second rounds of `--clients` back-to-back clients (the bench's concurrent phase),
 * one server at a time, the order swapped every other pair (A B, B A, …), after one warm-up round
 * each. Per round: the server process's CPU per request and PostgreSQL's (its postmaster's process
 * tree: run nothing else on that cluster meanwhile), p99, requests per second, errors, the load
 * average; per pair, B's ratio to A. CPU per request is what a busy machine distorts least.
 *
 * Per round, besides the p99 of all requests: the p99 of those sent over a connection already open
 * (each client's first left out) and the slowest first request, which waited for its connection to
 * be accepted (openingAndSteady in @perimeter/lab/bench).
 *
 * Options: --pairs (8), --seconds (10), --clients (200), --warmup (5 s), --findings (1,000,000),
 * --a-node / --b-node (Node flags of that server, e.g. `--max-semi-space-size=64`; `--cpu-prof` writes
 * a profile of that server's whole run into its apps/server directory when it stops), --a-db / --b-db
 * (that server's DATABASE_URL instead of the shared one: a copy of the cluster each, when one side's
 * migrations change the schema the other must not see — e.g. dropped indexes), --compare-only,
 * --by-case (where each side's tail comes from: the cases most often over their round's p99),
 * --a-procs / --b-procs (N ≥ 1: that side's server is a node:cluster primary holding the listening
 * socket and handing connections round-robin to N worker processes, each running the server;
 * NODE_CLUSTER_SCHED_POLICY=none lets the workers accept themselves. The side's API CPU is then the
 * primary's and its workers', and its peak RSS the primary's alone).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  loadAverage,
  median,
  openingAndSteady,
  overRoundP99,
  percentile,
  processTreeCpuSeconds,
} from '@perimeter/lab/bench';
import { Pool } from 'undici';
import { benchCases } from '../test/support/events-cases.ts';

interface Ready {
  address: string;
  token: string;
  scanId: string;
  pgPid: number | undefined;
}

/** The server side of a checkout (events-ab-server.ts): run from this checkout, it loads the other's code. */
const serverScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'events-ab-server.ts');

function startServer(
  checkout: string,
  nodeFlags: string[],
  findings: number,
  databaseUrl: string,
  processes: number,
) {
  const child = spawn(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', serverScript, checkout, String(findings), String(processes)],
    {
      cwd: path.join(checkout, 'apps/server'),
      env: { ...process.env, DATABASE_URL: databaseUrl, BENCH_REUSE: '1' },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  return new Promise<{ child: ChildProcess; ready: Ready }>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, ready: JSON.parse(line) as Ready });
    });
    child.on('exit', (code) => reject(new Error(`server of ${checkout} exited with ${code}`)));
  });
}

interface Side {
  name: string;
  child: ChildProcess;
  ready: Ready;
  cases: { label: string; path: string; body: string }[];
}

function casesOf(ready: Ready) {
  return benchCases().map((c) => ({
    label: c.label,
    path: `/api/main/${c.oneScan ? 'get_one' : 'get_all'}_user_abstract_scan_events${c.offset ? `?offset=${c.offset}` : ''}`,
    body: JSON.stringify(c.oneScan ? { ...c.body, id: ready.scanId } : c.body),
  }));
}

const headersOf = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});

/** Both servers' answers to every bench case, byte for byte. */
async function compare(a: Side, b: Side): Promise<number> {
  const labels = benchCases().map((c) => c.label);
  const pools = [new Pool(a.ready.address), new Pool(b.ready.address)];
  let differ = 0;
  for (let i = 0; i < labels.length; i++) {
    const [ra, rb] = await Promise.all(
      [a, b].map(async (s, k) => {
        const c = s.cases[i]!;
        const res = await pools[k]!.request({
          method: 'POST',
          path: c.path,
          headers: headersOf(s.ready.token),
          body: c.body,
        });
        return { status: res.statusCode, body: await res.body.text() };
      }),
    );
    if (ra!.status !== 200 || ra!.status !== rb!.status || ra!.body !== rb!.body) {
      differ++;
      console.log(
        `DIFFERS: ${labels[i]} (HTTP ${ra!.status} / ${rb!.status}, ${ra!.body.length} / ${rb!.body.length} bytes)`,
      );
    }
  }
  await Promise.all(pools.map((p) => p.close()));
  console.log(`compared ${labels.length} cases: ${labels.length - differ} identical, ${differ} differ`);
  return differ;
}

interface Round {
  side: string;
  requests: number;
  errors: number;
  p99: number;
  /** The p99 of the requests over open connections, and the slowest first request (events-load.ts). */
  steadyP99: number;
  openingMax: number;
  rate: number;
  apiUs: number;
  pgUs: number;
  loadUs: number;
  gcUs: number;
  load: string;
  /** Each case's latencies, ms, in the order of the side's cases. */
  byCase: number[][];
}

/** The server's garbage collection time so far, ms (events-ab-server.ts). */
function gcMsOf(s: Side): Promise<number> {
  return new Promise((resolve) => {
    s.child.once('message', (m) => resolve((m as { gcMs: number }).gcMs));
    s.child.send('gc');
  });
}

/** One round of `clients` back-to-back clients cycling through the cases (events-load.ts's concurrent). */
async function round(s: Side, clients: number, seconds: number): Promise<Round> {
  const load = loadAverage();
  const pool = new Pool(s.ready.address, { connections: clients, pipelining: 1 });
  const headers = headersOf(s.ready.token);
  const times: number[] = [];
  const byCase = s.cases.map(() => [] as number[]);
  const byClient = Array.from({ length: clients }, () => [] as number[]);
  let errors = 0;
  const gc0 = await gcMsOf(s);
  const api0 = processTreeCpuSeconds(s.child.pid) ?? Number.NaN;
  const pg0 = processTreeCpuSeconds(s.ready.pgPid) ?? Number.NaN;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_v, client) => {
      for (let n = client; performance.now() < end; n++) {
        const i = n % s.cases.length;
        const c = s.cases[i]!;
        const t0 = performance.now();
        try {
          const res = await pool.request({ method: 'POST', path: c.path, headers, body: c.body });
          await res.body.dump({ limit: 64 * 1024 * 1024 });
          const ms = performance.now() - t0;
          times.push(ms);
          byCase[i]!.push(ms);
          byClient[client]!.push(ms);
          if (res.statusCode !== 200) errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const api = (processTreeCpuSeconds(s.child.pid) ?? Number.NaN) - api0;
  const pg = (processTreeCpuSeconds(s.ready.pgPid) ?? Number.NaN) - pg0;
  const gc = (await gcMsOf(s)) - gc0;
  await pool.close();
  const n = times.length;
  const { opening, steady } = openingAndSteady(byClient);
  return {
    side: s.name,
    requests: n,
    errors,
    p99: percentile(times, 99),
    steadyP99: percentile(steady, 99),
    openingMax: Math.max(...opening),
    rate: n / elapsed,
    apiUs: (api * 1e6) / n,
    pgUs: (pg * 1e6) / n,
    loadUs: (used.user + used.system) / n,
    gcUs: (gc * 1e3) / n,
    byCase,
    load,
  };
}

/** A process's peak resident set (VmHWM), MB. */
function peakRssMb(pid: number | undefined): string {
  const status = pid === undefined ? '' : readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
  return kb ? (Number(kb) / 1024).toFixed(0) : '?';
}

const show = (r: Round, label: string) =>
  console.log(
    `${label.padEnd(4)} ${r.side}: ${String(r.requests).padStart(6)} req ${r.rate.toFixed(0).padStart(4)}/s p99 ${r.p99.toFixed(0).padStart(5)} ms (open ${r.steadyP99.toFixed(0).padStart(5)}, first ≤ ${r.openingMax.toFixed(0).padStart(5)}) errors ${r.errors}  API ${r.apiUs.toFixed(0).padStart(5)} µs (GC ${r.gcUs.toFixed(0).padStart(3)})  PG ${r.pgUs.toFixed(0).padStart(4)} µs  load-gen ${r.loadUs.toFixed(0).padStart(4)} µs  (load ${r.load})`,
  );

/**
 * Where a side's tail comes from (--by-case): over its measured rounds, the cases whose requests
 * most often took longer than their round's p99, with each one's mean and p99 against all requests'.
 */
function showByCase(s: Side, rounds: Round[]) {
  const mine = rounds.filter((r) => r.side === s.name);
  const all = mine.flatMap((r) => r.byCase.flat());
  const over = overRoundP99(mine.map((r) => r.byCase));
  const overall = all.reduce((a, b) => a + b, 0) / all.length;
  const total = over.reduce((a, b) => a + b, 0);
  console.log(
    `${s.name} by case: ${total} requests over their round's p99; all requests mean ${overall.toFixed(0)} ms, p99 ${percentile(all, 99).toFixed(0)} ms`,
  );
  const rows = s.cases
    .map((c, i) => {
      const t = mine.flatMap((r) => r.byCase[i]!);
      return {
        label: c.label,
        over: over[i]!,
        mean: t.reduce((a, b) => a + b, 0) / t.length,
        p99: percentile(t, 99),
      };
    })
    .sort((x, y) => y.over - x.over || y.mean - x.mean)
    .slice(0, 10);
  for (const r of rows)
    console.log(
      `  ${String(r.over).padStart(5)} over (${((100 * r.over) / Math.max(1, total)).toFixed(0).padStart(2)} %)  mean ${r.mean.toFixed(0).padStart(5)} ms (${(r.mean / overall).toFixed(2)}×)  p99 ${r.p99.toFixed(0).padStart(5)} ms  ${r.label}`,
    );
}

async function main() {
  const { values } = parseArgs({
    options: {
      a: { type: 'string' },
      b: { type: 'string' },
      'a-node': { type: 'string', default: '' },
      'b-node': { type: 'string', default: '' },
      'a-db': { type: 'string' },
      'a-procs': { type: 'string', default: '0' },
      'b-procs': { type: 'string', default: '0' },
      'b-db': { type: 'string' },
      pairs: { type: 'string', default: '8' },
      seconds: { type: 'string', default: '10' },
      clients: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '5' },
      findings: { type: 'string', default: '1000000' },
      'compare-only': { type: 'boolean', default: false },
      'by-case': { type: 'boolean', default: false },
    },
  });
  if (!values.a || !values.b || !process.env.DATABASE_URL)
    throw new Error('usage: DATABASE_URL=… tsx scripts/events-ab.ts --a=<checkout> --b=<checkout> [options]');
  const flags = (s: string) => s.split(' ').filter(Boolean);
  const findings = Number(values.findings);
  const sides: Side[] = [];
  for (const [name, checkout, node, db, procs] of [
    ['A', values.a, values['a-node'], values['a-db'] ?? process.env.DATABASE_URL!, values['a-procs']],
    ['B', values.b, values['b-node'], values['b-db'] ?? process.env.DATABASE_URL!, values['b-procs']],
  ] as const) {
    const { child, ready } = await startServer(
      path.resolve(checkout),
      flags(node),
      findings,
      db,
      Number(procs),
    );
    sides.push({ name, child, ready, cases: casesOf(ready) });
    console.log(
      `${name}: ${checkout} ${node}${Number(procs) ? ` primary + ${procs} workers` : ''} on ${ready.address} (pid ${child.pid}${values[name === 'A' ? 'a-db' : 'b-db'] ? `, ${db}` : ''})`,
    );
  }
  const [a, b] = sides as [Side, Side];
  try {
    await compare(a, b);
    if (values['compare-only']) return;
    const clients = Number(values.clients);
    const seconds = Number(values.seconds);
    for (const s of sides) show(await round(s, clients, Number(values.warmup)), 'warm');
    const ratios: { api: number; pg: number; p99: number; rate: number }[] = [];
    const rounds: Round[] = [];
    for (let i = 1; i <= Number(values.pairs); i++) {
      const order = i % 2 ? [a, b] : [b, a];
      const pair: Record<string, Round> = {};
      for (const s of order) {
        const r = await round(s, clients, seconds);
        pair[s.name] = r;
        rounds.push(r);
        show(r, `${i}`);
      }
      const [ra, rb] = [pair.A!, pair.B!];
      ratios.push({
        api: rb.apiUs / ra.apiUs,
        pg: rb.pgUs / ra.pgUs,
        p99: rb.p99 / ra.p99,
        rate: rb.rate / ra.rate,
      });
      console.log(
        `     B/A: API ${ratios.at(-1)!.api.toFixed(3)} PG ${ratios.at(-1)!.pg.toFixed(3)} p99 ${ratios.at(-1)!.p99.toFixed(3)} rate ${ratios.at(-1)!.rate.toFixed(3)}`,
      );
    }
    const of = (side: string, pick: (r: Round) => number) =>
      median(rounds.filter((r) => r.side === side).map(pick)).toFixed(0);
    for (const side of ['A', 'B'])
      console.log(
        `median ${side}: API ${of(side, (r) => r.apiUs)} µs (GC ${of(side, (r) => r.gcUs)}), PG ${of(side, (r) => r.pgUs)} µs, load-gen ${of(side, (r) => r.loadUs)} µs, p99 ${of(side, (r) => r.p99)} ms (over open connections ${of(side, (r) => r.steadyP99)} ms), ${of(side, (r) => r.rate)} req/s, errors ${rounds.filter((r) => r.side === side).reduce((n, r) => n + r.errors, 0)}`,
      );
    const m = (pick: (r: (typeof ratios)[number]) => number) => median(ratios.map(pick)).toFixed(3);
    const lower = (pick: (r: (typeof ratios)[number]) => number) => ratios.filter((r) => pick(r) < 1).length;
    console.log(
      `median of the pairs' B/A: API ${m((r) => r.api)} (lower in ${lower((r) => r.api)}/${ratios.length}), PG ${m((r) => r.pg)} (lower in ${lower((r) => r.pg)}/${ratios.length}), p99 ${m((r) => r.p99)}, rate ${m((r) => r.rate)}`,
    );
    if (values['by-case']) for (const s of sides) showByCase(s, rounds);
    for (const s of sides) console.log(`${s.name}: peak RSS ${peakRssMb(s.child.pid)} MB`);
  } finally {
    await Promise.all(
      sides.map(
        (s) =>
          new Promise((resolve) => {
            s.child.removeAllListeners('exit');
            s.child.once('exit', resolve);
            s.child.send('stop');
          }),
      ),
    );
  }
}

await main();
