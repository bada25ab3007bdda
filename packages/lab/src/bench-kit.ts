/**
 * What every bench script shares (`@perimeter/lab/bench`), so that their figures are honest the
 * same way: interleaved A/B rounds and their medians (at least MIN_ROUNDS), the load average with
 * each figure, CPU seconds of a process or of the whole machine (with what the hypervisor stole), a loopback /24 and a DNS port that nothing holds, chosen at run time, datasets that
 * must exist, and results written under bench-results/ (copied into docs/benchmarks.md only with
 * `--record`).
 */
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FALLBACK_PORTS, LAB_HOSTS } from './lab-definition.ts';
import { type Lab, type StartLabOptions, startLab } from './start-lab.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const DATASETS = path.resolve(REPO_ROOT, '../shared/datasets');
/** Fewer rounds than this still print, but are not recordable figures. */
export const MIN_ROUNDS = 5;

/** The 1, 5 and 15-minute load averages, e.g. "1.20 0.90 0.75". */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * A process's /proc stat fields after its command name (which is in parentheses and may hold
 * spaces): the parent's pid is [1], utime and stime [11] and [12]; undefined when it is gone.
 */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const cpuOf = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined when the
 * process is gone or /proc is not there.
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  const fields = pid === undefined ? undefined : statFields(pid);
  return fields && cpuOf(fields);
}

/**
 * CPU seconds (user + system) a process and its living children have used so far (a PostgreSQL
 * server: its postmaster and backends), from /proc; undefined without /proc or the process.
 */
export function processTreeCpuSeconds(pid: number | undefined): number | undefined {
  let total = processCpuSeconds(pid);
  if (total === undefined) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[1]) === pid) total += cpuOf(fields);
  }
  return total;
}

/**
 * CPU seconds of the whole machine (every core, every process) from /proc/stat: `busy` (user,
 * nice, system, interrupts) and `stolen` (time the hypervisor gave this machine's cores to others:
 * wanted, not used).
 */
export function machineCpuSeconds(): { busy: number; stolen: number } | undefined {
  try {
    const cpu =
      readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    // user nice system idle iowait irq softirq steal
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
    return { busy: (user + nice + system + irq + softirq) / CLOCK_TICKS, stolen: steal / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

/**
 * UDP datagrams the machine's sockets dropped so far because their receive buffer was full
 * (`RcvbufErrors` in /proc/net/snmp, every socket of the machine); undefined without /proc.
 */
export function udpReceiveDrops(): number | undefined {
  try {
    const [head, values] = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Udp:'))
      .map((l) => l.trim().split(/\s+/));
    const at = head?.indexOf('RcvbufErrors') ?? -1;
    return at > 0 ? Number(values?.[at]) : undefined;
  } catch {
    return undefined;
  }
}

export function median(xs: readonly number[]): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Nearest-rank percentile (p in 0–100) of a sample. */
export function percentile(xs: readonly number[], p: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))] as number;
}

/**
 * Where a closed-loop run's tail comes from: for each case, how many of its requests took longer
 * than the p99 of their own round (`rounds[r][c]`: round r's latencies of case c), so that a slow
 * round does not count every case of it as tail.
 */
export function overRoundP99(rounds: readonly (readonly (readonly number[])[])[]): number[] {
  const over = (rounds[0] ?? []).map(() => 0);
  for (const byCase of rounds) {
    const p99 = percentile(byCase.flat(), 99);
    byCase.forEach((times, c) => {
      over[c] = (over[c] ?? 0) + times.filter((ms) => ms > p99).length;
    });
  }
  return over;
}

/**
 * A closed-loop round's latencies split in two (`byClient[k]`: client k's requests in the order
 * sent): each client's first request, which opened its connection and waited for the server to
 * accept it, and every later one, sent over a connection already open. Node accepts one connection
 * per turn of its event loop (libuv since 1.45), so when a round starts 200 connections at a
 * saturated server the first requests wait for up to 200 turns: a tail of their own, apart from
 * the steady state's.
 */
export function openingAndSteady(byClient: readonly (readonly number[])[]): {
  opening: number[];
  steady: number[];
} {
  return {
    opening: byClient.flatMap((times) => times.slice(0, 1)),
    steady: byClient.flatMap((times) => times.slice(1)),
  };
}

/**
 * The order in which the sides run, round by round: forwards on even rounds, backwards on odd
 * ones (A B C, C B A, A B C, …), so that no side always runs first or right after another.
 */
export function interleaveOrder(sides: number, rounds: number): number[][] {
  const forward = Array.from({ length: sides }, (_v, i) => i);
  return Array.from({ length: rounds }, (_v, r) => (r % 2 ? [...forward].reverse() : forward));
}

export interface Side<T> {
  name: string;
  /** One run of this side; every side must do the same work (same requests, server, concurrency). */
  run: (round: number) => Promise<T>;
}

export interface Sample<T> {
  round: number;
  value: T;
  /** Load average just before this run. */
  load: string;
}

/**
 * Runs each side once as a warm-up (discarded, unless `warmup: false`), then `rounds` interleaved
 * rounds; returns every sample of every side, in the sides' order.
 */
export async function interleaved<T>(
  sides: Side<T>[],
  options: { rounds: number; warmup?: boolean; log?: (line: string) => void },
): Promise<Sample<T>[][]> {
  if (options.warmup !== false) for (const side of sides) await side.run(-1);
  const samples: Sample<T>[][] = sides.map(() => []);
  const order = interleaveOrder(sides.length, options.rounds);
  for (const [round, sequence] of order.entries())
    for (const i of sequence) {
      const side = sides[i] as Side<T>;
      const load = loadAverage();
      const value = await side.run(round);
      samples[i]?.push({ round, value, load });
      options.log?.(
        `round ${round + 1}/${options.rounds} ${side.name}: ${JSON.stringify(value)} (load ${load})`,
      );
    }
  return samples;
}

/** The median of one numeric field over a side's samples, with the range of load averages seen. */
export function summarize<T>(samples: Sample<T>[], pick: (v: T) => number): { median: number; load: string } {
  const firsts = samples.map((s) => Number(s.load.split(' ')[0]));
  return {
    median: median(samples.map((s) => pick(s.value))),
    load: `${Math.min(...firsts).toFixed(1)}–${Math.max(...firsts).toFixed(1)}`,
  };
}

/** A dataset folder or file the bench needs: its absence is a failure, never a silent substitute. */
export function requireDataset(...parts: string[]): string {
  const p = path.isAbsolute(parts[0] ?? '') ? path.join(...parts) : path.join(DATASETS, ...parts);
  if (!existsSync(p))
    throw new Error(`bench dataset missing: ${p} — this bench measures it and nothing else`);
  return p;
}

function tcpAnswers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => done(true)); // not refused at once: treat as held
    socket.once('connect', () => done(true));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code !== 'ECONNREFUSED'));
  });
}

/** Where the lab listens: (last octet, port) for its usual ports and their fallbacks. */
export function labEndpoints(): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const host of LAB_HOSTS)
    for (const s of host.services) {
      out.push([host.octet, s.port]);
      const fallback = FALLBACK_PORTS[s.port];
      if (fallback) out.push([host.octet, fallback]);
    }
  return out;
}

/** True when nothing accepts a TCP connection on any of the lab's addresses and ports of `subnet`. */
export async function subnetIsFree(subnet: string, timeoutMs = 300): Promise<boolean> {
  const answers = await Promise.all(
    labEndpoints().map(([octet, port]) => tcpAnswers(`${subnet}.${octet}`, port, timeoutMs)),
  );
  return !answers.includes(true);
}

/**
 * Third octets the benches may take (BENCH_SUBNETS="2,3,254" overrides), in random order so that
 * two benches started together rarely probe the same one first.
 */
export function candidateOctets(env: NodeJS.ProcessEnv = process.env): number[] {
  const listed = env.BENCH_SUBNETS?.split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n >= 2 && n <= 254);
  const octets = listed?.length ? listed : [2, 3, 4, 5, 6, 7, 8];
  return octets
    .map((o) => [Math.random(), o] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, o]) => o);
}

/** A loopback /24 ("127.0.N") on which nothing listens on the lab's ports right now. */
export async function freeLoopbackSubnet(octets = candidateOctets()): Promise<string> {
  for (const octet of octets) {
    const subnet = `127.0.${octet}`;
    if (await subnetIsFree(subnet)) return subnet;
  }
  throw new Error(`no free loopback /24 among 127.0.{${octets.join(',')}} (set BENCH_SUBNETS)`);
}

function bindsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const udp = dgram.createSocket('udp4');
    udp.once('error', () => {
      udp.close();
      resolve(false);
    });
    udp.bind(port, host, () => {
      const tcp = net.createServer();
      tcp.once('error', () => udp.close(() => resolve(false)));
      tcp.listen(port, host, () => tcp.close(() => udp.close(() => resolve(true))));
    });
  });
}

/** A port free for both UDP and TCP on `host` (the lab's DNS server serves both). */
export async function freeDnsPort(host: string): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    if (await bindsFree(host, port)) return port;
  }
  throw new Error(`no free DNS port on ${host}`);
}

/**
 * The lab on a free loopback /24 with its DNS server on `<subnet>.1` and a free port; another
 * subnet is tried when something takes the chosen one between the probe and the start.
 */
export async function startFreeLab(
  options: Omit<StartLabOptions, 'subnet' | 'dnsHost' | 'dnsPort'> = {},
): Promise<Lab> {
  const tried: number[] = [];
  for (const octet of candidateOctets()) {
    const subnet = `127.0.${octet}`;
    tried.push(octet);
    if (!(await subnetIsFree(subnet))) continue;
    const dnsHost = `${subnet}.1`;
    try {
      return await startLab({ ...options, subnet, dnsHost, dnsPort: await freeDnsPort(dnsHost) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new Error(`no free loopback /24 for the lab among 127.0.{${tried.join(',')}} (set BENCH_SUBNETS)`);
}

/**
 * The printed figures of one bench: each line goes to stdout and to the report; `finish()` writes
 * bench-results/<name>-<time>.{json,txt} and, with `--record` on the command line, appends the
 * text to docs/benchmarks.md.
 */
export class BenchReport {
  readonly lines: string[] = [];
  readonly figures: Record<string, unknown> = {};
  private readonly started = new Date();
  private unrecordable: string[] = [];

  constructor(
    readonly name: string,
    title: string,
  ) {
    this.say(`## ${title} — ${this.started.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    this.say('');
    this.say(
      `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, load average ${loadAverage()} at start.`,
    );
    this.say('');
  }

  say(line: string): void {
    console.log(line);
    this.lines.push(line);
  }

  /** A named figure for the JSON file; the load average at this moment is stored beside it. */
  figure(key: string, value: unknown): void {
    this.figures[key] = { value, load: loadAverage() };
  }

  /** Marks the run as not fit for docs/benchmarks.md (e.g. fewer than MIN_ROUNDS rounds). */
  notRecordable(reason: string): void {
    if (this.unrecordable.includes(reason)) return;
    this.unrecordable.push(reason);
    this.say(`(not a recordable figure: ${reason})`);
  }

  finish(argv: readonly string[] = process.argv): string {
    const dir = path.join(REPO_ROOT, 'bench-results');
    mkdirSync(dir, { recursive: true });
    const stamp = this.started.toISOString().replace(/[:.]/g, '-');
    const base = path.join(dir, `${this.name}-${stamp}`);
    const text = `${this.lines.join('\n')}\n`;
    writeFileSync(`${base}.txt`, text);
    writeFileSync(
      `${base}.json`,
      `${JSON.stringify({ name: this.name, started: this.started, finished: new Date(), loadAtEnd: loadAverage(), unrecordable: this.unrecordable, figures: this.figures, text: this.lines }, null, 2)}\n`,
    );
    console.log(`\nwritten to ${path.relative(REPO_ROOT, base)}.{json,txt}`);
    if (argv.includes('--record')) {
      if (this.unrecordable.length)
        console.log(`not recorded in docs/benchmarks.md: ${this.unrecordable.join('; ')}`);
      else {
        appendFileSync(path.join(REPO_ROOT, 'docs/benchmarks.md'), `\n${text}`);
        console.log('recorded in docs/benchmarks.md');
      }
    } else console.log('(add --record to copy it into docs/benchmarks.md)');
    return text;
  }
}
