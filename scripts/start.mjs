#!/usr/bin/env node
// `npm start`: builds the web app when its build is missing or older than its sources, then runs
// the whole product (API + workers + scheduler) in one process on the embedded PostgreSQL.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildWebIfStale, root } from './web-build.mjs';

buildWebIfStale();

const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
