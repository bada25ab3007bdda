/**
 * `npm run bench:oob -w apps/server` — a script, not a test. The out-of-band interaction server
 * (docs/oob.md) on 127.0.250.9 over a fresh database (embedded PostgreSQL, or DATABASE_URL's):
 *
 * 1. Memory with 10,000 pending ids: one scan run's provider hands out 10,000 ids (as 10,000
 *    `{{interactsh-url}}` expansions would) and the recorder has looked up 10,000 unknown
 *    correlations (strangers' names); prints the RSS and heap growth.
 * 2. Interactions per second: BENCH_OOB_QUERIES (20,000) DNS queries over UDP for registered ids
 *    from BENCH_OOB_SOURCES (50) loopback addresses, BENCH_OOB_INFLIGHT (64) in flight at a time,
 *    each answered and recorded; prints answered/s and stored rows/s (until the last row is in
 *    PostgreSQL), with the load average.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { sql } from 'drizzle-orm';

const QUERIES = Number(process.env.BENCH_OOB_QUERIES ?? 20_000);
const SOURCES = Number(process.env.BENCH_OOB_SOURCES ?? 50);
const INFLIGHT = Number(process.env.BENCH_OOB_INFLIGHT ?? 64);
const PENDING = 10_000;
const HOST = '127.0.250.9';
const ZONE = 'oob.bench.test';

const { loadConfig } = await import('../src/lib/config/index.ts');
const { createLogger } = await import('../src/lib/logger.ts');
const { openRuntime } = await import('../src/server/runtime.ts');
const { startOobServer } = await import('../src/modules/oob/oob-server.ts');
const { PgOobProvider } = await import('../src/modules/oob/oob-provider.ts');
const { randomToken } = await import('../src/modules/oob/oob-fns.ts');

const log = (msg: string) => console.log(`[oob-bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
const signed = (n: number) => `${n < 0 ? '−' : '+'}${mb(Math.abs(n))}`;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-oob-bench-'));
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'production',
  PERIMETER_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  PERIMETER_OOB_DOMAIN: ZONE,
  PERIMETER_OOB_IP: HOST,
  PERIMETER_OOB_HOST: HOST,
  PERIMETER_OOB_LISTENERS: 'dns',
  PERIMETER_OOB_DNS_PORT: '0',
  PERIMETER_OOB_MAX_PER_SCAN: '1000000',
  PERIMETER_OOB_RATE_PER_ADDRESS: '1000000',
});
const runtime = await openRuntime(config, createLogger('silent'));
const { db } = runtime.ctx;
const oob = await startOobServer({ db, logger: runtime.ctx.logger, env: config.env });
try {
  const user = await db.execute<{ id: string }>(
    sql`insert into users (email, password_hash, first_name, last_name, company) values ('bench@oob.test', 'x', 'B', 'B', 'B') returning id`,
  );
  const userId = user.rows[0]?.id as string;
  const scan = await db.execute<{ id: string }>(
    sql`insert into scans (user_id, target_type, scan_type, status) values (${userId}, 'domain', 'full', 'running') returning id`,
  );
  const scanId = scan.rows[0]?.id as string;
  const provider = await PgOobProvider.register(db, { domain: ZONE, scanId, userId, retentionHours: 24 });
  const port = oob.listeners.find((l) => l.protocol === 'dns/udp')?.address.port as number;
  log(`DNS on ${HOST}:${port}; load average ${load()}`);

  // 1. Memory with 10,000 pending ids.
  global.gc?.();
  const before = process.memoryUsage();
  const pending = Array.from({ length: PENDING }, () => provider.newId());
  const sender = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => sender.bind(0, '127.0.250.10', resolve));
  for (let i = 0; i < PENDING; i += 500) {
    // Strangers: 10,000 unknown correlations looked up and remembered (within the look-up budget, over ~4 s).
    await Promise.all(
      Array.from({ length: 500 }, (_, j) =>
        oob.recorder.record({
          ids: [randomToken(33)],
          protocol: 'dns',
          remoteAddress: `10.0.${(i + j) >> 8}.${(i + j) & 255}`,
          rawRequest: '',
          rawResponse: '',
        }),
      ),
    );
    if ((i / 500) % 2 === 1) await new Promise((r) => setTimeout(r, 1000));
  }
  global.gc?.();
  const after = process.memoryUsage();
  log(
    `${pending.length} pending ids + ${oob.recorder.counts.unregistered} strangers' ids seen (${oob.recorder.counts.lookupBudget} over the look-up budget): RSS ${mb(after.rss)} (${signed(after.rss - before.rss)}), heap ${mb(after.heapUsed)} (${signed(after.heapUsed - before.heapUsed)})`,
  );

  // 2. Interactions per second over UDP DNS.
  const sockets = await Promise.all(
    Array.from({ length: SOURCES }, async (_, i) => {
      const s = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => s.bind(0, `127.0.250.${20 + (i % 200)}`, resolve));
      return s;
    }),
  );
  const waiting = new Map<number, () => void>();
  for (const s of sockets)
    s.on('message', (msg) => {
      const id = msg.readUInt16BE(0);
      waiting.get(id)?.();
      waiting.delete(id);
    });
  let sent = 0;
  let answered = 0;
  let lost = 0;
  const t0 = performance.now();
  const one = async (): Promise<void> => {
    while (sent < QUERIES) {
      const n = sent++;
      const qid = n % 65_536;
      const name = `${pending[n % PENDING]}.${ZONE}`;
      const socket = sockets[n % SOURCES] as dgram.Socket;
      const ok = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(qid);
          resolve(false);
        }, 2000);
        waiting.set(qid, () => {
          clearTimeout(timer);
          resolve(true);
        });
        socket.send(
          dnsPacket.encode({ type: 'query', id: qid, questions: [{ type: 'A', name }] }),
          port,
          HOST,
        );
      });
      if (ok) answered++;
      else lost++;
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, one));
  const answerSeconds = (performance.now() - t0) / 1000;
  await oob.recorder.flush();
  const storeSeconds = (performance.now() - t0) / 1000;
  const stored = await db.execute<{ n: number }>(sql`select count(*)::int as n from oob_interactions`);
  const rows = stored.rows[0]?.n ?? 0;
  log(
    `${QUERIES} queries from ${SOURCES} addresses, ${INFLIGHT} in flight: ${answered} answered in ${answerSeconds.toFixed(1)} s (${(answered / answerSeconds).toFixed(0)}/s), ${lost} lost; ${rows} stored by ${storeSeconds.toFixed(1)} s (${(rows / storeSeconds).toFixed(0)} interactions/s); RSS ${mb(process.memoryUsage().rss)}; load average ${load()}`,
  );
  const polled = await provider.poll(pending.slice(0, 100));
  log(`poll of 100 ids: ${polled.length} interactions`);
  for (const s of sockets) s.close();
  sender.close();
} finally {
  await oob.close();
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
}
