#!/usr/bin/env node
// `node scripts/run.mjs <entry> [args…]`: runs one built server entry in this process
// (`npm run cli|start:api|start:worker`; `main-api` → apps/server/dist/main-api.mjs, from
// apps/server/src/main-api.ts), building the server first when its build is stale (scripts/build.mjs).
import { pathToFileURL } from 'node:url';
import { builtServerEntry } from './build.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/run.mjs <main|main-api|main-worker|cli|…> [args…]\n');
  process.exit(2);
}
const file = await builtServerEntry(entry);
// The entry sees the arguments as if it had been started itself: `node dist/cli.mjs mail outbox`.
process.argv = [process.argv[0], file, ...args];
await import(pathToFileURL(file).href);
