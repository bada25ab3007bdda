/**
 * Engine benchmarks against the local lab (loopback only; the lab on a free loopback /24 chosen
 * at run time, in its own process). Every comparison runs both sides on the same work, in
 * interleaved rounds (at least 5, `--rounds=N`), and reports medians with the load average.
 * Results go to bench-results/; `--record` also appends them to docs/benchmarks.md.
 * Run: npm run bench -w packages/engine [-- --only=throughput,full] [--rounds=5] [--record]
 * (`--only=` takes the finding families' sections: throughput, memory, full; the discovery
 * sections always run)
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BenchReport, interleaved, MIN_ROUNDS, median, summarize } from '@perimeter/lab/bench';
import { Pool } from 'undici';
import { scanTcpPorts } from '../src/ports/connect-scanner.ts';
import { isNmapAvailable, runNmap } from '../src/ports/nmap-adapter.ts';
import { parsePorts } from '../src/ports/port-lists.ts';
import { HttpProber } from '../src/probe/http-probe.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const policy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.0.0/8'] });
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(arg('rounds') ?? MIN_ROUNDS);
const report = new BenchReport('engine', 'Engine: discovery and finding families (issues 3, 5, 19)');
const say = (s: string) => report.say(s);
const log = (l: string) => console.log(`  ${l}`);

async function timeIt<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

async function portScanBench(host: string): Promise<void> {
  const all = parsePorts('1-65535');
  const builtin = (threads: number) => async () => {
    const [ms, out] = await timeIt(async () => {
      const open: number[] = [];
      for await (const p of scanTcpPorts(policy, host, all, { concurrency: 500, timeoutMs: 1000, threads }))
        open.push(p);
      return open.sort((a, b) => a - b);
    });
    return { ms, open: out.join(',') };
  };
  const sides = [
    { name: 'built-in, 1 thread', run: builtin(1) },
    { name: 'built-in, 2 worker threads', run: builtin(2) },
  ];
  const nmap = isNmapAvailable();
  if (nmap)
    sides.push(
      {
        name: 'nmap -sT -T4 -p- -n -Pn',
        run: async () => {
          const [ms] = await timeIt(() =>
            run('nmap', ['-sT', '-T4', '-p-', '-n', '-Pn', host], { maxBuffer: 16 << 20 }),
          );
          return { ms, open: '' };
        },
      },
      {
        name: 'nmap through the adapter (-sT -T4, XML parsed)',
        run: async () => {
          const [ms, found] = await timeIt(() =>
            runNmap(policy, host, all, { timing: '-T4', serviceDetection: false }),
          );
          return { ms, open: found.map((s) => s.port).join(',') };
        },
      },
    );
  const samples = await interleaved(sides, { rounds, log });
  const medians = samples.map((x) => summarize(x, (v) => v.ms));
  for (const [i, side] of sides.entries())
    say(
      `- ${side.name}, 1-65535 on ${host}: median ${((medians[i]?.median ?? 0) / 1000).toFixed(2)} s${samples[i]?.[0]?.value.open ? `, open ${samples[i]?.[0]?.value.open}` : ''} (load ${medians[i]?.load})`,
    );
  if (!nmap) {
    say('- nmap not installed: nmap comparison skipped (apt-get install -y nmap)');
    return;
  }
  const [b1, , n, a] = medians.map((m) => m.median) as [number, number, number, number];
  say(
    `- ratio built-in / nmap: ${(b1 / n).toFixed(2)} (goal ≤ 2); adapter / nmap: ${(a / n).toFixed(2)} (goal ≤ 1.1)`,
  );
  report.figure('ports', samples);
}

async function httpBench(host: string, port: number): Promise<void> {
  const requests = 5000;
  const concurrency = 64;
  const origin = `http://${host}:${port}`;
  // The same work on both sides: `requests` GETs of the same page, `concurrency` at a time.
  const loop = async (one: () => Promise<void>): Promise<number> => {
    let sent = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < requests) {
          sent++;
          await one();
        }
      }),
    );
    return requests / ((performance.now() - t) / 1000);
  };
  const samples = await interleaved(
    [
      {
        name: 'raw undici Pool',
        run: async () => {
          const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
          const rate = await loop(async () => {
            const r = await pool.request({ path: '/', method: 'GET' });
            await r.body.arrayBuffer();
          });
          await pool.close();
          return rate;
        },
      },
      {
        name: 'HTTP prober',
        run: async () => {
          const prober = new HttpProber(policy, async () => [host], { connections: concurrency });
          const rate = await loop(async () => {
            await prober.fetch(`http://www.acme.test:${port}/`);
          });
          await prober.close();
          return rate;
        },
      },
    ],
    { rounds, log },
  );
  const [raw, probe] = samples.map((x) => summarize(x, (v) => v)) as [
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
  ];
  say(
    `- raw undici Pool on ${origin}: median ${raw.median.toFixed(0)} req/s (${requests} requests, ${concurrency} in flight)`,
  );
  say(
    `- HTTP prober (scope-checked connector, body read and hashed), the same requests: median ${probe.median.toFixed(0)} req/s`,
  );
  say(`- ratio prober / raw: ${(probe.median / raw.median).toFixed(2)} (goal ≥ 0.6); load ${raw.load}`);
  report.figure('http', samples);
}

interface LabInfo {
  subnet: string;
  dns: { host: string; port: number };
  ctUrl: string;
  domains: string[];
  portMap: Record<number, number>;
}

async function startLabProcess(): Promise<[LabInfo, ChildProcess]> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bench-lab-child.ts')], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const rl = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(rl, 'line')) as [string];
  rl.close();
  return [JSON.parse(line) as LabInfo, child];
}

async function scanBench(lab: LabInfo): Promise<void> {
  const ports = 'top1000';
  const args = [
    '--import',
    'tsx',
    path.join(here, 'bench-scan-child.ts'),
    `${lab.dns.host}:${lab.dns.port}`,
    lab.ctUrl,
    ports,
    ...lab.domains,
  ];
  const runs: { wallMs: number; maxRssMb: number; assets: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const { stdout } = await run(process.execPath, args, { cwd: repoRoot, timeout: 120_000 });
    runs.push(JSON.parse(stdout) as { wallMs: number; maxRssMb: number; assets: number });
    log(`class_resources scan ${i + 1}/${rounds}: ${((runs.at(-1)?.wallMs ?? 0) / 1000).toFixed(2)} s`);
  }
  say(
    `- class_resources scan of the whole lab (${lab.domains.join(', ')}; ${ports}; wordlist brute force, AXFR, CT), a fresh process each: median ${(median(runs.map((r) => r.wallMs)) / 1000).toFixed(2)} s wall of ${rounds}, peak RSS ${median(runs.map((r) => r.maxRssMb)).toFixed(0)} MB, ${runs[0]?.assets} assets (goal < 15 s, < 250 MB)`,
  );
  report.figure('scan', runs);
}

async function main(): Promise<void> {
  if (rounds < MIN_ROUNDS) report.notRecordable(`${rounds} rounds (at least ${MIN_ROUNDS})`);
  const [lab, labProcess] = await startLabProcess();
  const address = (octet: number) => `${lab.subnet}.${octet}`;
  try {
    say(`### Discovery engine (issue 3), lab on ${lab.subnet}.0/24 (loopback, separate process)`);
    say('');
    say('Port scan:');
    say('');
    await portScanBench(address(18));
    say('');
    say('HTTP probe:');
    say('');
    await httpBench(address(10), lab.portMap[80] ?? 80);
    say('');
    say('Whole scan:');
    say('');
    await scanBench(lab);
    say('');
  } finally {
    labProcess.kill('SIGTERM');
  }
  // The finding families (issue 5) add their own section (scripts/findings-bench.ts).
  const { runFindingsBench } = await import('./findings-bench.ts');
  const only = arg('only')?.split(',');
  await runFindingsBench(report, { ...(only ? { only } : {}), rounds });
  report.finish();
}

await main();
