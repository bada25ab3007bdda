import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../src/db/client.ts';
import { createTestDatabase } from './support/database.ts';

/**
 * The server ending a connection (a restart, a failover, `pg_terminate_backend`) while the
 * connection is checked out of the pool and idle must not crash the process: it crashed a test
 * process once when PostgreSQL stopped during fault injection (an unhandled 'error' event).
 */
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const created = await createTestDatabase();
  drop = created.drop;
  database = connectDatabase(created.url, 3);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

it('survives the server ending a checked-out connection, and drops it from the pool', async () => {
  const held = await database.pool.connect();
  const pid = (await held.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
  // pg-pool's own listener is off while the client is out: ours must be there.
  expect(held.listenerCount('error')).toBeGreaterThan(0);
  await database.pool.query('select pg_terminate_backend($1)', [pid]);
  // The 'error' event is emitted as the server's message arrives (unhandled, it ends the process).
  await new Promise((r) => setTimeout(r, 300));
  await expect(held.query('select 1')).rejects.toThrow(/not queryable|terminat/);
  held.release();
  expect(database.pool.totalCount).toBeLessThanOrEqual(1);
  const again = await database.pool.query<{ n: number }>('select 1 as n');
  expect(again.rows[0]?.n).toBe(1);
});
