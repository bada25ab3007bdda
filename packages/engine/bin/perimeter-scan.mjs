#!/usr/bin/env -S node --max-old-space-size=256
// The old-space limit is the scanning process's heap sized to its live set (README, "Memory"):
// 256 MB holds the whole community corpus's scan (~95 MB live) with room to spare; without a limit
// V8 lets the heap grow to several times what is live. Another limit: `node --max-old-space-size=N
// bin/perimeter-scan.mjs …` (node running the file itself does not read this line; NODE_OPTIONS
// cannot override it).
// Runs the built CLI (packages/engine/dist, scripts/build.mjs), building it first when it is missing
// or older than its sources.
import { ensureBuilt } from '../../../scripts/build.mjs';

const dist = await ensureBuilt('engine');
const { main } = await import(`${dist}/perimeter-scan.mjs`);
process.exitCode = await main(process.argv.slice(2));
