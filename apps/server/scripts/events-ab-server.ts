/**
 * The server side of scripts/events-ab.ts: `node --import tsx events-ab-server.ts <checkout> <findings> [processes]`
 * starts that checkout's events bench server (its scripts/events-setup.ts, BENCH_REUSE's user),
 * prints its address, token, scan and PostgreSQL's pid as one JSON line, and stops on 'stop'
 * (IPC); answers 'gc' with its garbage collection's time so far. Only Node's own modules are imported here: everything else is the checkout's.
 *
 * With `processes` ≥ 1 this process is a cluster primary holding the listening socket and that many
 * worker processes each run the server (node:cluster, round-robin): a measurement of a multi-process
 * API, which the product does not deploy (session 20 measured no gain on 2 cores:
 * docs/benchmarks.md); 'gc' answers the workers' sum.
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

interface EventsServer {
  address: string;
  postgresPid(): Promise<number | undefined>;
  benchUser(log?: (m: string) => void): Promise<{ token: string; scanId: string; seedSeconds: number }>;
  close(): Promise<void>;
}

const [checkout = '', findings = '1000000', processes = '0'] = process.argv.slice(2);

if (cluster.isPrimary && Number(processes) >= 1) {
  // One set of secrets for every worker (each makes a data directory of its own): a token signed by
  // one is accepted by the others, as a deployment's PERIMETER_DATA_DIR or JWT_SECRET makes it.
  process.env.JWT_SECRET ??= randomBytes(48).toString('base64url');
  process.env.PERIMETER_ENCRYPTION_KEY ??= randomBytes(32).toString('base64');
  const workers = Array.from({ length: Number(processes) }, () => cluster.fork());
  const readies = await Promise.all(
    workers.map(
      (w) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          w.once('message', (m) => resolve(m as Record<string, unknown>));
          w.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
        }),
    ),
  );
  process.stdout.write(`${JSON.stringify(readies[0])}\n`);
  const ask = (w: (typeof workers)[number]) =>
    new Promise<number>((resolve) => {
      w.once('message', (m) => resolve((m as { gcMs: number }).gcMs));
      w.send('gc');
    });
  process.on('message', async (m) => {
    if (m === 'gc') {
      const each = await Promise.all(workers.map(ask));
      return void process.send?.({ gcMs: each.reduce((a, b) => a + b, 0) });
    }
    if (m !== 'stop') return;
    for (const w of workers) w.removeAllListeners('exit');
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((resolve) => {
            w.once('exit', resolve);
            w.send('stop');
          }),
      ),
    );
    process.exit(0);
  });
} else {
  const setup = pathToFileURL(path.join(path.resolve(checkout), 'apps/server/scripts/events-setup.ts')).href;
  const { startEventsServer } = (await import(setup)) as {
    startEventsServer: (n: number) => Promise<EventsServer>;
  };
  const server = await startEventsServer(Number(findings));
  const user = await server.benchUser(() => {});
  if (user.seedSeconds > 0)
    throw new Error('seeded a new user: run `npm run bench` with BENCH_REUSE=1 first');
  const ready = {
    address: server.address,
    token: user.token,
    scanId: user.scanId,
    pgPid: await server.postgresPid(),
  };
  if (cluster.isWorker) process.send?.(ready);
  else process.stdout.write(`${JSON.stringify(ready)}\n`);
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
}
