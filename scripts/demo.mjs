#!/usr/bin/env node
// `npm run demo`: builds the web app when stale, then starts the lab and the product configured
// for it with a demo account (apps/server/src/demo.ts); prints the URL and the credentials.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildWebIfStale, root } from './web-build.mjs';

buildWebIfStale();

const child = spawn(
  process.execPath,
  ['--import', 'tsx', path.join(root, 'apps/server/src/demo.ts'), ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env: process.env },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
