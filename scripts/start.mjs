#!/usr/bin/env node
// `npm start`: builds the web app and the server when a build is missing or older than its sources
// (scripts/web-build.mjs, scripts/build.mjs), then runs the whole product (API + workers +
// scheduler), compiled, in one process on the embedded PostgreSQL.
import { spawn } from 'node:child_process';
import { builtServerEntry, root } from './build.mjs';
import { buildWebIfStale } from './web-build.mjs';

buildWebIfStale();
const main = await builtServerEntry('main');

// Its own process group: Ctrl-C in the terminal signals the whole foreground group, which would stop
// the embedded PostgreSQL under the running product. Only this script forwards the signal, so the
// product stops its API and workers first and then its database.
const child = spawn(process.execPath, [main], {
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
