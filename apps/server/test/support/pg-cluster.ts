import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Debian's PostgreSQL 15 server binaries (`apt-get install postgresql-15`; .ci/run installs it). */
const BIN = '/usr/lib/postgresql/15/bin';

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  start(): void;
  /** `fast`: connections are cut at once, as when the server goes away. */
  stop(): void;
  destroy(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A PostgreSQL cluster of the test's own, on a free loopback port, that the test can stop and
 * start (the fault-injection suite). Undefined (the caller skips with a message) when Debian's
 * PostgreSQL 15 is not installed; with CI=true that is an error.
 */
export async function createPgCluster(): Promise<PgCluster | undefined> {
  if (!existsSync(path.join(BIN, 'pg_ctl'))) {
    const message = `PostgreSQL 15 server binaries not found in ${BIN} (apt-get install postgresql-15)`;
    if (process.env.CI === 'true') throw new Error(message);
    console.warn(`${message}: skipping the fault-injection suite`);
    return undefined;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-faults-pg-'));
  const port = await freePort();
  // initdb refuses to run as root: run the server as Debian's postgres user then.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await chmod(dir, 0o777);
    execFileSync('chown', ['postgres:postgres', dir]);
  }
  const run = (bin: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : path.join(BIN, bin),
      asRoot ? ['-u', 'postgres', '--', path.join(BIN, bin), ...args] : args,
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c max_connections=200 -c fsync=off`;
  const cluster: PgCluster = {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', options, 'start']),
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    async destroy() {
      try {
        cluster.stop();
      } catch {
        // already stopped
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
