/**
 * `npx tsx packages/engine/scripts/dns-cold.ts` — the CPU a fresh worker process spends per DNS
 * question in its first subdomain brute forces, as the scale-out bench's first scans meet it:
 * --procs fresh processes (start:worker's --interrupt-budget) start at once, each brute-forcing
 * --per lab domains at a time (the whole built-in wordlist, 200 in flight, a resolver per scan as
 * a scan has) for 3 waves, against the lab's DNS in its own process (warmed by one such process
 * first). Prints each process's µs of CPU per question and wall ms per wave, the lab's CPU, and the
 * medians per wave. --base=<repo root>: that checkout's engine too, interleaved (B is this one);
 * --base=self --b-node=<flags,...>: this checkout with and without more Node flags; --node=<flags>:
 * for both; --rounds (3).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage, processCpuSeconds } from '@perimeter/lab/bench';
import { startLabProcess } from './findings-bench.ts';

const args = process.argv.slice(2);
const option = (name: string) =>
  args
    .find((a) => a.startsWith(`--${name}=`))
    ?.split('=')
    .slice(1)
    .join('=');
const procs = Number(option('procs') ?? 3);
const per = Number(option('per') ?? 2);
const rounds = Number(option('rounds') ?? 3);
const extra = (option('node') ?? '').split(',').filter(Boolean);
/** --b-node=flags: more Node flags for this checkout's side only (e.g. --max-semi-space-size=64). */
const extraB = (option('b-node') ?? '').split(',').filter(Boolean);
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// --base=<root>, or --base=self with --b-node: the same checkout without the flags.
const base = option('base');
const roots = [here, ...(base ? [base === 'self' ? `${here}/` : base] : [])];

const lab = await startLabProcess();
const server = `${lab.dns.host}:${lab.dns.port}`;
const domains = lab.domains.slice(0, per).join(',');
function child(root: string): Promise<{ wave: number; cpuMs: number; usPerQ: number; ms: number }[]> {
  return new Promise((resolve, reject) => {
    const c = spawn(
      process.execPath,
      [
        '--interrupt-budget=270336',
        ...extra,
        ...(root === here ? extraB : []),
        '--import',
        'tsx',
        path.join(here, 'packages/engine/scripts/dns-cold-child.ts'),
        server,
        domains,
        '3',
        root,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let s = '';
    c.stdout.on('data', (d) => (s += d));
    c.on('exit', (code) => (code === 0 ? resolve(JSON.parse(s)) : reject(new Error(`child ${code}`))));
  });
}
const perSide = new Map<string, number[][]>();
const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? (s[(s.length - 1) / 2] as number)
    : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
try {
  // Warm the lab: its own first answers are cold too.
  await child(here);
  for (let r = 0; r < rounds; r++)
    for (const root of r % 2 ? [...roots].reverse() : roots) {
      const load = loadAverage();
      const labCpu = processCpuSeconds(lab.pid) ?? 0;
      const t = performance.now();
      const res = await Promise.all(Array.from({ length: procs }, () => child(root)));
      const wall = performance.now() - t;
      const labMs = ((processCpuSeconds(lab.pid) ?? 0) - labCpu) * 1000;
      const waves = [0, 1, 2].map((w) => res.map((p) => p[w]));
      const side = root === here ? 'B' : 'A';
      const acc = perSide.get(side) ?? [[], [], []];
      for (const [i, ws] of waves.entries()) acc[i]?.push(...ws.map((x) => x?.usPerQ ?? Number.NaN));
      perSide.set(side, acc);
      console.log(
        `${root === here ? 'B' : 'A'} r${r + 1} ${waves.map((ws, i) => `w${i + 1} ${ws.map((x) => `${x?.usPerQ}µs/${x?.ms}ms`).join(' ')}`).join(' | ')} | lab ${labMs.toFixed(0)} ms cpu, all ${wall.toFixed(0)} ms; load ${load}`,
      );
    }
  for (const [side, acc] of [...perSide].sort())
    console.log(
      `${side}: µs CPU per question, median over processes: ${acc.map((xs, i) => `wave ${i + 1} ${med(xs).toFixed(1)}`).join(', ')} (${acc[0]?.length} processes)`,
    );
} finally {
  lab.stop();
}
