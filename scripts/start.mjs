#!/usr/bin/env node
// `npm start`: builds the web app when its build is missing or older than its sources, then runs
// the whole product (API + workers + scheduler) in one process on the embedded PostgreSQL.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webDir = path.join(root, 'apps/web');
const builtIndex = path.join(webDir, 'dist/index.html');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const webSources = ['src', 'public', 'index.html'].map((p) => path.join(webDir, p)).filter(existsSync);
const isStale =
  !existsSync(builtIndex) ||
  webSources.some(
    (p) => (statSync(p).isDirectory() ? newestMtime(p) : statSync(p).mtimeMs) > statSync(builtIndex).mtimeMs,
  );
if (isStale && existsSync(path.join(webDir, 'index.html')) && !process.env.PERIMETER_SKIP_WEB_BUILD) {
  console.log('Building the web app (once; again only when its sources change)…');
  const build = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Its own process group: Ctrl-C in the terminal signals the whole foreground group, which would stop
// the embedded PostgreSQL under the running product. Only this script forwards the signal, so the
// product stops its API and workers first and then its database.
const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
  detached: true,
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
process.on('exit', () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
