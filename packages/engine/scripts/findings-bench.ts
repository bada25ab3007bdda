/**
 * Benchmarks of the finding families against the local lab (loopback only):
 *  1. template engine requests/s against a raw undici Pool loop on the same lab host;
 *  2. peak memory of 150 templates × 1,000 hosts (name-based virtual hosts on one lab site);
 *  3. wall time of the full lab scan (all classes).
 * `runFindingsBench()` returns the markdown section; run this file directly to print it and
 * append it to docs/benchmarks.md (`npx tsx packages/engine/scripts/findings-bench.ts
 * [--only=throughput,memory,full] [--no-append]`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { LAB_CVE_FEED_PATH, startLab } from '@perimeter/lab';
import { Pool } from 'undici';
import { createFindingStages } from '../src/findings/finding-stages.js';
import { LocalLeakIndex } from '../src/leaks/local-leak-index.js';
import { scan } from '../src/pipeline/scan.js';
import { defaultExecutors } from '../src/protocols/index.js';
import { compileTemplateSource } from '../src/templates/template-compile.js';
import { loadTemplates } from '../src/templates/template-loader.js';
import { type TemplateJob, TemplateScanner } from '../src/templates/template-scanner.js';
import { BUILTIN_TEMPLATES_DIR } from '../src/templates/template-stage.js';
import type { CompiledTemplate } from '../src/templates/template-types.js';
import { importNvd20 } from '../src/vulndb/vuln-importers.js';
import { MemoryVulnStore } from '../src/vulndb/vuln-store.js';
import { REPO_ROOT } from '../test/helpers.js';

const DATASETS = path.resolve(REPO_ROOT, '../shared/datasets');

const HERE = fileURLToPath(import.meta.url);

function runChild(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const timer = setTimeout(() => child.kill(), 20 * 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

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

/** The raw undici loop the template engine is compared with: GET / as fast as `concurrency` allows. */
export function rawLoop(origin: string, concurrency: number, durationMs: number): Promise<Rate> {
  return measure(async () => {
    const pool = new Pool(origin, { connections: concurrency });
    let count = 0;
    const end = performance.now() + durationMs;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
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

function throughputTemplate(n: number): CompiledTemplate {
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

/** The lab in its own process, so that its HTTP server does not share the measured event loop. */
async function startLabProcess(
  subnet: string,
): Promise<{ portMap: Record<number, number>; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'packages/engine/scripts/bench-lab-child.ts'), subnet],
    {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const rl = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(rl, 'line')) as [string];
  rl.close();
  const info = JSON.parse(line) as { portMap: Record<number, number> };
  return { portMap: info.portMap, stop: () => child.kill('SIGTERM') };
}

/** The child process of the memory run: prints JSON with peak RSS. */
async function memoryChild(ip: string, port: number, hosts: number, templateCount: number): Promise<void> {
  const templates: CompiledTemplate[] = [];
  const builtin = (await loadTemplates(BUILTIN_TEMPLATES_DIR)).templates.filter((t) =>
    t.protocols.has('http'),
  );
  templates.push(...builtin);
  const dataset = path.join(DATASETS, 'nuclei-templates', 'http');
  try {
    for (const t of (await loadTemplates(dataset)).templates)
      if (templates.length < templateCount) templates.push(t);
  } catch {
    // dataset absent: the built-in templates are repeated below
  }
  for (let i = 0; templates.length < templateCount; i++) {
    const base = builtin[i % builtin.length] as CompiledTemplate;
    templates.push({ ...base, id: `${base.id}-copy-${i}` });
  }
  const names = Array.from({ length: hosts }, (_v, i) => `h${String(i).padStart(4, '0')}.bench.test`);
  const scanner = new TemplateScanner(defaultExecutors, {
    rateLimit: 0,
    concurrency: 64,
    perHostConcurrency: 2,
    timeoutMs: 10000,
    resolve: (h) => (h.endsWith('.bench.test') ? ip : undefined),
  });
  let peak = 0;
  let peakHeap = 0;
  let peakExternal = 0;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    peakHeap = Math.max(peakHeap, m.heapTotal);
    peakExternal = Math.max(peakExternal, m.external + m.arrayBuffers);
  }, 50);
  const started = performance.now();
  let findings = 0;
  for await (const _f of scanner.scan(
    templates.slice(0, templateCount),
    names.map((n) => `http://${n}:${port}`),
  ))
    findings++;
  clearInterval(timer);
  await scanner.close();
  const maxRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    `${JSON.stringify({ templates: Math.min(templateCount, templates.length), hosts, tasks: scanner.summary.tasks, requests: scanner.summary.requests, findings, seconds: (performance.now() - started) / 1000, peakRss: Math.max(peak, maxRss), peakHeapTotal: peakHeap, peakExternal })}\n`,
  );
}

async function fullLabScan(
  lab: Awaited<ReturnType<typeof startLab>>,
): Promise<{ seconds: number; findings: Record<string, number>; maxRssMb: number }> {
  // The product's own data: the CVE feed the lab publishes (as the known-answer test does).
  const store = new MemoryVulnStore();
  await store.add(importNvd20(JSON.parse(readFileSync(LAB_CVE_FEED_PATH, 'utf8'))));
  const leaks = new LocalLeakIndex('0'.repeat(64));
  for (const l of lab.expected().leakCorpus) leaks.add(l);
  const ports = [...new Set([...Object.values(lab.portMap), 3306, 6379, 8080, 3000])].sort((a, b) => a - b);
  const started = performance.now();
  const findings: Record<string, number> = { exploit_scanner: 0, exploit_db: 0, leakcheck: 0 };
  for await (const e of scan(lab.domains, {
    dns: { servers: [`${lab.dns.host}:${lab.dns.port}`], timeoutMs: 1000, retries: 1 },
    scope: { allowPrivate: true, allow: ['127.0.0.0/8'] },
    discovery: { ctUrl: lab.ctUrl },
    ports: { list: ports, bannerTimeoutMs: 800 },
    extraStages: createFindingStages({
      templates: { rateLimit: 0 },
      vulndb: { store },
      leaks: { sources: [leaks] },
    }),
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
  options: {
    log?: (s: string) => void;
    hosts?: number;
    templates?: number;
    /** Sections to run (default all): throughput, memory, full. */
    only?: string[];
  } = {},
): Promise<string> {
  const lines: string[] = [];
  const say = (s: string) => {
    options.log?.(s);
    lines.push(s);
  };
  const lab = await startLab({ subnet: '127.0.88', dnsPort: 0 });
  try {
    const www = lab.address(10);
    const port = lab.portMap[80] ?? 80;
    say(`## Finding families (issue 5) — ${new Date().toISOString()}`);
    say('');
    say(
      `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, lab on ${lab.subnet}.0/24 (loopback, served from the bench process), load average ${os.loadavg()[0]?.toFixed(1)} at start.`,
    );
    say('');
    const want = (section: string) => !options.only || options.only.includes(section);
    if (want('throughput')) {
      say('Template engine throughput (lab in its own process on 127.0.87.0/24):');
      const concurrency = 64;
      const labProcess = await startLabProcess('127.0.87');
      const origin = `http://127.0.87.10:${labProcess.portMap[80] ?? 80}`;
      let raw: Rate | undefined;
      let engine: Rate | undefined;
      try {
        // Warm both paths (JIT, connections), then alternate them and keep the best of three
        // each: the machine is shared and its load moves between rounds.
        await rawLoop(origin, concurrency, 1000);
        await engineRate(origin, concurrency, 30);
        for (let round = 0; round < 3; round++) {
          const r = await rawLoop(origin, concurrency, 3000);
          if (!raw || r.rate > raw.rate) raw = r;
          const e = await engineRate(origin, concurrency, 150);
          if (!engine || e.rate > engine.rate) engine = e;
        }
      } finally {
        labProcess.stop();
      }
      if (raw && engine) {
        say(
          `- raw undici Pool loop on ${origin}/: ${raw.rate.toFixed(0)} req/s (${concurrency} concurrent, best of 3), ${raw.cpuUsPerRequest.toFixed(0)} µs CPU per request`,
        );
        say(
          `- template engine (interpolation, payloads, matchers, evidence, politeness): ${engine.rate.toFixed(0)} req/s over ${engine.requests} requests (best of 3), ${engine.cpuUsPerRequest.toFixed(0)} µs CPU per request`,
        );
        say(
          `- ratio engine / raw: ${(engine.rate / raw.rate).toFixed(2)} (goal ≥ 0.6); load average ${os.loadavg()[0]?.toFixed(1)} after the rounds`,
        );
      }
      say('');
    }
    if (want('memory')) {
      const hosts = options.hosts ?? 1000;
      const templateCount = options.templates ?? 150;
      // The lab serves from this process: the child must run asynchronously.
      const child = await runChild([
        HERE,
        '--memory-child',
        www,
        String(port),
        String(hosts),
        String(templateCount),
      ]);
      const out = child.stdout.trim().split('\n').at(-1) ?? '';
      say('Memory:');
      try {
        const m = JSON.parse(out) as {
          templates: number;
          hosts: number;
          tasks: number;
          requests: number;
          findings: number;
          seconds: number;
          peakRss: number;
        };
        say(
          `- ${m.templates} templates × ${m.hosts} hosts (name-based virtual hosts on ${www}): ${m.tasks} tasks, ${m.requests} requests in ${m.seconds.toFixed(1)} s, ${m.findings} findings`,
        );
        say(`- peak RSS of the scanning process: ${(m.peakRss / 1048576).toFixed(0)} MB (goal < 300 MB)`);
      } catch {
        say(`- memory run failed: exit ${child.code} ${(child.stderr || out).slice(-300)}`);
      }
      say('');
    }
    if (want('full')) {
      const full = await fullLabScan(lab);
      const wanted = lab.expected().scanFindings.length;
      const total = Object.values(full.findings).reduce((a, b) => a + b, 0);
      say("Full lab scan (all classes; the lab's CVE feed and leak corpus loaded):");
      say(
        `- wall time ${full.seconds.toFixed(1)} s (goal < 30 s); findings: ${Object.entries(full.findings)
          .map(([k, v]) => `${k} ${v}`)
          .join(
            ', ',
          )} (${total} of the ${wanted} expected.json lists); load average ${os.loadavg()[0]?.toFixed(1)}`,
      );
      say('');
    }
  } finally {
    await lab.stop();
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === HERE) {
  if (process.argv[2] === '--memory-child') {
    const [, , , ip = '127.0.0.1', port = '80', hosts = '1000', templates = '150'] = process.argv;
    await memoryChild(ip, Number(port), Number(hosts), Number(templates));
  } else {
    const only = process.argv
      .find((a) => a.startsWith('--only='))
      ?.slice('--only='.length)
      .split(',');
    const section = await runFindingsBench({ log: (s) => console.log(s), ...(only ? { only } : {}) });
    if (!process.argv.includes('--no-append'))
      appendFileSync(path.join(REPO_ROOT, 'docs/benchmarks.md'), `\n${section}`);
  }
}
