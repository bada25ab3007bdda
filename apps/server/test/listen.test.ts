import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { listenChannels } from '../src/db/listen.ts';
import { createTestDatabase } from './support/database.ts';
import { type PgProxy, startPgProxy } from './support/pg-proxy.ts';

/**
 * The listening connection (src/db/listen.ts) behind a proxy that drops notifications, as a pooler
 * in transaction mode does: LISTEN succeeds, every sync times out and ends the connection. Its
 * reconnects must back off, not come back every first wait to make the next request wait for a
 * sync that cannot return.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: PgProxy;

beforeAll(async () => {
  database = await createTestDatabase();
  proxy = await startPgProxy(database.url);
});

afterAll(async () => {
  await proxy?.close();
  await database?.drop();
});

/** A listener on the test database itself (no proxy), whose notifications and states nobody reads. */
const listenDirectly = () =>
  listenChannels({
    connection: { connectionString: database.url },
    channels: ['findings_changed'],
    onNotify: () => {},
    onState: () => {},
  });

async function until(ok: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('reconnects ever more slowly while its syncs never come back, and from the first wait once one does', async () => {
  const states: { live: boolean; at: number }[] = [];
  const listener = listenChannels({
    connection: { connectionString: proxy.url },
    channels: ['findings_changed'],
    onNotify: () => {},
    onState: (live) => states.push({ live, at: performance.now() }),
    retryMs: 100,
    syncTimeoutMs: 300,
  });
  /** How long the listener was down last time, once it is up again. */
  const nextDowntime = async () => {
    await until(() => listener.live);
    const [down, up] = states.slice(-2);
    expect(down?.live).toBe(false);
    return up!.at - down!.at;
  };
  try {
    await until(() => listener.live);
    proxy.dropNotifications = true;
    const downtimes: number[] = [];
    for (let i = 0; i < 4; i++) {
      expect(await listener.sync()).toBe(false);
      expect(listener.live).toBe(false);
      downtimes.push(await nextDowntime());
    }
    // Waits of 100, 200, 400, 800 ms: lower bounds only (a loaded machine makes a wait longer,
    // never shorter). Without the backoff every one is 100 ms and a connection's set-up.
    expect(downtimes[3]).toBeGreaterThanOrEqual(790);

    proxy.dropNotifications = false;
    expect(await listener.sync()).toBe(true);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and application_name = 'perimeter listen'`,
      );
    } finally {
      await admin.end();
    }
    await until(() => !listener.live);
    // A first wait of 100 ms again; the next doubling would have been 1,600 ms.
    expect(await nextDowntime()).toBeLessThan(1_600);
    expect(await listener.sync()).toBe(true);
  } finally {
    await listener.close();
  }
}, 60_000);

it('sends one statement at a time: overlapping syncs all come back, none queued behind another by pg', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  const listener = listenDirectly();
  try {
    await until(() => listener.live);
    // A batch per turn of the event loop: each is sent while the one before still waits for its answer.
    const syncs: Promise<boolean>[] = [];
    for (let i = 0; i < 30; i++) {
      syncs.push(listener.sync());
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(syncs)).toEqual(syncs.map(() => true));
    await new Promise((r) => setTimeout(r, 50)); // warnings are emitted on a later tick
    expect(warnings.filter((m) => m.includes('already executing a query'))).toEqual([]);
  } finally {
    process.off('warning', onWarning);
    await listener.close();
  }
});

it('sends one sync per round trip: the syncs called while one is under way share the next', async () => {
  // The first sync's statement gets its answer only once all the syncs were called, one per turn
  // of the event loop: however fast the database answers here, they were all called while one was
  // under way (a batch per turn sent 30 statements).
  const original = pg.Client.prototype.query;
  let release = () => {};
  const answered = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const query = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (held || !String(args[0]).includes('pg_notify')) return result;
    held = true;
    return (result as Promise<unknown>).then(async (r) => {
      await answered;
      return r;
    });
  } as typeof original);
  const listener = listenDirectly();
  try {
    await until(() => listener.live);
    const notifies = () => query.mock.calls.filter(([text]) => String(text).includes('pg_notify')).length;
    const syncs: Promise<boolean>[] = [];
    for (let i = 0; i < 30; i++) {
      syncs.push(listener.sync());
      await new Promise((r) => setImmediate(r));
    }
    expect(notifies()).toBe(1);
    release();
    expect(await Promise.all(syncs)).toEqual(syncs.map(() => true));
    expect(notifies()).toBe(2);
  } finally {
    query.mockRestore();
    await listener.close();
  }
});
