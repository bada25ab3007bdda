#!/usr/bin/env node
// Runs the built CLI (packages/engine/dist, scripts/build.mjs), building it first when it is missing
// or older than its sources.
import { ensureBuilt } from '../../../scripts/build.mjs';

const dist = await ensureBuilt('engine');
const { main } = await import(`${dist}/perimeter-scan.mjs`);
process.exitCode = await main(process.argv.slice(2));
