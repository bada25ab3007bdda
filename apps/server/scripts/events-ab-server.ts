/**
 * The server side of scripts/events-ab.ts: `node --import tsx events-ab-server.ts <checkout> <findings>`
 * starts that checkout's events bench server (its scripts/events-setup.ts, BENCH_REUSE's user),
 * prints its address, token, scan and PostgreSQL's pid as one JSON line, and stops on 'stop'
 * (IPC); answers 'gc' with its garbage collection's time so far. Only Node's own modules are imported here: everything else is the checkout's.
 */
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

interface EventsServer {
  address: string;
  postgresPid(): Promise<number | undefined>;
  benchUser(log?: (m: string) => void): Promise<{ token: string; scanId: string; seedSeconds: number }>;
  close(): Promise<void>;
}

const [checkout = '', findings = '1000000'] = process.argv.slice(2);
const setup = pathToFileURL(path.join(path.resolve(checkout), 'apps/server/scripts/events-setup.ts')).href;
const { startEventsServer } = (await import(setup)) as {
  startEventsServer: (n: number) => Promise<EventsServer>;
};
const server = await startEventsServer(Number(findings));
const user = await server.benchUser(() => {});
if (user.seedSeconds > 0) throw new Error('seeded a new user: run `npm run bench` with BENCH_REUSE=1 first');
const ready = {
  address: server.address,
  token: user.token,
  scanId: user.scanId,
  pgPid: await server.postgresPid(),
};
process.stdout.write(`${JSON.stringify(ready)}\n`);
// Garbage collection so far (its pauses' total, ms): asked for with 'gc'.
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
process.on('message', async (m) => {
  if (m === 'gc') return void process.send?.({ gcMs });
  if (m !== 'stop') return;
  await server.close();
  process.exit(0);
});
