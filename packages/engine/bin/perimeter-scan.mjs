#!/usr/bin/env node
// Runs the TypeScript CLI through tsx (installed at the repository root).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/perimeter-scan.ts');
process.exitCode = await main(process.argv.slice(2));
