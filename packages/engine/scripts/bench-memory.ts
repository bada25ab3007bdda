/**
 * The memory section of the findings bench: 150 templates (the built-in HTTP ones, then the
 * shared dataset's nuclei-templates/http — missing dataset: the bench fails) × 1,000 hosts
 * (name-based virtual hosts on one lab site), in a child process, twice:
 *  1. peak RSS as a user's process gets it (no forced collections), with the heap limit of the
 *     rule in packages/engine/README.md ("Memory"): `--max-old-space-size=128` for this set;
 *  2. the live set: the heap still used right after a forced full GC (`--expose-gc`), sampled
 *     every 3 s, printed by quarter of the tasks (bounded work: flat in the number of hosts).
 * BENCH_MEMORY_FLAGS replaces the heap flags of run 1 (e.g. "" for V8's defaults).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type BenchReport,
  DATASETS,
  loadAverage,
  median,
  REPO_ROOT,
  requireDataset,
} from '@perimeter/lab/bench';
import { defaultExecutors } from '../src/protocols/index.ts';
import { loadTemplates } from '../src/templates/template-loader.ts';
import { TemplateScanner } from '../src/templates/template-scanner.ts';
import { BUILTIN_TEMPLATES_DIR } from '../src/templates/template-sets.ts';

const HERE = fileURLToPath(import.meta.url);
/** The scanning process's heap limit for this template set (the README's rule). */
export const MEMORY_HEAP_FLAGS: string[] = (process.env.BENCH_MEMORY_FLAGS ?? '--max-old-space-size=128')
  .split(' ')
  .filter(Boolean);

interface MemoryRun {
  templates: number;
  hosts: number;
  tasks: number;
  requests: number;
  findings: number;
  seconds: number;
  peakRss: number;
  peakHeapTotal: number;
  liveBefore?: number;
  live?: { tasks: number; heapUsed: number }[];
}

/** The child: one scan, printing JSON (peak RSS; with `live`, the live-set samples too). */
async function memoryChild(ip: string, port: number, hosts: number, templateCount: number, live: boolean) {
  const templates = (await loadTemplates(BUILTIN_TEMPLATES_DIR)).templates.filter((t) =>
    t.protocols.has('http'),
  );
  // The community templates of the shared dataset: absent or too few, the bench fails rather
  // than measure another template set.
  const dataset = requireDataset(DATASETS, 'nuclei-templates', 'http');
  for (const t of (await loadTemplates(dataset)).templates)
    if (templates.length < templateCount && t.protocols.has('http')) templates.push(t);
  if (templates.length < templateCount)
    throw new Error(
      `only ${templates.length} HTTP templates in ${dataset} and the built-in set; ${templateCount} wanted`,
    );
  const names = Array.from({ length: hosts }, (_v, i) => `h${String(i).padStart(4, '0')}.bench.test`);
  const scanner = new TemplateScanner(defaultExecutors, {
    rateLimit: 0,
    concurrency: 64,
    perHostConcurrency: 2,
    timeoutMs: 10000,
    resolve: (h) => (h.endsWith('.bench.test') ? ip : undefined),
  });
  let peak = 0;
  let peakHeapTotal = 0;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    peakHeapTotal = Math.max(peakHeapTotal, m.heapTotal);
  }, 50);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (live && !gc) throw new Error('the live-set run needs --expose-gc');
  const liveNow = () => {
    gc?.();
    return process.memoryUsage().heapUsed;
  };
  const samples: { tasks: number; heapUsed: number }[] = [];
  const liveBefore = live ? liveNow() : undefined;
  const liveTimer = live
    ? setInterval(() => samples.push({ tasks: scanner.summary.tasks, heapUsed: liveNow() }), 3000)
    : undefined;
  const started = performance.now();
  let findings = 0;
  for await (const _f of scanner.scan(
    templates.slice(0, templateCount),
    names.map((n) => `http://${n}:${port}`),
  ))
    findings++;
  clearInterval(timer);
  clearInterval(liveTimer);
  await scanner.close();
  const run: MemoryRun = {
    templates: Math.min(templateCount, templates.length),
    hosts,
    tasks: scanner.summary.tasks,
    requests: scanner.summary.requests,
    findings,
    seconds: (performance.now() - started) / 1000,
    peakRss: Math.max(peak, process.resourceUsage().maxRSS * 1024),
    peakHeapTotal,
    ...(live ? { liveBefore, live: samples } : {}),
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

function runChild(args: string[]): Promise<MemoryRun> {
  return new Promise((resolve, reject) => {
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
      const out = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`memory run failed: exit ${code} ${(stderr || out).slice(-300)}`));
      else resolve(JSON.parse(out) as MemoryRun);
    });
  });
}

/** Both runs against the lab's web host `www:port`; says the figures into `report`. */
export async function runMemorySection(
  report: BenchReport,
  www: string,
  port: number,
  hosts: number,
  templateCount: number,
): Promise<void> {
  const say = (s: string) => report.say(s);
  requireDataset(DATASETS, 'nuclei-templates', 'http');
  const args = [HERE, '--memory-child', www, String(port), String(hosts), String(templateCount)];
  // The lab serves from this process: the children run asynchronously.
  const loadBefore = loadAverage();
  const rss = await runChild([...MEMORY_HEAP_FLAGS, ...args]);
  const loadBetween = loadAverage();
  const liveRun = await runChild(['--expose-gc', ...args, '--live']);
  const mb = (n: number) => (n / 1048576).toFixed(0);
  const samples = liveRun.live ?? [];
  const live = samples.map((x) => x.heapUsed);
  const quarter = (q: number) =>
    samples.filter((x) => x.tasks >= (liveRun.tasks * q) / 4 && x.tasks < (liveRun.tasks * (q + 1)) / 4);
  say('Memory:');
  say(
    `- ${rss.templates} templates (built-in, then the shared dataset's nuclei-templates/http) × ${rss.hosts} hosts (name-based virtual hosts on ${www}): ${rss.tasks} tasks, ${rss.requests} requests in ${rss.seconds.toFixed(1)} s, ${rss.findings} findings`,
  );
  say(
    `- peak RSS of the scanning process: **${mb(rss.peakRss)} MB** (goal ≤ 200 MB; peak heap ${mb(rss.peakHeapTotal)} MB), node flags ${MEMORY_HEAP_FLAGS.join(' ') || '(none)'}, no forced collections; load average ${loadBefore} → ${loadBetween}`,
  );
  say(
    `- live set (a second run with --expose-gc: heap used right after a forced full GC, every 3 s): ${mb(liveRun.liveBefore ?? 0)} MB with the templates compiled, before the scan; during the scan median ${mb(median(live))} MB, max ${mb(Math.max(...live))} MB over ${live.length} samples; median by quarter of the tasks ${[0, 1, 2, 3].map((q) => mb(median(quarter(q).map((x) => x.heapUsed)))).join(' / ')} MB (peak RSS of that run ${mb(liveRun.peakRss)} MB); load average ${loadAverage()}`,
  );
  report.figure('memory', { rss, live: liveRun, flags: MEMORY_HEAP_FLAGS });
  say('');
}

if (process.argv[1] === HERE && process.argv[2] === '--memory-child') {
  const [, , , ip = '127.0.0.1', port = '80', hosts = '1000', templates = '150', mode] = process.argv;
  await memoryChild(ip, Number(port), Number(hosts), Number(templates), mode === '--live');
}
