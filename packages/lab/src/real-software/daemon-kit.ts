/**
 * What a daemon of the real-software lab is (its ports, how to prepare and launch it) and the
 * helpers their definitions share: versions from the daemons' own output and from dpkg.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One port of a daemon as the expected file describes it. */
export interface RealPort {
  port: number;
  /** Our service name (`http`, `https`, `ssh`, `ssl/imap`, ...). */
  service: string;
  product: string;
  /** The version as the service shows it on the wire (computed from `RealDaemon.version`). */
  exposes?: (version: string) => string;
  tls?: boolean;
}

/** What a daemon needs to run: a command line, and files prepared beforehand. */
export interface Launch {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Run as this user (through runuser) instead of root. */
  user?: string;
}

export interface PrepareContext {
  /** This daemon's own folder (world-writable: the daemons drop privileges). */
  dir: string;
  address: string;
  /** Address of another daemon of the lab, by id (proxies point at their back end). */
  addressOf: (id: string) => string;
  /** A self-signed certificate and key made for this lab (PEM paths). */
  cert: { cert: string; key: string; weakCert: string; weakKey: string };
}

export interface RealDaemon {
  id: string;
  /** The Debian package whose presence and version the lab checks. */
  package: string;
  /** Last octet of its address in the lab's /24. */
  octet: number;
  /** The daemon's own version, from its own output (`nginx -v`, ...). */
  version: () => string;
  ports: RealPort[];
  prepare: (ctx: PrepareContext) => Launch;
  /** Slow starters (JVM, database initialisation) are waited for longer. */
  startTimeoutMs?: number;
  /**
   * HTTP paths asked once on this port before the lab is handed over: a JVM answers its first
   * requests (the page, the error page) seconds late, a running one does not.
   */
  warmUp?: { port: number; paths: string[] };
  /**
   * The daemon listens only on addresses an interface carries (BIND): its address is added to
   * `lo` for the lab's lifetime (a loopback alias) and removed at stop.
   */
  needsAlias?: boolean;
}

/** What a command prints on stdout and stderr together (versions go to either). */
function output(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000 });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

/** `pattern`'s first group in the command's output, or a clear error. */
export function versionFrom(command: string, args: string[], pattern: RegExp): () => string {
  return () => {
    const out = output(command, args);
    const m = pattern.exec(out);
    if (!m?.[1]) throw new Error(`cannot read the version of ${command} from: ${out.slice(0, 200)}`);
    return m[1];
  };
}

/** The upstream part of a Debian package version (`1:9.2p1-2+deb12u10` → `9.2p1`). */
export function upstreamVersion(debianVersion: string): string {
  return debianVersion
    .replace(/^\d+:/, '')
    .replace(/-[^-]*$/, '')
    .replace(/\+dfsg\d*$/, '');
}

export const majorMinor = (v: string) => v.split('.').slice(0, 2).join('.');
export const same = (v: string) => v;

export const write = (file: string, text: string) => writeFileSync(file, text);

const WWW_INDEX =
  '<!doctype html><html><head><title>Lab page</title></head><body><p>Lab page</p></body></html>\n';

export function www(dir: string): string {
  const root = path.join(dir, 'www');
  mkdirSync(root, { recursive: true });
  write(path.join(root, 'index.html'), WWW_INDEX);
  return root;
}

/** `dpkg-query`'s version of an installed package, or undefined when it is not installed. */
export function dpkgVersion(pkg: string): string | undefined {
  // dpkg-query's own format fields, not a template string.
  const format = ['-f=$', '{Status}\t$', '{Version}'].join('');
  const out = output('dpkg-query', ['-W', format, pkg]);
  const [status, version] = out.split('\t');
  return status?.startsWith('install ok installed') && version ? version : undefined;
}
