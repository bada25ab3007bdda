import dgram from 'node:dgram';
import { once } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  interleaved,
  loadAverage,
  MIN_ROUNDS,
  median,
  processCpuSeconds,
  udpReceiveDrops,
} from '@perimeter/lab/bench';
import { resolveNames } from '../src/discovery/subdomain-stage.ts';
import { builtinWordlist } from '../src/discovery/wordlist.ts';
import { DnsResolver } from '../src/dns/dns-resolver.ts';
import { startLabProcess } from './findings-bench.ts';

const args = process.argv.slice(2);
const mode = args.find((a) => !a.startsWith('--')) ?? 'ab';
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const rounds = Number(option('rounds') ?? MIN_ROUNDS);
const base = option('base');
const CONCURRENCY = 200;

interface Figures {
  questions: number;
  /** Names with an address (must be the same on every side). */
  found: number;
  /** This process's CPU per question, µs. */
  clientUs: number;
  /** The lab process's CPU per question, µs (10 ms ticks: coarse). */
  labUs: number;
  ms: number;
  drops: number;
}

type ResolverClass = typeof DnsResolver;

async function measured(
  labPid: number,
  run: () => Promise<{ questions: number; found: number }>,
): Promise<Figures> {
  const drops = udpReceiveDrops() ?? 0;
  const lab = processCpuSeconds(labPid) ?? 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { questions, found } = await run();
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  return {
    questions,
    found,
    clientUs: Math.round(((used.user + used.system) / questions) * 10) / 10,
    labUs: Math.round((((processCpuSeconds(labPid) ?? 0) - lab) * 1e6 * 10) / questions) / 10,
    ms: Math.round(ms),
    drops: (udpReceiveDrops() ?? 0) - drops,
  };
}

/** The brute force's loop (subdomain-stage.ts resolveNames, as bruteForce calls it) over a fresh resolver. */
async function engineRun(Resolver: ResolverClass, server: string, names: string[]) {
  const resolver = new Resolver({ servers: [server] });
  const signal = new AbortController().signal;
  let found = 0;
  await resolveNames(resolver, names, CONCURRENCY, signal, (r) => {
    if (r && (r.addresses.length || r.cnames.length)) found++;
  });
  resolver.close();
  return { questions: names.length, found };
}

/** A query for `name` (type A, class IN, recursion desired), written by hand. */
function rawQuery(id: number, name: string): Buffer {
  const buf = Buffer.allocUnsafe(12 + name.length + 2 + 4);
  buf.writeUInt16BE(id, 0);
  buf.writeUInt16BE(0x0100, 2);
  buf.writeUInt16BE(1, 4);
  buf.fill(0, 6, 12);
  let at = 12;
  for (const label of name.split('.')) {
    buf[at++] = label.length;
    at += buf.write(label, at, 'latin1');
  }
  buf[at++] = 0;
  buf.writeUInt16BE(1, at);
  buf.writeUInt16BE(1, at + 2);
  return buf;
}

/** The same questions at the same concurrency on one connected socket, answers matched by id. */
async function rawRun(host: string, port: number, names: string[]) {
  const socket = dgram.createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
  socket.connect(port, host);
  await once(socket, 'connect');
  const inFlight = new Map<number, number>();
  let next = 0;
  let done = 0;
  let found = 0;
  let id = 0;
  await new Promise<void>((resolve) => {
    const send = () => {
      while (inFlight.size < CONCURRENCY && next < names.length) {
        id = (id % 0xffff) + 1;
        inFlight.set(id, next);
        socket.send(rawQuery(id, names[next++] as string));
      }
      if (done === names.length) resolve();
    };
    socket.on('message', (msg) => {
      const answerId = msg.readUInt16BE(0);
      if (!inFlight.delete(answerId)) return;
      done++;
      if (msg.readUInt16BE(6) > 0) found++; // ANCOUNT
      send();
    });
    send();
  });
  socket.close();
  return { questions: names.length, found };
}

const lab = await startLabProcess();
try {
  const server = `${lab.dns.host}:${lab.dns.port}`;
  const names = lab.domains.flatMap((d) => builtinWordlist().map((l) => `${l}.${d}`));
  console.log(
    `DNS brute force CPU per question: ${names.length} names (${lab.domains.join(', ')}), ${CONCURRENCY} in flight, lab DNS ${server} (pid ${lab.pid}); load ${loadAverage()}`,
  );
  if (mode === 'engine' || mode === 'raw') {
    for (let r = 0; r < rounds; r++)
      console.log(
        JSON.stringify(
          await measured(lab.pid, () =>
            mode === 'raw'
              ? rawRun(lab.dns.host, lab.dns.port, names)
              : engineRun(DnsResolver, server, names),
          ),
        ),
        loadAverage(),
      );
  } else {
    const sides = [
      { name: 'raw', run: () => measured(lab.pid, () => rawRun(lab.dns.host, lab.dns.port, names)) },
      { name: 'engine', run: () => measured(lab.pid, () => engineRun(DnsResolver, server, names)) },
    ];
    if (base) {
      const url = pathToFileURL(path.join(base, 'packages/engine/src/dns/dns-resolver.ts')).href;
      const Base = ((await import(url)) as { DnsResolver: ResolverClass }).DnsResolver;
      sides.push({ name: 'base', run: () => measured(lab.pid, () => engineRun(Base, server, names)) });
    }
    const samples = await interleaved(sides, { rounds, log: (l) => console.log(`  ${l}`) });
    for (const [i, side] of sides.entries()) {
      const s = samples[i] ?? [];
      const loads = s.map((x) => Number(x.load.split(' ')[0]));
      console.log(
        `${side.name.padEnd(6)} client ${median(s.map((x) => x.value.clientUs)).toFixed(1)} µs/question, lab ${median(s.map((x) => x.value.labUs)).toFixed(1)} µs/answer, ${median(s.map((x) => x.value.ms)).toFixed(0)} ms/run, found ${s.map((x) => x.value.found).join('/')}, drops ${s.reduce((t, x) => t + x.value.drops, 0)} (medians of ${s.length}, load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`,
      );
    }
  }
} finally {
  lab.stop();
}
