import { drizzle } from 'drizzle-orm/node-postgres';
import type { ExecuteSql } from '../lib/queue.ts';
import type { Database, Db } from './client.ts';
import * as schema from './schema/index.ts';

/**
 * A transaction on one pooled client, handing out both a Drizzle handle and the raw
 * `executeSql` pg-boss needs, so a job is enqueued in the same transaction as its row.
 */
export async function withClientTransaction<T>(
  database: Database,
  fn: (db: Db, executeSql: ExecuteSql) => Promise<T>,
): Promise<T> {
  const client = await database.pool.connect();
  try {
    await client.query('begin');
    const db = drizzle(client, { schema });
    const result = await fn(db, async (text, values) => client.query(text, values));
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
