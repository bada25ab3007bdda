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
 * Printed per side: requests/s, CPU µs per request, connections opened and the mean number of
 * requests in flight (the loops' or tasks' busy time over the round's wall time), so that the
 * comparison shows it was fair. Interleaved rounds (the bench kit), medians, the load average.
 * Prints figures, asserts nothing.
 * Run: npx tsx packages/engine/scripts/engine-nginx.ts [--rounds=5] [--per-task=500] [--record]
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
  MIN_ROUNDS,
  type Sample,
  summarize,
} from '@perimeter/lab/bench';
import { Pool } from 'undici';
import { defaultExecutors } from '../src/protocols/index.ts';
import { compileTemplateSource } from '../src/templates/template-compile.ts';
import { type TemplateJob, TemplateScanner } from '../src/templates/template-scanner.ts';
import { measure, type Rate } from './findings-bench.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(arg('rounds') ?? MIN_ROUNDS);
const connections = 64;
const perTask = Number(arg('per-task') ?? 500);
const total = connections * perTask;

interface Round extends Rate {
  /** Connections the side opened during the round. */
  connections: number;
  /** Mean requests in flight: the busy time of the 64 loops or tasks over the wall time. */
  inFlight: number;
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

/** Runs one side, counting its connections and its loops' busy time. */
async function round(run: (busy: (ms: number) => void) => Promise<number>): Promise<Round> {
  const before = connected;
  let busyMs = 0;
  const started = performance.now();
  const rate = await measure(() => run((ms) => (busyMs += ms)));
  const wallMs = performance.now() - started;
  if (rate.requests !== total) throw new Error(`${rate.requests} requests sent, ${total} expected`);
  return { ...rate, connections: connected - before, inFlight: busyMs / wallMs };
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
  const samples = await interleaved(
    [
      { name: 'raw', run: raw },
      { name: 'engine', run: engine },
    ],
    { rounds, log: (l) => console.log(`  ${l}`) },
  );
  const [r, e] = samples as [Sample<Round>[], Sample<Round>[]];
  report.say(
    `\`npx tsx packages/engine/scripts/engine-nginx.ts\`: Debian's nginx (1 worker) on ${origin}; per side and round ${total} GETs, ${connections} connections, ${connections} in flight, no pipelining, the body searched for a word; ${rounds} interleaved rounds after a warm-up, medians:`,
  );
  report.say('');
  const line = (name: string, xs: Sample<Round>[]) => {
    const rate = summarize(xs, (x) => x.rate);
    const cpu = summarize(xs, (x) => x.cpuUsPerRequest);
    const conns = summarize(xs, (x) => x.connections).median;
    const inFlight = summarize(xs, (x) => x.inFlight).median;
    report.say(
      `- ${name}: ${rate.median.toFixed(0)} req/s, ${cpu.median.toFixed(1)} µs CPU/request, ${conns.toFixed(0)} connections opened, ${inFlight.toFixed(1)} requests in flight on average (load ${rate.load})`,
    );
    return { rate: rate.median, cpu: cpu.median };
  };
  const a = line('raw undici Pool', r);
  const b = line('template engine', e);
  report.say(
    `- engine / raw: ${(b.rate / a.rate).toFixed(2)}× the rate (goal ≥ 0.8), ${(b.cpu / a.cpu).toFixed(2)}× the CPU per request (goal ≤ 1.25)`,
  );
  const ratios = r.map((x, i) => (e[i]?.value.rate ?? 0) / x.value.rate);
  report.say(
    `- per-round rate ratios (each round's pair ran back to back): ${ratios.map((x) => x.toFixed(2)).join(', ')}`,
  );
  report.figure('nginx', { raw: r, engine: e });
  report.finish();
} finally {
  nginx.kill('SIGTERM');
  await sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
