import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ENCRYPTION_KEY } from './support/app.ts';
import { createTestDatabase } from './support/database.ts';
import { REPO_ROOT } from './support/scan-lab.ts';

/**
 * The out-of-band role as an operator runs it (`npm run start:oob` → apps/server/src/main-oob.ts):
 * without PERIMETER_OOB_DOMAIN it refuses to start (exit 78, the configuration error code); with it,
 * it answers DNS for the zone on 127.0.250.3 and stops cleanly on SIGTERM.
 */
const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const c of cleanups) await c();
});

function startOob(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'apps/server/src/main-oob.ts')],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let output = '';
  child.stdout?.on('data', (c) => {
    output += c;
  });
  child.stderr?.on('data', (c) => {
    output += c;
  });
  return { child, output: () => output };
}

describe('npm run start:oob', () => {
  it('refuses to start without PERIMETER_OOB_DOMAIN', async () => {
    const { child, output } = startOob({ PERIMETER_DATA_DIR: os.tmpdir() });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(78);
    expect(output()).toContain('PERIMETER_OOB_DOMAIN');
  }, 60_000);

  it('answers for the zone, then stops on SIGTERM', async () => {
    const db = await createTestDatabase();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-oob-process-'));
    cleanups.push(
      () => db.drop(),
      () => rm(dataDir, { recursive: true, force: true }),
    );
    const { child, output } = startOob({
      DATABASE_URL: db.url,
      PERIMETER_DATA_DIR: dataDir,
      PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      PERIMETER_OOB_DOMAIN: 'oob.process.test',
      PERIMETER_OOB_IP: '127.0.250.3',
      PERIMETER_OOB_HOST: '127.0.250.3',
      PERIMETER_OOB_LISTENERS: 'dns',
      PERIMETER_OOB_DNS_PORT: '0',
    });
    let port = 0;
    for (let i = 0; i < 600 && !port; i++) {
      const m = /dns\/udp 127\.0\.250\.3:(\d+)/.exec(output());
      if (m) port = Number(m[1]);
      else if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}):\n${output()}`);
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(port, output()).toBeGreaterThan(0);
    const socket = dgram.createSocket('udp4');
    const answer = await new Promise<dnsPacket.DecodedPacket>((resolve) => {
      socket.once('message', (m) => resolve(dnsPacket.decode(m)));
      socket.send(
        dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name: 'x.oob.process.test' }] }),
        port,
        '127.0.250.3',
      );
    });
    socket.close();
    expect(answer.answers).toEqual([expect.objectContaining({ type: 'A', data: '127.0.250.3' })]);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 90_000);
});
