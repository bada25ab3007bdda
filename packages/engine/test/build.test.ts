// The production build (scripts/build.mjs): it builds, the built CLI runs a scan, the files the
// bundled code reads next to its sources (templates, fingerprints, wordlist, migrations, workers,
// the lab's data) are found from the build, and `--help` loads none of the scan code.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanEvent } from '../src/pipeline/events.ts';
import { REPO_ROOT, startTestLab } from './helpers.ts';

const run = promisify(execFile);
const BIN = path.join(REPO_ROOT, 'packages/engine/bin/perimeter-scan.mjs');
const OUTDIRS = ['packages/engine/dist', 'apps/server/dist'].map((d) => path.join(REPO_ROOT, d));

let lab: Lab;
beforeAll(async () => {
  lab = await startTestLab(35);
  // Built now, whatever an earlier run left (a concurrent build by another test is safe).
  await run(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT });
}, 120_000);
afterAll(async () => {
  await lab?.stop();
});

/** The `.mjs` files an output loads statically, itself included. */
function staticClosure(outdir: string, file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(path.join(outdir, file), 'utf8');
  for (const m of code.matchAll(
    /^(?:import|export)\s[^;]*?from\s*"\.\/([\w.-]+\.mjs)"|^import\s*"\.\/([\w.-]+\.mjs)"/gm,
  ))
    staticClosure(outdir, (m[1] ?? m[2]) as string, seen);
  return seen;
}

describe('the build', () => {
  it('rewrites every source location so the files read beside the sources are found', () => {
    let checked = 0;
    for (const outdir of OUTDIRS) {
      const manifest = JSON.parse(readFileSync(path.join(outdir, 'build.json'), 'utf8'));
      for (const entry of manifest.entries) expect(existsSync(path.join(REPO_ROOT, entry))).toBe(true);
      const base = new URL(`file://${outdir}/`);
      for (const file of codeFiles(outdir)) {
        const code = readFileSync(path.join(outdir, file), 'utf8');
        // `new URL("<asset>", new URL("<source>", import.meta.url).href)`: workers, fingerprints, wordlist, lab data.
        for (const [, asset, source] of code.matchAll(
          /new URL\("([^"]+)", new URL\("([^"]+)", import\.meta\.url\)\.href\)/g,
        )) {
          const target = fileURLToPath(new URL(asset as string, new URL(source as string, base)));
          expect(existsSync(target), `${file}: ${asset} from ${source}`).toBe(true);
          checked++;
        }
        // `fileURLToPath(new URL("<source>", import.meta.url))` and friends: the source itself exists.
        for (const [, source] of code.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) {
          expect(existsSync(fileURLToPath(new URL(source as string, base))), `${file}: ${source}`).toBe(true);
          checked++;
        }
      }
    }
    // The engine's raw-scan worker and fingerprints, the PDF worker, the lab's feed and certificates, …
    expect(checked).toBeGreaterThan(8);
    expect(
      readFileSync(path.join(OUTDIRS[0] as string, 'perimeter-scan.mjs'), 'utf8') +
        codeFiles(OUTDIRS[1] as string)
          .map((f) => readFileSync(path.join(OUTDIRS[1] as string, f), 'utf8'))
          .join(''),
    ).not.toMatch(/from "tsx|import\("tsx/);
  });

  it('--help loads none of the scan code; a resources-only scan none of the template, CVE or leak code', async () => {
    const outdir = OUTDIRS[0] as string;
    const sourcesOf = (file: string) =>
      JSON.parse(readFileSync(path.join(outdir, `${file}.map`), 'utf8')).sources as string[];
    const loadedSources = (file: string) => [...staticClosure(outdir, file)].flatMap(sourcesOf);
    const help = loadedSources('perimeter-scan.mjs');
    expect(help.some((s) => s.endsWith('cli/perimeter-scan.ts'))).toBe(true);
    expect(help.filter((s) => /\/(pipeline|templates|vulndb|leaks|findings|ports)\//.test(s))).toEqual([]);
    // The pipeline's chunk (what `--resources-only` imports) leaves the finding families to theirs.
    const pipeline = codeFiles(outdir).find((f) => sourcesOf(f).some((s) => s.endsWith('pipeline/scan.ts')));
    const resources = loadedSources(pipeline as string);
    expect(resources.some((s) => s.includes('/ports/'))).toBe(true);
    expect(resources.filter((s) => /\/(templates|vulndb|leaks|findings)\//.test(s))).toEqual([]);
    const { stdout, stderr } = await run(process.execPath, [BIN, '--help'], { cwd: REPO_ROOT });
    expect(stdout).toContain('usage: perimeter-scan <target...>');
    // Fresh: nothing is rebuilt.
    expect(stderr).toBe('');
  }, 60_000);

  it('npm run cli, start:api, start:worker and every other start:* script run a built server entry', async () => {
    const scripts = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const roles = Object.entries(scripts).filter(([name]) => name === 'cli' || name.startsWith('start:'));
    expect(roles.map(([name]) => name)).toEqual(expect.arrayContaining(['cli', 'start:api', 'start:worker']));
    for (const [name, command] of roles) {
      const entry = /^node (?:--[\w-]+=\S+ )*scripts\/run\.mjs ([\w-]+)$/.exec(command)?.[1];
      expect(entry, `${name}: ${command}`).toBeDefined();
      expect(existsSync(path.join(REPO_ROOT, `apps/server/dist/${entry}.mjs`)), `${name}: ${command}`).toBe(
        true,
      );
    }
    const cli = await run(process.execPath, ['scripts/run.mjs', 'cli', 'help'], { cwd: REPO_ROOT }).catch(
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    expect(`${cli.stdout}${cli.stderr}`).toContain('Usage: npm run cli -- <command>');
    await expect(
      run(process.execPath, ['scripts/run.mjs', 'main-nothing'], { cwd: REPO_ROOT }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/known: .*main-api, .*main-worker/),
    });
  }, 60_000);

  it('the API role runs with a 64 MB semi-space, and the events bench runs its server with the same', () => {
    const scriptsOf = (file: string) =>
      JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')).scripts as Record<string, string>;
    const semiSpace = (command = '') => /--max-semi-space-size=\d+/.exec(command)?.[0];
    const root = scriptsOf('package.json');
    expect(semiSpace(root['start:api'])).toBe('--max-semi-space-size=64');
    // The bench measures the API as users run it (apps/server/scripts/events-bench.ts).
    expect(semiSpace(scriptsOf('apps/server/package.json').bench)).toBe(semiSpace(root['start:api']));
    // The workers keep V8's default (their memory is a goal of its own): the worker role and `npm start`.
    expect(semiSpace(root['start:worker'])).toBeUndefined();
    expect(readFileSync(path.join(REPO_ROOT, 'scripts/start.mjs'), 'utf8')).not.toContain('semi-space');
  });

  it('the built CLI scans a lab host: ports, fingerprints, the built-in templates, a CVE feed', async () => {
    const port = lab.portMap[80] ?? 80;
    const { stdout, stderr } = await run(
      process.execPath,
      [
        BIN,
        lab.address(10),
        '--ports',
        String(port),
        '--allow-private',
        '--allow',
        '127.0.35.0/24',
        '--cve-feed',
        path.join(REPO_ROOT, 'packages/lab/feeds/lab-cves.nvd2.json'),
        '--json',
      ],
      { cwd: REPO_ROOT, timeout: 60_000 },
    );
    expect(stderr).not.toContain('Building');
    const events = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ScanEvent);
    const summary = events.at(-1);
    expect(summary?.type).toBe('summary');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'asset', asset: expect.objectContaining({ kind: 'technology' }) }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'finding',
        finding: expect.objectContaining({
          subclass: 'exploit_scanner',
          templateId: 'missing-security-headers',
        }),
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'finding',
        finding: expect.objectContaining({ subclass: 'exploit_db' }),
      }),
    );
  }, 90_000);
});

/** The built code of one output folder (source maps and the manifest hold no run-time lookups). */
function codeFiles(outdir: string): string[] {
  return readdirSync(outdir).filter((f) => f.endsWith('.mjs'));
}
