/**
 * The whole applicable community corpus against one lab web host, at the default politeness
 * (150 requests/s, 4 per host, 25 tasks in flight): wall time, requests sent, peak RSS of the
 * scanning process (goal ≤ 120 s and ≤ 300 MB). Each round is a fresh process; the median is
 * what counts, with the load average before and after each round. Prints figures, asserts
 * nothing. Run: npx tsx packages/engine/scripts/bench-corpus.ts [rounds] [--corpus FILE.tar.gz]
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
const corpusArg = args.indexOf('--corpus');
const datasetDir = path.resolve(here, '../../../../shared/datasets/nuclei-templates-corpus');
const archive =
  corpusArg >= 0
    ? (args[corpusArg + 1] as string)
    : existsSync(datasetDir)
      ? path.join(datasetDir, readdirSync(datasetDir).find((f) => f.endsWith('.tar.gz')) ?? '')
      : '';
if (!archive || !existsSync(archive)) {
  console.error(`corpus archive not found (${archive || datasetDir}); pass --corpus FILE.tar.gz`);
  process.exit(2);
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

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
const lab = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bench-lab-child.ts'), '127.0.207'], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
try {
  execFileSync('tar', ['-xzf', archive, '-C', root, './http', './helpers']);
  const rl = readline.createInterface({ input: lab.stdout as NodeJS.ReadableStream });
  const [line] = (await once(rl, 'line')) as [string];
  rl.close();
  const port = (JSON.parse(line) as { portMap: Record<number, number> }).portMap[80] ?? 80;
  // www.acme.test: the lab's main web site.
  const url = `http://127.0.207.10:${port}/`;
  console.log(
    `corpus bench: ${path.basename(archive)} http/ against ${url}, ${rounds} round(s), Node ${process.version}`,
  );
  const results: Record<string, unknown>[] = [];
  for (let i = 0; i < rounds; i++) {
    const before = load();
    const r = await runChild(path.join(root, 'http'), url);
    results.push(r);
    const n = (k: string) => Number(r[k]);
    console.log(
      `round ${i + 1}: wall ${(n('wallMs') / 1000).toFixed(1)} s (load ${(n('loadMs') / 1000).toFixed(1)} s + scan ${(n('scanMs') / 1000).toFixed(1)} s), ` +
        `${n('applicable')} templates run of ${n('files')} files (${n('skipped')} skipped, ${n('invalid')} invalid), ` +
        `${n('tasks')} tasks, ${n('requests')} requests, ${n('findings')} findings, ${n('errors')} request errors ${JSON.stringify(r.incomplete)}, ` +
        `peak RSS ${n('maxRssMb').toFixed(0)} MB; load average ${before} → ${load()}`,
    );
    for (const [kind, count] of r.errorKinds as [string, number][]) console.log(`  ${count} × ${kind}`);
  }
  const m = (k: string) => median(results.map((r) => Number(r[k])));
  console.log(
    `median of ${rounds}: wall ${(m('wallMs') / 1000).toFixed(1)} s (goal ≤ 120 s), scan ${(m('scanMs') / 1000).toFixed(1)} s, ` +
      `${m('requests')} requests (${(m('requests') / (m('scanMs') / 1000)).toFixed(0)} req/s), peak RSS ${m('maxRssMb').toFixed(0)} MB (goal ≤ 300 MB); load average now ${load()}`,
  );
} finally {
  lab.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
