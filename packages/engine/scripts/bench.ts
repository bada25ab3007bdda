/**
 * Engine benchmarks against the local lab (loopback only). Prints the figures and appends
 * them to docs/benchmarks.md. Run: npm run bench -w packages/engine
 * (`-- --only=throughput,full` leaves out the finding families' 150 × 1,000 memory run)
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { scanTcpPorts } from '../src/ports/connect-scanner.js';
import { isNmapAvailable, runNmap } from '../src/ports/nmap-adapter.js';
import { parsePorts } from '../src/ports/port-lists.js';
import { HttpProber } from '../src/probe/http-probe.js';
import { ScopePolicy } from '../src/scope/scope-policy.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const policy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.0.0/8'] });
const lines: string[] = [];
const say = (s: string) => {
  console.log(s);
  lines.push(s);
};

async function timeIt<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

async function portScanBench(host: string): Promise<void> {
  const all = parsePorts('1-65535');
  const scanOnce = (threads: number) =>
    timeIt(async () => {
      const out: number[] = [];
      for await (const p of scanTcpPorts(policy, host, all, { concurrency: 500, timeoutMs: 1000, threads }))
        out.push(p);
      return out.sort((a, b) => a - b);
    });
  const [builtinMs, open] = await scanOnce(1);
  const [twoThreadsMs] = await scanOnce(2);
  say(
    `- built-in connect scanner, 1-65535 on ${host}: ${(builtinMs / 1000).toFixed(2)} s, open ${open.join(',')}`,
  );
  say(`- built-in connect scanner split over 2 worker threads: ${(twoThreadsMs / 1000).toFixed(2)} s`);
  if (!isNmapAvailable()) {
    say('- nmap not installed: nmap comparison skipped (apt-get install -y nmap)');
    return;
  }
  const [nmapMs] = await timeIt(() =>
    run('nmap', ['-sT', '-T4', '-p-', '-n', '-Pn', host], { maxBuffer: 16 << 20 }),
  );
  const [adapterMs, viaAdapter] = await timeIt(() =>
    runNmap(policy, host, all, { timing: '-T4', serviceDetection: false }),
  );
  say(`- nmap -sT -T4 -p- on ${host}: ${(nmapMs / 1000).toFixed(2)} s`);
  say(
    `- nmap through the adapter (-sT -T4, XML parsed): ${(adapterMs / 1000).toFixed(2)} s, open ${viaAdapter.map((s) => s.port).join(',')}`,
  );
  say(
    `- ratio built-in / nmap: ${(builtinMs / nmapMs).toFixed(2)} (goal ≤ 2); adapter / nmap: ${(adapterMs / nmapMs).toFixed(2)} (goal ≤ 1.1)`,
  );
}

async function httpBench(host: string, port: number): Promise<void> {
  const durationMs = 3000;
  const concurrency = 64;
  const origin = `http://${host}:${port}`;
  const loop = async (one: () => Promise<void>): Promise<number> => {
    let count = 0;
    const end = performance.now() + durationMs;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          await one();
          count++;
        }
      }),
    );
    return count / (durationMs / 1000);
  };
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const raw = await loop(async () => {
    const r = await pool.request({ path: '/', method: 'GET' });
    await r.body.arrayBuffer();
  });
  await pool.close();
  const prober = new HttpProber(policy, async () => [host], { connections: concurrency });
  const probe = await loop(async () => {
    await prober.fetch(`http://www.acme.test:${port}/`);
  });
  await prober.close();
  say(`- raw undici Pool loop on ${origin}: ${Math.round(raw)} req/s (${concurrency} concurrent)`);
  say(`- HTTP prober (scope-checked connector, body read and hashed): ${Math.round(probe)} req/s`);
  say(`- ratio prober / raw: ${(probe / raw).toFixed(2)} (goal ≥ 0.6)`);
}

interface LabInfo {
  subnet: string;
  dns: { host: string; port: number };
  ctUrl: string;
  domains: string[];
  portMap: Record<number, number>;
}

async function startLabProcess(subnet: string): Promise<[LabInfo, ChildProcess]> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bench-lab-child.ts'), subnet], {
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
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, { cwd: repoRoot, timeout: 120_000 }));
  } catch (e) {
    say(`- class_resources scan failed: ${(e as Error).message.slice(0, 300)}`);
    return;
  }
  const r = JSON.parse(stdout) as { wallMs: number; maxRssMb: number; assets: number };
  say(
    `- class_resources scan of the whole lab (${lab.domains.join(', ')}; ${ports}; wordlist brute force, AXFR, CT): ${(r.wallMs / 1000).toFixed(2)} s wall, peak RSS ${r.maxRssMb.toFixed(0)} MB, ${r.assets} assets (goal < 15 s, < 250 MB)`,
  );
}

async function main(): Promise<void> {
  const [lab, labProcess] = await startLabProcess('127.0.9');
  const address = (octet: number) => `${lab.subnet}.${octet}`;
  try {
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    say(`\n## Discovery engine (issue 3) — ${new Date().toISOString()}`);
    say('');
    say(
      `Node ${process.version}, ${os.cpus().length} × ${cpu}, lab on ${lab.subnet}.0/24 (loopback, separate process), load average ${os.loadavg()[0]?.toFixed(1)} at start.`,
    );
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
  } finally {
    labProcess.kill('SIGTERM');
  }
  const file = path.join(repoRoot, 'docs', 'benchmarks.md');
  if (!existsSync(file))
    writeFileSync(file, '# Benchmarks\n\nFigures appended by the bench scripts; newest last.\n');
  appendFileSync(file, `${lines.join('\n')}\n`);
  // The finding families (issue 5) append their own section (scripts/findings-bench.ts).
  const { runFindingsBench } = await import('./findings-bench.js');
  // `npm run bench -w packages/engine -- --only=throughput,full` skips the long memory run.
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  appendFileSync(
    file,
    `\n${await runFindingsBench({ log: (s) => console.log(s), ...(only ? { only } : {}) })}`,
  );
  console.log(`\nappended to ${path.relative(repoRoot, file)}`);
}

await main();
