/**
 * The template engine against Debian's nginx next to a raw undici client doing the same work.
 * nginx is started here (its config in a temp folder) on a free port of a free loopback /24
 * (127.0.66 or 68 unless BENCH_SUBNETS says otherwise). Both sides, every round:
 *  - the same number of GET requests (connections × per-task requests; the engine's count is
 *    checked, the round fails if it differs),
 *  - the same 64 connections to the one origin, no pipelining (undici's default of 1 on both:
 *    a raw Pool of 64 connections; the engine's per-host concurrency and tasks in flight 64),
 *  - 64 requests in flight: 64 raw loops or 64 engine tasks (one template whose payload list is
 *    the template engine's unit of work), each sending its own share of the requests one after
 *    another — the same division of the work on both sides,
 *  - the body read and searched for the same word ("Acme"; the engine's matcher runs on every
 *    response and makes one finding per task, as its fingerprint leaves the query out).
 * Printed per side and round: requests/s, CPU µs per request and the share of a core the client
 * got (its CPU time over the wall time), nginx's CPU per request, connections opened, the mean
 * number of requests in flight (the loops' or tasks' busy time over the wall time), the cores
 * other processes and the hypervisor (/proc/stat steal) took meanwhile, and the load average.
 * Many short interleaved rounds (30 of 6,400 requests a side by default, after ≥ 32,000 requests
 * a side of warm-up): this VM's speed drifts within seconds, and other processes come and go, so
 * the figure is the median of the per-pair ratios (each pair ran back to back), with its range.
 * A pair is quiet when other processes and steal took < 0.2 cores in both rounds; fewer than
 * MIN_ROUNDS quiet pairs make the run unrecordable (on a busy machine the rate follows the core
 * share the scheduler gives each client, not the client's own cost). Prints figures, asserts
 * nothing. `--only=raw|engine` runs one side alone (for `node --import tsx --cpu-prof`).
 * Run: npx tsx packages/engine/scripts/engine-nginx.ts [--rounds=30] [--per-task=100] [--only=…] [--record]
 */
import { spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BenchReport,
  candidateOctets,
  freeLoopbackSubnet,
  interleaved,
  loadAverage,
  MIN_ROUNDS,
  machineCpuSeconds,
  median,
  processTreeCpuSeconds,
  type Sample,
  summarize,
} from '@perimeter/lab/bench';
import { Pool } from 'undici';
import { defaultExecutors } from '../src/protocols/index.ts';
import { compileTemplateSource } from '../src/templates/template-compile.ts';
import { type TemplateJob, TemplateScanner } from '../src/templates/template-scanner.ts';
import { measure, type Rate } from './findings-bench.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(arg('rounds') ?? 30);
const connections = 64;
const perTask = Number(arg('per-task') ?? 100);
const total = connections * perTask;
/** Cores other processes (or the hypervisor) may take in a round of a quiet pair. */
const QUIET_CORES = 0.2;
/** Requests per side before the timed rounds. */
const WARM_UP = 32000;
const only = arg('only');
if (only !== undefined && only !== 'raw' && only !== 'engine') throw new Error('--only=raw or --only=engine');

interface Round extends Rate {
  /** Connections the side opened during the round. */
  connections: number;
  /** Mean requests in flight: the busy time of the 64 loops or tasks over the wall time. */
  inFlight: number;
  /** nginx's CPU (master and worker, from /proc) per request, µs. */
  nginxUsPerRequest: number;
  /** The share of one core this client got during the round (its CPU time over the wall time). */
  clientCore: number;
  /** Cores busy with anything else than this client and nginx (the other benches, the lead…). */
  otherCores: number;
  /** Cores the hypervisor stole during the round (of the machine's `os.cpus().length`). */
  stolenCores: number;
  /** Wall time of the round, s. */
  seconds: number;
}

// Connections opened, counted by undici's own diagnostics channel (both sides use its Client).
let connected = 0;
diagnostics.subscribe('undici:client:connected', () => {
  connected++;
});

async function freePort(ip: string): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, ip, resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

const subnet = await freeLoopbackSubnet(
  candidateOctets(process.env.BENCH_SUBNETS ? process.env : { BENCH_SUBNETS: '66,68' }),
);
const ip = `${subnet}.1`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-nginx-bench-'));
const port = await freePort(ip);
mkdirSync(path.join(dir, 'www'));
writeFileSync(
  path.join(dir, 'www', 'index.html'),
  `<!doctype html><html><head><title>Acme</title></head><body>${'Acme corp '.repeat(60)}</body></html>`,
);
const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir};`);
writeFileSync(
  path.join(dir, 'nginx.conf'),
  [
    'daemon off;',
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log;`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...temp,
    '  keepalive_requests 1000000;',
    `  server { listen ${ip}:${port}; root ${dir}/www; }`,
    '}',
    '',
  ].join('\n'),
);
const nginx = spawn('/usr/sbin/nginx', ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'inherit' });
const origin = `http://${ip}:${port}`;

const fmtRound = (x: Round) =>
  `client ${x.cpuUsPerRequest.toFixed(1)} µs/req on ${x.clientCore.toFixed(2)} core, nginx ${x.nginxUsPerRequest.toFixed(1)} µs/req, others ${x.otherCores.toFixed(2)} cores, stolen ${x.stolenCores.toFixed(2)} cores, ${x.connections} conns, ${x.inFlight.toFixed(1)} in flight, ${x.seconds.toFixed(2)} s`;

/** Runs one side, counting its connections and its loops' busy time. */
async function round(run: (busy: (ms: number) => void) => Promise<number>): Promise<Round> {
  const before = connected;
  let busyMs = 0;
  const machine = machineCpuSeconds();
  const server = processTreeCpuSeconds(nginx.pid);
  const started = performance.now();
  const rate = await measure(() => run((ms) => (busyMs += ms)));
  const wallMs = performance.now() - started;
  const machineAfter = machineCpuSeconds();
  const serverAfter = processTreeCpuSeconds(nginx.pid);
  if (rate.requests !== total) throw new Error(`${rate.requests} requests sent, ${total} expected`);
  const seconds = wallMs / 1000;
  const clientCpu = (rate.cpuUsPerRequest * rate.requests) / 1e6;
  const serverCpu = (serverAfter ?? 0) - (server ?? 0);
  const busy = (machineAfter?.busy ?? 0) - (machine?.busy ?? 0);
  return {
    ...rate,
    connections: connected - before,
    inFlight: busyMs / wallMs,
    nginxUsPerRequest: (serverCpu * 1e6) / rate.requests,
    clientCore: clientCpu / seconds,
    otherCores: Math.max(0, busy - clientCpu - serverCpu) / seconds,
    stolenCores: ((machineAfter?.stolen ?? 0) - (machine?.stolen ?? 0)) / seconds,
    seconds,
  };
}

function raw(): Promise<Round> {
  return round(async (busy) => {
    const pool = new Pool(origin, { connections, pipelining: 1 });
    let sent = 0;
    let matched = 0;
    const started = performance.now();
    // Each loop sends its own share, one after another, as each engine task sends its template's
    // payloads: the same division of the work as on the engine's side (a loop that took requests
    // from a shared count would balance the end of the round, which 64 tasks of a fixed payload
    // list cannot).
    await Promise.all(
      Array.from({ length: connections }, async (_v, loop) => {
        for (let k = 0; k < perTask; k++) {
          sent++;
          const res = await pool.request({
            path: `/?n=${loop * perTask + k}`,
            method: 'GET',
            headers: { 'User-Agent': 'x' },
          });
          if ((await res.body.text()).includes('Acme')) matched++;
        }
        busy(performance.now() - started);
      }),
    );
    await pool.close();
    if (matched !== total) throw new Error(`raw: ${matched} of ${total} bodies held the word`);
    return sent;
  });
}

const values = Array.from({ length: perTask }, (_v, i) => `"${i}"`).join(', ');
const compiled = compileTemplateSource(
  `id: bench-nginx\ninfo:\n  name: bench\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}/?n={{n}}"]\n    payloads:\n      n: [${values}]\n    matchers:\n      - type: word\n        words: ["Acme"]\n`,
  'bench.yaml',
);
if (compiled.status !== 'ok') throw new Error('bench template invalid');
const template = compiled.template;

function engine(): Promise<Round> {
  return round(async (busy) => {
    const scanner = new TemplateScanner(defaultExecutors, {
      rateLimit: 0,
      concurrency: connections,
      perHostConcurrency: connections,
    });
    function* jobs(): Generator<TemplateJob> {
      for (let i = 0; i < connections; i++) yield { template, input: origin };
    }
    // Every task starts at once (as many tasks as slots): a task's busy time ends with it.
    const started = performance.now();
    for await (const item of scanner.runWithProgress(jobs()))
      if (item.kind === 'task') busy(performance.now() - started);
    await scanner.close();
    // The matcher runs on every response; the finding is one per task (its fingerprint has no query).
    if (scanner.summary.findings !== connections)
      throw new Error(`engine: ${scanner.summary.findings} findings of ${connections} tasks`);
    return scanner.summary.requests;
  });
}

const report = new BenchReport('engine-nginx', 'Template engine against nginx (issue 19)');
if (rounds < MIN_ROUNDS) report.notRecordable(`${rounds} rounds (at least ${MIN_ROUNDS})`);
try {
  for (let i = 0; i < 50; i++) {
    if (
      await fetch(`${origin}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  /** One side's run, printed as it ends with what the machine did meanwhile. */
  const logged = (name: string, run: () => Promise<Round>) => async (i: number) => {
    const load = loadAverage();
    const x = await run();
    console.log(
      `  ${i < 0 ? 'warm-up' : `round ${i + 1}/${rounds}`} ${name.padEnd(6)} ${x.rate.toFixed(0).padStart(6)} req/s, ${fmtRound(x)} (load ${load})`,
    );
    return x;
  };
  if (only) {
    // One side alone (for `node --import tsx --cpu-prof …`): no comparison, nothing written.
    const run = logged(only, only === 'raw' ? raw : engine);
    for (let i = -1; i < rounds; i++) await run(i);
  } else {
    const sides = [
      { name: 'raw', run: logged('raw', raw) },
      { name: 'engine', run: logged('engine', engine) },
    ];
    // Warm-up (discarded): at least WARM_UP requests per side, alternating, so that both are
    // compiled by V8's optimising tier before the first timed round however short rounds are.
    for (let i = 0; i < Math.ceil(WARM_UP / total); i++) for (const side of sides) await side.run(-1);
    const samples = await interleaved(sides, { rounds, warmup: false });
    const [r, e] = samples as [Sample<Round>[], Sample<Round>[]];
    report.say(
      `\`npx tsx packages/engine/scripts/engine-nginx.ts --rounds=${rounds} --per-task=${perTask}\`: Debian's nginx (1 worker) on ${origin}; per side and round ${total} GETs, ${connections} connections, ${connections} in flight, no pipelining, the body searched for a word; ${rounds} interleaved rounds after a warm-up of ≥ ${WARM_UP} requests a side, medians:`,
    );
    report.say('');
    const line = (name: string, xs: Sample<Round>[]) => {
      const rate = summarize(xs, (x) => x.rate);
      const cpu = summarize(xs, (x) => x.cpuUsPerRequest);
      const conns = summarize(xs, (x) => x.connections).median;
      const inFlight = summarize(xs, (x) => x.inFlight).median;
      const nginxCpu = summarize(xs, (x) => x.nginxUsPerRequest).median;
      const core = summarize(xs, (x) => x.clientCore).median;
      report.say(
        `- ${name}: ${rate.median.toFixed(0)} req/s, ${cpu.median.toFixed(1)} µs CPU/request on ${core.toFixed(2)} of a core, nginx ${nginxCpu.toFixed(1)} µs/request, ${conns.toFixed(0)} connections opened, ${inFlight.toFixed(1)} requests in flight on average (load ${rate.load})`,
      );
    };
    line('raw undici Pool', r);
    line('template engine', e);
    // Each round's pair ran back to back (A B, then B A): the ratio of a pair is what the machine
    // disturbs least. rate = share of a core the client got ÷ its CPU per request, so a pair's rate
    // ratio is its core-share ratio ÷ its CPU ratio: the first is the machine's doing (other
    // processes, the hypervisor), the second the client's.
    const pairs = r.map((x, i) => {
      const y = (e[i] as Sample<Round>).value;
      return {
        rate: y.rate / x.value.rate,
        cpu: y.cpuUsPerRequest / x.value.cpuUsPerRequest,
        core: y.clientCore / x.value.clientCore,
        // Quiet: in neither round did other processes or the hypervisor take a noticeable part
        // of the machine (a test of the machine, not of either client's figures).
        quiet: [x.value, y].every((v) => v.otherCores < QUIET_CORES && v.stolenCores < QUIET_CORES),
      };
    });
    const spread = (xs: number[]) =>
      xs.length
        ? `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`
        : 'none';
    const quiet = pairs.filter((p) => p.quiet);
    const others = (xs: Sample<Round>[]) => xs.map((x) => x.value.otherCores);
    report.say(
      `- other processes took ${spread([...others(r), ...others(e)])} cores per round (median, range), the hypervisor ${spread([...r, ...e].map((x) => x.value.stolenCores))}`,
    );
    report.say(
      `- engine / raw, median of the ${rounds} pairs (range): ${spread(pairs.map((p) => p.rate))}× the rate (goal ≥ 0.8), ${spread(pairs.map((p) => p.cpu))}× the CPU per request (goal ≤ 1.25), ${spread(pairs.map((p) => p.core))}× the core share`,
    );
    report.say(
      `- the ${quiet.length} quiet pairs (others and steal < ${QUIET_CORES} cores in both rounds): ${spread(quiet.map((p) => p.rate))}× the rate, ${spread(quiet.map((p) => p.cpu))}× the CPU per request`,
    );
    report.say(
      `- per pair, rate ratio = core-share ratio ÷ CPU ratio (* quiet): ${pairs.map((p) => `${p.rate.toFixed(2)} = ${p.core.toFixed(2)} ÷ ${p.cpu.toFixed(2)}${p.quiet ? '*' : ''}`).join('; ')}`,
    );
    // On a busy machine the client's share of a core, not its own cost, sets the rate (and
    // leans towards the client that wants more CPU): that is not a figure of the engine.
    if (quiet.length < MIN_ROUNDS)
      report.notRecordable(`${quiet.length} quiet pairs of ${rounds} (at least ${MIN_ROUNDS})`);
    report.figure('nginx', { raw: r, engine: e });
    report.finish();
  }
} finally {
  nginx.kill('SIGTERM');
  await sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
