/**
 * The whole applicable community corpus against one lab web host, at the default politeness
 * (150 requests/s, 4 per host, 25 tasks in flight): wall time, requests sent, peak RSS of the
 * scanning process (goal ≤ 120 s and ≤ 300 MB). Each round is a fresh process; the median of
 * ≥ 5 is what counts, with the load average before and after each round. The lab runs on a free
 * loopback /24 in its own process; a missing corpus fails the bench. Results in bench-results/,
 * `--record` appends them to docs/benchmarks.md.
 * Run: npx tsx packages/engine/scripts/bench-corpus.ts [rounds] [--corpus FILE.tar.gz] [--record]
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BenchReport, loadAverage, MIN_ROUNDS, median, requireDataset } from '@perimeter/lab/bench';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? MIN_ROUNDS);
const corpusArg = args.indexOf('--corpus');
const datasetDir = corpusArg >= 0 ? '' : requireDataset('nuclei-templates-corpus');
const archive = requireDataset(
  corpusArg >= 0
    ? path.resolve(args[corpusArg + 1] as string)
    : path.join(datasetDir, readdirSync(datasetDir).find((f) => f.endsWith('.tar.gz')) ?? 'no .tar.gz'),
);
const load = loadAverage;
const report = new BenchReport('corpus', 'Template engine on the community corpus');
if (rounds < MIN_ROUNDS) report.notRecordable(`${rounds} rounds (at least ${MIN_ROUNDS})`);

function runChild(dir: string, url: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'bench-corpus-child.ts'), dir, url],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench child exited with ${code}`));
      else resolve(JSON.parse(out) as Record<string, unknown>);
    });
  });
}

const root = mkdtempSync(path.join(os.tmpdir(), 'perimeter-corpus-bench-'));
const lab = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bench-lab-child.ts')], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
try {
  execFileSync('tar', ['-xzf', archive, '-C', root, './http', './helpers']);
  const rl = readline.createInterface({ input: lab.stdout as NodeJS.ReadableStream });
  const [line] = (await once(rl, 'line')) as [string];
  rl.close();
  const info = JSON.parse(line) as { subnet: string; portMap: Record<number, number> };
  // www.acme.test: the lab's main web site.
  const url = `http://${info.subnet}.10:${info.portMap[80] ?? 80}/`;
  report.say(
    `corpus bench: ${path.basename(archive)} http/ against ${url}, ${rounds} round(s), Node ${process.version}`,
  );
  const results: Record<string, unknown>[] = [];
  for (let i = 0; i < rounds; i++) {
    const before = load();
    const r = await runChild(path.join(root, 'http'), url);
    results.push(r);
    const n = (k: string) => Number(r[k]);
    report.say(
      `- round ${i + 1}: wall ${(n('wallMs') / 1000).toFixed(1)} s (load ${(n('loadMs') / 1000).toFixed(1)} s + scan ${(n('scanMs') / 1000).toFixed(1)} s), ` +
        `${n('applicable')} templates run of ${n('files')} files (${n('skipped')} skipped, ${n('invalid')} invalid), ` +
        `${n('tasks')} tasks, ${n('requests')} requests, ${n('findings')} findings, ${n('errors')} request errors ${JSON.stringify(r.incomplete)}, ` +
        `peak RSS ${n('maxRssMb').toFixed(0)} MB; load average ${before} → ${load()}`,
    );
    for (const [kind, count] of r.errorKinds as [string, number][]) report.say(`  - ${count} × ${kind}`);
  }
  const m = (k: string) => median(results.map((r) => Number(r[k])));
  report.say(
    `- median of ${rounds}: wall ${(m('wallMs') / 1000).toFixed(1)} s (goal ≤ 120 s), scan ${(m('scanMs') / 1000).toFixed(1)} s, ` +
      `${m('requests')} requests (${(m('requests') / (m('scanMs') / 1000)).toFixed(0)} req/s), peak RSS ${m('maxRssMb').toFixed(0)} MB (goal ≤ 300 MB); load average now ${load()}`,
  );
  report.figure('rounds', results);
  report.finish();
} finally {
  lab.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
