import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const webRoot = path.resolve(import.meta.dirname, '../..');
export const repoRoot = path.resolve(webRoot, '../..');
export const distDir = path.join(webRoot, 'dist');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the SPA when dist/ is missing or older than the newest source (E2E_REBUILD=1 forces it). */
export function ensureBuilt(): void {
  const index = path.join(distDir, 'index.html');
  const sources = Math.max(
    newestMtime(path.join(webRoot, 'src')),
    newestMtime(path.join(webRoot, 'public')),
    statSync(path.join(webRoot, 'index.html')).mtimeMs,
    statSync(path.join(webRoot, 'vite.config.ts')).mtimeMs,
  );
  const fresh = existsSync(index) && statSync(index).mtimeMs >= sources && process.env.E2E_REBUILD !== '1';
  if (fresh) return;
  const res = spawnSync('npx', ['vite', 'build'], {
    cwd: webRoot,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (res.status !== 0) throw new Error('web build failed');
}

export type TServer = {
  url: string;
  stop: () => Promise<void>;
  logs: () => string;
  /** Runs an operator command (`npm run cli -- …`) against this server's database. */
  cli: (args: string[]) => string;
};

/**
 * Starts the real server (apps/server: API, workers and scheduler in one process) on a temporary
 * embedded database and a free port; `env` adds settings (e.g. the lab's DNS and address range).
 */
export async function startServer(smtpPort: number, env: Record<string, string> = {}): Promise<TServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'perimeter-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const serverEnv = {
    ...process.env,
    NODE_ENV: 'production',
    // No vulnerability-intelligence sync from the Internet in tests (the journeys load the lab's feed).
    INTEL_SYNC: 'false',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    PERIMETER_DATA_DIR: dataDir,
    PERIMETER_WEB_DIST: distDir,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    RATE_LIMIT_GLOBAL_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
    ...env,
  };
  const child: ChildProcess = spawn('npx', ['tsx', 'apps/server/src/main.ts'], {
    cwd: repoRoot,
    env: serverEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Perimeter listening on')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output.slice(-4000)}`)));
  });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`server not ready in 120 s:\n${output.slice(-4000)}`)), 120_000),
  );
  await Promise.race([ready, timeout]);

  async function stop() {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
  function cli(args: string[]): string {
    const res = spawnSync('npx', ['tsx', 'apps/server/src/cli.ts', ...args], {
      cwd: repoRoot,
      env: serverEnv,
      encoding: 'utf8',
    });
    if (res.status !== 0) throw new Error(`cli ${args.join(' ')} failed:\n${res.stdout}\n${res.stderr}`);
    return res.stdout;
  }
  return { url, stop, logs: () => output, cli };
}
