// Runs the browser journey as its own Vitest project (web-e2e): builds the SPA when stale,
// starts a real SMTP server and the real API server, drives Debian's Chromium.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const webRoot = path.resolve(import.meta.dirname, '..');
const res = spawnSync(
  'npx',
  ['vitest', 'run', '--config', 'e2e/vitest.config.ts', ...process.argv.slice(2)],
  {
    cwd: webRoot,
    stdio: 'inherit',
  },
);
process.exit(res.status ?? 1);
