#!/usr/bin/env node
// `npm run demo`: builds the web app and the server when stale, then starts the lab and the product
// configured for it with a demo account (apps/server/src/demo.ts, compiled); prints the URL and the
// credentials.
import { spawn } from 'node:child_process';
import { builtServerEntry, root } from './build.mjs';
import { buildWebIfStale } from './web-build.mjs';

buildWebIfStale();
const demo = await builtServerEntry('demo');

const child = spawn(process.execPath, [demo, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
