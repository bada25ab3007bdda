#!/usr/bin/env node
// Type-checks every workspace with its own tsconfig.
import { spawnSync } from 'node:child_process';

const workspaces = ['packages/contracts', 'packages/engine', 'packages/lab', 'apps/server', 'apps/web'];
let failed = false;
for (const ws of workspaces) {
  const result = spawnSync('npx', ['tsc', '--noEmit', '-p', ws], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
