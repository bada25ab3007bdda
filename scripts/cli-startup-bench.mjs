#!/usr/bin/env node
// Start-up figures of `perimeter-scan --help` (issue 19: ≤ 0.15 s and ≤ 70 MiB RSS): the built CLI
// as `npx perimeter-scan` runs it, the same CLI run from its TypeScript through tsx, and Node's own
// floor (`node -e ''`). Each run is timed by /usr/bin/time -v (wall clock, maximum RSS); the three
// are interleaved, ROUNDS rounds, medians printed with the load average. On a loaded machine the
// wall clock mostly measures the wait for a core: read the CPU time and the gap to Node's floor. Results go to
// bench-results/cli-startup.json; `--record` also appends them to docs/benchmarks.md.
//
//   node scripts/cli-startup-bench.mjs [rounds=10] [--record]
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, root } from './build.mjs';

const record = process.argv.includes('--record');
const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 10);
const TIME = '/usr/bin/time';

await ensureBuilt('engine');
const variants = {
  'built CLI (bin/perimeter-scan.mjs)': [
    process.execPath,
    'packages/engine/bin/perimeter-scan.mjs',
    '--help',
  ],
  'the same CLI from TypeScript through tsx': [
    process.execPath,
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    "const { main } = await import('./packages/engine/src/cli/perimeter-scan.ts'); process.exitCode = await main(['--help']);",
  ],
  "node -e '' (Node's own start-up)": [process.execPath, '-e', ''],
};

function measure(command) {
  const run = spawnSync(TIME, ['-v', ...command], { cwd: root, encoding: 'utf8' });
  if (run.error) throw new Error(`${TIME} is needed (Debian: apt-get install time): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`${command.join(' ')} exited ${run.status}:\n${run.stderr}`);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(run.stderr);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(run.stderr);
  const system = /System time \(seconds\): ([\d.]+)/.exec(run.stderr);
  if (!wall || !rss || !user || !system) throw new Error(`unexpected ${TIME} output:\n${run.stderr}`);
  const seconds = Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]);
  return { seconds, cpuSeconds: Number(user[1]) + Number(system[1]), rssMiB: Number(rss[1]) / 1024 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const loadBefore = os.loadavg();
const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let round = 0; round < rounds; round++)
  for (const [name, command] of Object.entries(variants)) samples[name].push(measure(command));
const loadAfter = os.loadavg();

const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ');
const results = Object.entries(samples).map(([name, runs]) => ({
  name,
  medianSeconds: median(runs.map((r) => r.seconds)),
  medianCpuSeconds: median(runs.map((r) => r.cpuSeconds)),
  medianRssMiB: median(runs.map((r) => r.rssMiB)),
  runs,
}));
const [built, , floor] = results;
const lines = [
  `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${rounds} interleaved rounds, /usr/bin/time -v`,
  `load average before: ${fmtLoad(loadBefore)}; after: ${fmtLoad(loadAfter)}`,
  '',
  ...results.map(
    (r) =>
      `- ${r.name}: median ${r.medianSeconds.toFixed(2)} s wall, ${r.medianCpuSeconds.toFixed(2)} s CPU (user+sys),` +
      ` ${r.medianRssMiB.toFixed(1)} MiB max RSS` +
      ` (wall ${Math.min(...r.runs.map((x) => x.seconds)).toFixed(2)}–${Math.max(...r.runs.map((x) => x.seconds)).toFixed(2)} s)`,
  ),
  `- built CLI above Node's own start-up: +${(built.medianSeconds - floor.medianSeconds).toFixed(2)} s wall,` +
    ` +${(built.medianCpuSeconds - floor.medianCpuSeconds).toFixed(2)} s CPU, +${(built.medianRssMiB - floor.medianRssMiB).toFixed(1)} MiB`,
  `- goal --help ≤ 0.15 s and ≤ 70 MiB: ${built.medianSeconds <= 0.15 ? 'met' : 'NOT met'} (time), ${built.medianRssMiB <= 70 ? 'met' : 'NOT met'} (memory)`,
];
process.stdout.write(`${lines.join('\n')}\n`);

const outDir = path.join(root, 'bench-results');
mkdirSync(outDir, { recursive: true });
const at = new Date().toISOString();
writeFileSync(
  path.join(outDir, 'cli-startup.json'),
  `${JSON.stringify({ at, node: process.version, rounds, loadBefore, loadAfter, results }, null, 1)}\n`,
);
if (record) {
  appendFileSync(
    path.join(root, 'docs/benchmarks.md'),
    `\n## CLI start-up, \`perimeter-scan --help\` (issue 19) — ${at}\n\n\`node scripts/cli-startup-bench.mjs --record\`\n\n${lines.join('\n')}\n`,
  );
  process.stdout.write('appended to docs/benchmarks.md\n');
}
