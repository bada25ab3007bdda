// Builds the web app when its build is missing or older than its sources (`npm start`, `npm run demo`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
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

/** Exits the process with the build's status when the build fails. */
export function buildWebIfStale() {
  const webSources = ['src', 'public', 'index.html'].map((p) => path.join(webDir, p)).filter(existsSync);
  const isStale =
    !existsSync(builtIndex) ||
    webSources.some(
      (p) =>
        (statSync(p).isDirectory() ? newestMtime(p) : statSync(p).mtimeMs) > statSync(builtIndex).mtimeMs,
    );
  if (isStale && existsSync(path.join(webDir, 'index.html')) && !process.env.PERIMETER_SKIP_WEB_BUILD) {
    console.log('Building the web app (once; again only when its sources change)…');
    const build = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
}
