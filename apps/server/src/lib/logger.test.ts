import { spawnSync } from 'node:child_process';
import { type EventEmitter, once } from 'node:events';
import fs, { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, logDestination } from './logger.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-log-'));
afterEach(() => vi.restoreAllMocks());

const linesOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

async function until(check: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

describe('logDestination', () => {
  it('gathers lines into one write and writes them without waiting for more', async () => {
    const file = path.join(dir, 'gathered.log');
    const destination = logDestination(file);
    await once(destination as unknown as EventEmitter, 'ready'); // the file is open, as stdout always is
    const writes = vi.spyOn(fs, 'write');
    const logger = createLogger('info', destination);
    for (let i = 0; i < 3; i++) logger.info({ i }, 'a line');
    // Under 4 kB: nothing is written at once (a write per line wrote the first line at once),
    // and the periodic flush writes all three together.
    await until(() => linesOf(file).length === 3);
    expect(linesOf(file).map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([0, 1, 2]);
    expect(writes).toHaveBeenCalledTimes(1);
  });

  it('writes what it has gathered when the process exits', () => {
    const file = path.join(dir, 'exit.log');
    const logger = path.join(path.dirname(fileURLToPath(import.meta.url)), 'logger.ts');
    // Once the file is open (as stdout always is), 50 lines (~3 kB: under a write's 4 kB), then exit.
    const script = `const { createLogger, logDestination } = await import(${JSON.stringify(logger)});
      const { once } = await import('node:events');
      const destination = logDestination(${JSON.stringify(file)});
      await once(destination, 'ready');
      const log = createLogger('info', destination);
      for (let i = 0; i < 50; i++) log.info({ i }, 'before exit');
      process.exit(0);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(linesOf(file)).toHaveLength(50);
    rmSync(dir, { recursive: true, force: true });
  });
});
