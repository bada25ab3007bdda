import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanEvent } from '../src/pipeline/events.ts';
import { REPO_ROOT, startTestLab } from './helpers.ts';

const run = promisify(execFile);
const BIN = path.join(REPO_ROOT, 'packages/engine/bin/perimeter-scan.mjs');

let lab: Lab;
beforeAll(async () => {
  lab = await startTestLab(48);
});
afterAll(async () => {
  await lab?.stop();
});

describe('perimeter-scan CLI', () => {
  it('prints usage', async () => {
    const { stdout } = await run(process.execPath, [BIN, '--help'], { cwd: REPO_ROOT });
    expect(stdout).toContain('usage: perimeter-scan <target...>');
  }, 60_000);

  it('runs, as installed (through its first line), with its heap limited to 256 MB of old space', async () => {
    // A preload script reports the limit V8 was given; NODE_OPTIONS adds it without changing the flags.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-cli-heap-'));
    const preload = path.join(dir, 'heap.cjs');
    writeFileSync(
      preload,
      "process.stderr.write('heap-limit ' + require('node:v8').getHeapStatistics().heap_size_limit / 1048576 + '\\n');",
    );
    try {
      const { stdout, stderr } = await run(BIN, ['--help'], {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE_OPTIONS: `--require ${preload}` },
      });
      expect(stdout).toContain('usage: perimeter-scan');
      // The old space plus the young generation; Node's own default here is several GB.
      const limit = Number(/heap-limit ([\d.]+)/.exec(stderr)?.[1]);
      expect(limit).toBeGreaterThanOrEqual(256);
      expect(limit).toBeLessThan(400);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('rejects unknown options with status 2', async () => {
    await expect(
      run(process.execPath, [BIN, 'acme.test', '--bogus'], { cwd: REPO_ROOT }),
    ).rejects.toMatchObject({ code: 2 });
  }, 60_000);

  it('scans the lab and writes JSON lines, progress on stderr', async () => {
    const port = lab.portMap[80] ?? 80;
    const { stdout, stderr } = await run(
      process.execPath,
      [
        BIN,
        'acme.test',
        '--dns-server',
        `${lab.dns.host}:${lab.dns.port}`,
        '--ports',
        `${port},22`,
        '--allow-private',
        '--allow',
        '127.0.0.0/8',
        '--no-bruteforce',
        '--json',
      ],
      { cwd: REPO_ROOT, timeout: 60_000 },
    );
    const events = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ScanEvent);
    expect(events.at(-1)?.type).toBe('summary');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'asset',
        asset: expect.objectContaining({ kind: 'technology', name: 'Nginx', version: '1.14.0' }),
      }),
    );
    expect(stderr).toContain('[ports]');
    // The finding families run by default: the built-in template pack checks what was found.
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'finding',
        finding: expect.objectContaining({
          subclass: 'exploit_scanner',
          templateId: 'missing-security-headers',
        }),
      }),
    );
  }, 60_000);

  it('prints a table without --json', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        BIN,
        lab.address(16),
        '--ports',
        '22',
        '--allow-private',
        '--allow',
        '127.0.0.0/8',
        '--resources-only',
      ],
      { cwd: REPO_ROOT, timeout: 60_000 },
    );
    expect(stdout).toMatch(/SERVICES \(1\)\n\s+127\.0\.48\.16:22\s+ssh OpenSSH 7\.2p2/);
  }, 60_000);
});
