/**
 * Benchmarks of the finding families against the local lab (loopback only; the lab on a free
 * loopback /24 chosen at run time):
 *  1. template engine against a raw undici Pool loop on the same lab host: the same number of
 *     requests, connections and pipelining on both sides, interleaved rounds, medians;
 *  2. peak memory of 150 templates × 1,000 hosts (name-based virtual hosts on one lab site), with
 *     the community templates of the shared dataset — missing dataset: the bench fails;
 *  3. wall time of the full lab scan (all classes) with the engine's defaults as a user gets
 *     them (templates at 150 requests/s per host, the top100 port list).
 * `runFindingsBench(report)` adds its section to a BenchReport; run this file directly for this
 * section alone (`npx tsx packages/engine/scripts/findings-bench.ts
 * [--only=throughput,memory,full] [--rounds=5] [--record]`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { LAB_CVE_FEED_PATH } from '@perimeter/lab';
import {
  BenchReport,
  interleaved,
  loadAverage,
  MIN_ROUNDS,
  startFreeLab,
  summarize,
} from '@perimeter/lab/bench';
import { Pool } from 'undici';
import { createFindingStages } from '../src/findings/finding-stages.ts';
import { LocalLeakIndex } from '../src/leaks/local-leak-index.ts';
import { scan } from '../src/pipeline/scan.ts';
import { defaultExecutors } from '../src/protocols/index.ts';
import { compileTemplateSource } from '../src/templates/template-compile.ts';
import { type TemplateJob, TemplateScanner } from '../src/templates/template-scanner.ts';
import type { CompiledTemplate } from '../src/templates/template-types.ts';
import { importNvd20 } from '../src/vulndb/vuln-importers.ts';
import { MemoryVulnStore } from '../src/vulndb/vuln-store.ts';
import { REPO_ROOT } from '../test/helpers.ts';
import { runMemorySection } from './bench-memory.ts';

const HERE = fileURLToPath(import.meta.url);

export interface Rate {
  rate: number;
  requests: number;
  /** CPU time of this process per request (user + system), in microseconds. */
  cpuUsPerRequest: number;
}

export async function measure(run: () => Promise<number>): Promise<Rate> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const requests = await run();
  const used = process.cpuUsage(cpu);
  return {
    rate: requests / ((performance.now() - started) / 1000),
    requests,
    cpuUsPerRequest: (used.user + used.system) / Math.max(1, requests),
  };
}

/**
 * The raw undici loop the template engine is compared with: `requests` GETs (the engine's count for
 * the same work), `concurrency` at a time over as many connections, no pipelining.
 */
export function rawLoop(origin: string, concurrency: number, requests: number): Promise<Rate> {
  return measure(async () => {
    const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
    let count = 0;
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < requests) {
          sent++;
          const res = await pool.request({ path: '/', method: 'GET' });
          const body = await res.body.text();
          if (body.includes('Acme')) count++;
        }
      }),
    );
    await pool.close();
    return count;
  });
}

/**
 * The shape of a real scan: many templates of one request each, every one run against every
 * input (a new template run per request, as most of the community corpus runs). `count` templates
 * with their own path and a word that no page holds (most checks do not match).
 */
export function oneRequestTemplates(count: number): CompiledTemplate[] {
  return Array.from({ length: count }, (_v, k) => {
    const r = compileTemplateSource(
      `id: bench-one-${k}\ninfo:\n  name: bench\n  severity: info\nhttp:\n  - method: GET\n    path: ["{{BaseURL}}/check-${k}"]\n    matchers-condition: and\n    matchers:\n      - type: word\n        words: ["perimeter-bench-absent-${k}"]\n      - type: status\n        status: [200]\n`,
      `bench-one-${k}.yaml`,
    );
    if (r.status !== 'ok') throw new Error('bench template invalid');
    return r.template;
  });
}

/** The throughput benches' template: one GET per payload value, a word and a status matcher. */
export function throughputTemplate(n: number): CompiledTemplate {
  const values = Array.from({ length: n }, (_v, i) => `"${i}"`).join(', ');
  const r = compileTemplateSource(
    `id: bench-throughput\ninfo:\n  name: bench\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}/?n={{n}}"]\n    payloads:\n      n: [${values}]\n    matchers-condition: and\n    matchers:\n      - type: word\n        words: ["Acme"]\n      - type: status\n        status: [200]\n`,
    'bench.yaml',
  );
  if (r.status !== 'ok') throw new Error('bench template invalid');
  return r.template;
}

function engineRate(url: string, concurrency: number, perJob: number): Promise<Rate> {
  const t = throughputTemplate(perJob);
  return measure(async () => {
    const scanner = new TemplateScanner(defaultExecutors, {
      rateLimit: 0,
      concurrency,
      perHostConcurrency: concurrency,
      timeoutMs: 10000,
    });
    function* jobs(): Generator<TemplateJob> {
      for (let i = 0; i < concurrency; i++) yield { template: t, input: url };
    }
    for await (const _f of scanner.run(jobs())) {
      // findings are not kept
    }
    await scanner.close();
    return scanner.summary.requests;
  });
}

/**
 * The lab in its own process (on a free loopback /24 it picks), so that its HTTP server does not
 * share the measured event loop.
 */
export async function startLabProcess(): Promise<{
  subnet: string;
  portMap: Record<number, number>;
  /** The lab's DNS server and the domains it serves. */
  dns: { host: string; port: number };
  domains: string[];
  /** The lab process's id (its CPU time is read from /proc). */
  pid: number;
  stop: () => void;
}> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'packages/engine/scripts/bench-lab-child.ts')],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const rl = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(rl, 'line')) as [string];
  rl.close();
  const info = JSON.parse(line) as {
    subnet: string;
    portMap: Record<number, number>;
    dns: { host: string; port: number };
    domains: string[];
  };
  return { ...info, pid: child.pid as number, stop: () => child.kill('SIGTERM') };
}

async function fullLabScan(
  lab: Awaited<ReturnType<typeof startFreeLab>>,
): Promise<{ seconds: number; findings: Record<string, number>; maxRssMb: number }> {
  // The product's own data: the CVE feed the lab publishes (as the known-answer test does).
  const store = new MemoryVulnStore();
  await store.add(importNvd20(JSON.parse(readFileSync(LAB_CVE_FEED_PATH, 'utf8'))));
  const leaks = new LocalLeakIndex('0'.repeat(64));
  for (const l of lab.expected().leakCorpus) leaks.add(l);
  const started = performance.now();
  const findings: Record<string, number> = { exploit_scanner: 0, exploit_db: 0, leakcheck: 0 };
  // The engine's defaults, as a user gets them: no port list (top100), no template rate limit
  // (150 requests/s per host), the whole subdomain wordlist; only the lab's DNS, CT log and scope are given.
  for await (const e of scan(lab.domains, {
    dns: { servers: [`${lab.dns.host}:${lab.dns.port}`] },
    scope: { allowPrivate: true, allow: [`${lab.subnet}.0/24`] },
    discovery: { ctUrl: lab.ctUrl },
    extraStages: createFindingStages({ vulndb: { store }, leaks: { sources: [leaks] } }),
  })) {
    if (e.type === 'finding') findings[e.finding.subclass] = (findings[e.finding.subclass] ?? 0) + 1;
  }
  return {
    seconds: (performance.now() - started) / 1000,
    findings,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

export async function runFindingsBench(
  report: BenchReport,
  options: {
    hosts?: number;
    templates?: number;
    /** Sections to run (default all): throughput, memory, full. */
    only?: string[];
    rounds?: number;
  } = {},
): Promise<void> {
  const say = (s: string) => report.say(s);
  const rounds = options.rounds ?? MIN_ROUNDS;
  if (rounds < MIN_ROUNDS) report.notRecordable(`${rounds} rounds (at least ${MIN_ROUNDS})`);
  const want = (section: string) => !options.only || options.only.includes(section);
  say('### Finding families (issue 5)');
  say('');
  if (want('throughput')) {
    const concurrency = 64;
    const perJob = 150;
    const requests = concurrency * perJob;
    const labProcess = await startLabProcess();
    const origin = `http://${labProcess.subnet}.10:${labProcess.portMap[80] ?? 80}`;
    say(`Template engine throughput (lab in its own process on ${labProcess.subnet}.0/24):`);
    try {
      const [raw, engine] = await interleaved(
        [
          { name: 'raw', run: () => rawLoop(origin, concurrency, requests) },
          { name: 'engine', run: () => engineRate(origin, concurrency, perJob) },
        ],
        { rounds, log: (l) => console.log(`  ${l}`) },
      );
      const r = summarize(raw ?? [], (x) => x.rate);
      const e = summarize(engine ?? [], (x) => x.rate);
      const rCpu = summarize(raw ?? [], (x) => x.cpuUsPerRequest);
      const eCpu = summarize(engine ?? [], (x) => x.cpuUsPerRequest);
      say(
        `- raw undici Pool on ${origin}/: ${requests} requests, ${concurrency} in flight over ${concurrency} connections: median ${r.median.toFixed(0)} req/s, ${rCpu.median.toFixed(1)} µs CPU per request`,
      );
      say(
        `- template engine (interpolation, payloads, matchers, evidence, politeness), the same ${requests} requests and concurrency: median ${e.median.toFixed(0)} req/s, ${eCpu.median.toFixed(1)} µs CPU per request`,
      );
      say(
        `- ratio engine / raw: ${(e.median / r.median).toFixed(2)} (goal ≥ 0.8), CPU per request ${(eCpu.median / rCpu.median).toFixed(2)}× (goal ≤ 1.25); ${rounds} interleaved rounds after a warm-up, load average ${r.load} during the rounds`,
      );
      report.figure('throughput', { raw, engine });
    } finally {
      labProcess.stop();
    }
    say('');
  }
  const lab = await startFreeLab();
  try {
    const www = lab.address(10);
    const port = lab.portMap[80] ?? 80;
    if (want('memory'))
      await runMemorySection(report, www, port, options.hosts ?? 1000, options.templates ?? 150);
    if (want('full')) {
      const runs: Awaited<ReturnType<typeof fullLabScan>>[] = [];
      const loads: string[] = [];
      for (let i = 0; i < rounds; i++) {
        loads.push(loadAverage().split(' ')[0] as string);
        runs.push(await fullLabScan(lab));
        console.log(`  full lab scan ${i + 1}/${rounds}: ${runs.at(-1)?.seconds.toFixed(1)} s`);
      }
      const wanted = lab.expected().scanFindings.length;
      const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
      const mid = sorted[sorted.length >> 1] as (typeof runs)[number];
      const total = Object.values(mid.findings).reduce((a, b) => a + b, 0);
      say(
        "Full lab scan (all classes; the lab's CVE feed and leak corpus loaded; the engine's defaults as a user gets them: templates at 150 requests/s per host, the top100 port list, the whole subdomain wordlist):",
      );
      say(
        `- median wall time of ${rounds} runs ${mid.seconds.toFixed(1)} s (runs ${runs.map((r) => r.seconds.toFixed(1)).join(', ')} s; goal < 30 s); findings of the median run: ${Object.entries(
          mid.findings,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(
            ', ',
          )} (${total}; expected.json lists ${wanted}); load average before each run ${loads.join(', ')}`,
      );
      report.figure('full', runs);
      say('');
    }
  } finally {
    await lab.stop();
  }
}

if (process.argv[1] === HERE) {
  {
    const arg = (name: string) =>
      process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
    const only = arg('only')?.split(',');
    const report = new BenchReport('findings', 'Finding families: template engine, memory, full lab scan');
    await runFindingsBench(report, {
      ...(only ? { only } : {}),
      rounds: Number(arg('rounds') ?? MIN_ROUNDS),
      ...(arg('hosts') ? { hosts: Number(arg('hosts')) } : {}),
      ...(arg('templates') ? { templates: Number(arg('templates')) } : {}),
    });
    report.finish();
  }
}
