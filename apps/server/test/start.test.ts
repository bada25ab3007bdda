import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fallbackClusterDir, findFreePort } from '../src/db/embedded.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const children: ChildProcess[] = [];
let dataDir: string;

/**
 * Starts the product exactly as `npm start` does, with nothing in the environment but where to
 * listen — and INTEL_SYNC=false: a test never syncs vulnerability intelligence from the Internet.
 */
async function startProduct(port: number, returnOn?: string) {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      PERIMETER_DATA_DIR: dataDir,
      INTEL_SYNC: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a terminal runs it: Ctrl-C signals the whole group.
    detached: true,
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (c) => {
    output += c;
  });
  child.stderr?.on('data', (c) => {
    output += c;
  });
  const started = Date.now();
  for (;;) {
    if (returnOn && output.includes(returnOn)) return { child, seconds: 0, output: () => output };
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/main/ping`);
      if (res.ok) return { child, seconds: (Date.now() - started) / 1000, output: () => output };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`the product exited (${child.exitCode}):\n${output}`);
    if (Date.now() - started > 30_000) throw new Error(`no ping within 30 s:\n${output}`);
    await new Promise((r) => setTimeout(r, returnOn ? 5 : 250));
  }
}

/** SIGTERM to the script, as a service manager sends it; Ctrl-C: SIGINT to the whole process group. */
async function stop(child: ChildProcess, how: 'SIGTERM' | 'ctrl-c' = 'SIGTERM') {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (how === 'ctrl-c' && child.pid) process.kill(-child.pid, 'SIGINT');
  else child.kill('SIGTERM');
  await exited;
}

/** The command line of the product process `scripts/start.mjs` started (Linux's /proc). */
function productCommandLine(start: ChildProcess): string[] {
  const pids = readFileSync(`/proc/${start.pid}/task/${start.pid}/children`, 'utf8').trim().split(/\s+/);
  const lines = pids.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
  // One child only: the build's helper processes (esbuild's service) are gone once it is built.
  expect(lines).toHaveLength(1);
  return lines[0] ?? [];
}

/** pino levels 50 (error) and 60 (fatal). */
const errorLines = (output: string) => output.split('\n').filter((l) => /"level":[56]0\b/.test(l));

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  if (dataDir) {
    await rm(path.dirname(dataDir), { recursive: true, force: true });
    // The temporary folder is 0700, so as root the cluster went to the fallback place.
    await rm(fallbackClusterDir(dataDir), { recursive: true, force: true });
  }
});

describe('npm start', () => {
  it('runs from an empty data directory, answers ping within 30 s, and reuses its data on a second start', async () => {
    dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'perimeter-start-')), 'data');
    const port = await findFreePort();
    const first = await startProduct(port);
    expect(first.seconds).toBeLessThan(30);
    expect(first.output()).toContain(`Perimeter listening on http://127.0.0.1:${port}`);
    expect(existsSync(path.join(dataDir, 'secrets.json'))).toBe(true);
    // It runs the compiled build (scripts/build.mjs), not TypeScript through tsx.
    const commandLine = productCommandLine(first.child);
    expect(commandLine.slice(1)).toEqual([path.join(ROOT, 'apps/server/dist/main.mjs')]);
    expect(commandLine.join(' ')).not.toContain('tsx');
    expect(existsSync(path.join(ROOT, 'apps/server/dist/build.json'))).toBe(true);
    // The build still finds what it reads beside its sources: the migrations (it started) and the web app.
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    // An empty CVE database is said at start-up, with how to fix it.
    expect(first.output()).toContain(
      'The CVE database is empty: scans find no CVE matches until it is loaded',
    );

    const email = `restart-${process.pid}@example.com`;
    const body = {
      first_name: 'Re',
      last_name: 'Start',
      company: 'Co',
      email,
      password1: 'restart passphrase',
      password2: 'restart passphrase',
    };
    const reg = await fetch(`http://127.0.0.1:${port}/api/users/auth/registration/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(reg.status).toBe(201);
    await stop(first.child);
    expect(first.output()).toContain('shutting down');
    expect(errorLines(first.output())).toEqual([]);

    const second = await startProduct(port);
    const login = await fetch(`http://127.0.0.1:${port}/api/users/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'restart passphrase' }),
    });
    expect(login.status).toBe(200);
    await stop(second.child, 'ctrl-c');
    // The API and workers stop before the embedded database: no connection is cut under them.
    expect(second.output()).toContain('shutting down');
    expect(second.output()).not.toContain('terminating connection');
    expect(errorLines(second.output())).toEqual([]);

    // Stopped the moment it says it listens, while its workers are still registering: the start-up
    // finishes, then everything stops in order (the database last).
    const third = await startProduct(port, 'Perimeter listening on');
    await stop(third.child);
    expect(third.output()).toContain('shutting down');
    expect(third.output()).not.toContain('terminating connection');
    expect(errorLines(third.output())).toEqual([]);
  }, 150_000);
});
