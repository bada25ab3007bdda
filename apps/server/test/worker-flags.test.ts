import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWorkerNodeFlags } from '../scripts/bench-cluster.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const startWorker = () =>
  (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>)[
    'start:worker'
  ] ?? '';

describe('the worker role’s Node flags', () => {
  it('start:worker runs Node with a 4× interrupt budget (V8 optimises only what stays hot)', () => {
    const flags = startWorkerNodeFlags();
    expect(flags).toContain('--interrupt-budget=270336');
    // Flags this Node accepts (an unknown one stops it with 'bad option': the role would not start).
    const execArgv = execFileSync(process.execPath, [...flags, '-p', 'JSON.stringify(process.execArgv)'], {
      encoding: 'utf8',
    });
    expect(JSON.parse(execArgv).slice(0, flags.length)).toEqual(flags);
    expect(startWorker()).toBe(`node ${flags.join(' ')} scripts/run.mjs main-worker`);
  });

  it('the scale-out and soak benches start their workers with start:worker’s flags', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-flags-'));
    try {
      const write = (command: string) =>
        writeFileSync(
          path.join(dir, 'package.json'),
          JSON.stringify({ scripts: { 'start:worker': command } }),
        );
      write('node --a=1 --b scripts/run.mjs main-worker --not-a-node-flag');
      expect(startWorkerNodeFlags(dir)).toEqual(['--a=1', '--b']);
      write('node scripts/run.mjs main-worker');
      expect(startWorkerNodeFlags(dir)).toEqual([]);
      write('tsx src/main-worker.ts');
      expect(startWorkerNodeFlags(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
