import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dpkgVersion, type RealDaemon } from './daemon-kit.ts';
import { REAL_DAEMONS } from './daemons.ts';

export const REAL_LAB_SUBNET = '127.0.230';

/** One line of the expected file: what a scanner must name on that port, no more, no less. */
export interface ExpectedRealService {
  ip: string;
  port: number;
  service: string;
  product: string;
  /** Only when the service shows it; otherwise absent (and a scanner must not invent one). */
  version?: string;
  tls: boolean;
  daemon: string;
  package: string;
  packageVersion: string;
  /** The daemon's full version from its own output (may say more than the wire). */
  daemonVersion: string;
}

export interface RealLabOptions {
  /** Three octets of a loopback /24 (default 127.0.230). */
  subnet?: string;
  /** Start only these daemons (ids of REAL_DAEMONS). */
  only?: string[];
}

export interface RealLab {
  subnet: string;
  /** The temporary folder holding every configuration, log and data file. */
  dir: string;
  expected: ExpectedRealService[];
  /** Path of expected.json inside `dir`. */
  expectedFile: string;
  /**
   * Per daemon: its preparation plus the time from its spawn until all its ports accepted a
   * connection (ms; the preparations of the others run meanwhile). `totalStartMs`: the whole start.
   */
  startMs: Record<string, number>;
  totalStartMs: number;
  address(octet: number): string;
  stop(): Promise<void>;
}

/** Packages of the real-software lab that are not installed. */
export function missingRealPackages(only?: string[]): string[] {
  return daemons(only)
    .filter((d) => !dpkgVersion(d.package))
    .map((d) => d.package);
}

function daemons(only?: string[]): RealDaemon[] {
  return only ? REAL_DAEMONS.filter((d) => only.includes(d.id)) : REAL_DAEMONS;
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    s.setTimeout(1000, () => done(false));
  });
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}

function makeCertificates(dir: string) {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const weakCert = path.join(dir, 'weak-cert.pem');
  const weakKey = path.join(dir, 'weak-key.pem');
  const req = (bits: number, digest: string, c: string, k: string) =>
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        `rsa:${bits}`,
        `-${digest}`,
        '-nodes',
        '-days',
        '30',
        '-subj',
        '/CN=lab.test',
        '-keyout',
        k,
        '-out',
        c,
      ],
      { stdio: 'ignore' },
    );
  req(2048, 'sha256', cert, key);
  // For the TLS findings: a 1024-bit key, signed with SHA-1.
  req(1024, 'sha1', weakCert, weakKey);
  for (const f of [cert, key, weakCert, weakKey]) chmodSync(f, 0o644);
  return { cert, key, weakCert, weakKey };
}

/**
 * Starts the real daemons (all, or `only`), each on its own address of the subnet, waits until
 * every port of each accepts a connection, and writes the expected file from `dpkg-query` and
 * each daemon's own version output. Throws (after stopping what started) when a package is
 * missing or a daemon does not come up.
 */
export async function startRealLab(options: RealLabOptions = {}): Promise<RealLab> {
  const labStarted = Date.now();
  const subnet = options.subnet ?? REAL_LAB_SUBNET;
  const list = daemons(options.only);
  const missing = missingRealPackages(options.only);
  if (missing.length) throw new Error(`real-software lab: packages not installed: ${missing.join(' ')}`);
  const address = (octet: number) => `${subnet}.${octet}`;
  const byId = new Map(REAL_DAEMONS.map((d) => [d.id, d]));
  const expected: ExpectedRealService[] = list.flatMap((d) => {
    const packageVersion = dpkgVersion(d.package) as string;
    const daemonVersion = d.version();
    return d.ports.map((p) => {
      const e: ExpectedRealService = {
        ip: address(d.octet),
        port: p.port,
        service: p.service,
        product: p.product,
        tls: p.tls ?? false,
        daemon: d.id,
        package: d.package,
        packageVersion,
        daemonVersion,
      };
      if (p.exposes) e.version = p.exposes(daemonVersion);
      return e;
    });
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-real-lab-'));
  chmodSync(dir, 0o755);
  const cert = makeCertificates(dir);
  const children: { id: string; child: ChildProcess }[] = [];
  const aliases: string[] = [];
  const startMs: Record<string, number> = {};

  // Should the process end without stop() (a killed test worker), no daemon or alias outlives it.
  const onExit = () => {
    for (const { child } of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const a of aliases) spawnSync('ip', ['addr', 'del', `${a}/32`, 'dev', 'lo'], { stdio: 'ignore' });
  };
  process.once('exit', onExit);

  const stop = async () => {
    process.off('exit', onExit);
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    for (const a of aliases) execFileSync('ip', ['addr', 'del', `${a}/32`, 'dev', 'lo'], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };

  // Preparing (configurations, database initialisation) blocks: all of it first, then the
  // daemons start together and each is waited for from its own spawn.
  const spawnOne = (d: RealDaemon) => {
    const own = path.join(dir, d.id);
    mkdirSync(own, { recursive: true });
    chmodSync(own, 0o777);
    const started = Date.now();
    if (d.needsAlias) {
      const a = address(d.octet);
      const has = execFileSync('ip', ['-4', 'addr', 'show', 'dev', 'lo'], { encoding: 'utf8' }).includes(
        ` ${a}/`,
      );
      if (!has) {
        execFileSync('ip', ['addr', 'add', `${a}/32`, 'dev', 'lo']);
        aliases.push(a);
      }
    }
    const launch = d.prepare({
      dir: own,
      address: address(d.octet),
      addressOf: (id) => address(byId.get(id)?.octet ?? 0),
      cert,
    });
    const log = path.join(own, 'stdout.log');
    const fd = openSync(log, 'a');
    const [command, args] = launch.user
      ? ['runuser', ['-u', launch.user, '--', launch.command, ...launch.args]]
      : [launch.command, launch.args];
    const child = spawn(command as string, args as string[], {
      env: { ...process.env, ...launch.env },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    children.push({ id: d.id, child });
    return { d, child, log, prepareMs: Date.now() - started, spawnedAt: Date.now() };
  };

  const waitOne = async ({ d, child, log, prepareMs, spawnedAt }: ReturnType<typeof spawnOne>) => {
    const started = Date.now();
    const deadline = started + (d.startTimeoutMs ?? 60_000);
    for (const p of d.ports) {
      while (!(await canConnect(address(d.octet), p.port))) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${d.id} exited (${child.exitCode ?? child.signalCode}):\n${tail(log)}`);
        if (Date.now() > deadline)
          throw new Error(`${d.id} did not listen on ${p.port} in time:\n${tail(log)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    for (const warmPath of d.warmUp?.paths ?? []) {
      const url = `http://${address(d.octet)}:${d.warmUp?.port}${warmPath}`;
      const left = Math.max(1000, deadline - Date.now());
      try {
        await (await fetch(url, { signal: AbortSignal.timeout(left) })).arrayBuffer();
      } catch (e) {
        throw new Error(`${d.id} did not answer ${url} in time (${(e as Error).message}):\n${tail(log)}`);
      }
    }
    startMs[d.id] = prepareMs + Date.now() - spawnedAt;
  };

  try {
    const spawned = list.map(spawnOne);
    await Promise.all(spawned.map(waitOne));
  } catch (e) {
    await stop();
    throw e;
  }

  const expectedFile = path.join(dir, 'expected.json');
  writeFileSync(expectedFile, `${JSON.stringify(expected, null, 2)}\n`);
  return {
    subnet,
    dir,
    expected,
    expectedFile,
    startMs,
    totalStartMs: Date.now() - labStarted,
    address,
    stop,
  };
}
