/**
 * The community corpus against one lab web host at the default politeness (150 requests/s),
 * as a scan selects it by default (`default`: nuclei's default exclusions — dos, fuzz, local,
 * bruteforce, txt-service tags and the files of the set's .nuclei-ignore) and with every http
 * template (`all`). Identical requests are clustered as nuclei does. The first round of each
 * run parses the YAML (cold cache), later rounds read the parsed-YAML cache (warm); every round
 * is a fresh process, modes interleaved; medians with the load average. Prints figures,
 * asserts nothing. Run: npx tsx packages/engine/scripts/bench-corpus-selection.ts [rounds] [--all] [--tsx]
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadAverage, median } from '@perimeter/lab/bench';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
const modes = args.includes('--all') ? ['default', 'all'] : ['default'];
const datasetDir = path.resolve(here, '../../../../shared/datasets/nuclei-templates-corpus');
const archive = existsSync(datasetDir)
  ? path.join(datasetDir, readdirSync(datasetDir).find((f) => f.endsWith('.tar.gz')) ?? '')
  : '';
if (!archive || !existsSync(archive)) {
  console.error(`corpus archive not found in ${datasetDir}`);
  process.exit(2);
}

// The child runs compiled, as the product's worker and the built CLI do (esbuild bundle, packages
// external, like scripts/build.mjs); `--tsx` runs it from TypeScript instead (tsx's loader and
// the transformed sources add ~60 MB of RSS).
const fromSource = args.includes('--tsx');
const childSource = path.join(here, 'bench-corpus-selection-child.ts');
const childBuilt = path.join(here, '../dist/bench/bench-corpus-selection-child.mjs');
if (!fromSource) {
  const { build, stop } = await import('esbuild');
  await build({
    entryPoints: [childSource],
    outfile: childBuilt,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    keepNames: true,
    logLevel: 'warning',
  }).finally(() => stop());
}

// The child gets the Node flags the CLI runs with (the heap limit on the first line of
// bin/perimeter-scan.mjs); NODE_OPTIONS still adds others.
const cliFlags = (readFileSync(path.join(here, '../bin/perimeter-scan.mjs'), 'utf8').split('\n')[0] ?? '')
  .split(/\s+/)
  .filter((a) => a.startsWith('--'));

function runChild(args: string[]): Promise<Record<string, number | string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...cliFlags, ...(fromSource ? ['--import', 'tsx', childSource] : [childBuilt]), ...args],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench child exited with ${code}`));
      else resolve(JSON.parse(out) as Record<string, number | string>);
    });
  });
}

const root = mkdtempSync(path.join(os.tmpdir(), 'perimeter-corpus-selection-'));
const cacheDir = path.join(root, 'cache');
const lab = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bench-lab-child.ts')], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
try {
  execFileSync('tar', ['-xzf', archive, '-C', root, './http', './helpers', './.nuclei-ignore']);
  const rl = readline.createInterface({ input: lab.stdout as NodeJS.ReadableStream });
  const [line] = (await once(rl, 'line')) as [string];
  rl.close();
  // The lab child picks a free loopback /24 at run time (bench kit): target its web host there.
  const coords = JSON.parse(line) as { subnet: string; portMap: Record<number, number> };
  const port = coords.portMap[80] ?? 80;
  const url = `http://${coords.subnet}.10:${port}/`;
  console.log(
    `corpus selection bench: ${path.basename(archive)} against ${url}, ${rounds} round(s) of ${modes.join(' + ')}, ${fromSource ? 'from TypeScript (tsx)' : 'compiled (esbuild bundle)'} with the CLI's flags (${cliFlags.join(' ') || 'none'}), Node ${process.version}, ${os.cpus().length} CPUs (shared)`,
  );
  const results: Record<string, number | string>[] = [];
  for (let i = 0; i < rounds; i++) {
    for (const mode of modes) {
      const before = loadAverage();
      const r = await runChild([path.join(root, 'http'), url, mode, cacheDir]);
      results.push({ ...r, round: i });
      const n = (k: string) => Number(r[k]);
      console.log(
        `round ${i + 1} ${mode} (${i === 0 && mode === modes[0] ? 'cold' : 'warm'} cache): wall ${(n('wallMs') / 1000).toFixed(1)} s ` +
          `(load ${(n('loadMs') / 1000).toFixed(1)} s + scan ${(n('scanMs') / 1000).toFixed(1)} s), CPU ${(n('cpuMs') / 1000).toFixed(1)} s, ` +
          `${n('selected')} templates in ${n('clusters')} request groups, ${n('tasks')} tasks, ${n('requests')} requests, ` +
          `${n('findings')} findings, ${n('errors')} errors, peak RSS ${n('maxRssMb').toFixed(0)} MB; load average ${before} → ${loadAverage()}`,
      );
    }
  }
  for (const mode of modes) {
    const warm = results.filter((r) => r.mode === mode && !(r.round === 0 && mode === modes[0]));
    const set = warm.length > 0 ? warm : results.filter((r) => r.mode === mode);
    const m = (k: string) => median(set.map((r) => Number(r[k])));
    console.log(
      `${mode}: median of ${set.length} warm round(s): wall ${(m('wallMs') / 1000).toFixed(1)} s (goal ≤ 120 s; load ${(m('loadMs') / 1000).toFixed(1)} s), ` +
        `${m('requests')} requests, peak RSS ${m('maxRssMb').toFixed(0)} MB (goal ≤ 300 MB); load average now ${loadAverage()}`,
    );
  }
} finally {
  lab.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
