import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { nameStatementsOn } from './prepared.ts';
import * as schema from './schema/index.ts';

export type Db = NodePgDatabase<typeof schema>;
/** A database handle or an open transaction: repo functions accept either. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  pool: pg.Pool;
  /**
   * Sessions planned without plain index scans (`enable_indexscan = off`): a filter's few matches
   * are read through its own index (a bitmap) and sorted, in one statement instead of a
   * transaction that sets it for itself (the events pages of a remembered total). Its own small
   * pool; used only with the change feed live, so never behind a pooler in transaction mode, where
   * a session's setting would reach other clients.
   */
  bitmapDb: Db;
  /**
   * Sessions that plan each named statement once, for any values (`plan_cache_mode =
   * force_generic_plan`): only for statements whose one plan fits every user — a first page of a
   * user's whole list, LIMIT a literal, which every plan reads as an ordered walk of the sort index
   * (docs/events-queries.md). A pool of its own, as large as the main one (at half its size the
   * pages sent there queued longer than the others: the bench's p99 doubled), only where
   * statements are named (the change feed's sessions); otherwise the main handle.
   */
  genericDb: Db;
  close(): Promise<void>;
}

/**
 * Sessions planning every statement for its own values, set when a connection opens (a statement,
 * not a startup option: PgBouncer in session mode refuses or drops startup options, and an
 * `options` in DATABASE_URL would replace ours). Named prepared statements would otherwise switch
 * to a generic plan after five executions when it looks no dearer, and on the skewed findings one
 * plan does not fit every user and filter.
 */
const CUSTOM_PLANS = 'set plan_cache_mode = force_custom_plan';
const GENERIC_PLANS = 'set plan_cache_mode = force_generic_plan';
/**
 * Uses of a connection whose session keeps named statements before it is replaced: each shape a
 * session ran stays prepared in it (~50 kB of the backend's memory each; the bench's 142 cases
 * left 85, 4.4 MB), so a busy connection that never idles out starts afresh now and then.
 */
export const SESSION_MAX_USES = 10_000;

/**
 * `sessionStatements`: the pool's sessions are its own (no pooler in transaction mode between it
 * and PostgreSQL: PERIMETER_CHANGE_FEED, which needs such a session too); the statements prepared
 * per shape are then named on the server and parsed once per connection (src/db/prepared.ts).
 */
export function connectDatabase(url: string, max = 10, { sessionStatements = false } = {}): Database {
  const maxUses = sessionStatements ? SESSION_MAX_USES : undefined;
  // Set before the pool hands a connection out (pg-pool awaits it; a failure fails the connection,
  // not a page planned the other way).
  const setUp = (settings: string[]) =>
    settings.length
      ? async (client: pg.PoolClient) => void (await client.query(settings.join('; ')))
      : undefined;
  const custom = sessionStatements ? [CUSTOM_PLANS] : [];
  const openPool = (size: number, settings: string[]) => {
    const opened = new pg.Pool({
      connectionString: url,
      max: size,
      idleTimeoutMillis: 30_000,
      maxUses,
      onConnect: setUp(settings),
    } as pg.PoolConfig);
    // An idle client losing its connection must not crash the process.
    opened.on('error', () => {});
    // Nor one checked out (a transaction between statements, a held lock): pg-pool takes its own
    // listener off while a client is out, and the 'error' of a connection the server ends (a
    // restart, a failover) then has no listener. The holder sees the failure on its next query; the
    // pool drops the broken client when it comes back.
    opened.on('connect', (client) => client.on('error', () => {}));
    return opened;
  };
  const pool = openPool(max, custom);
  const db = drizzle(pool, { schema });
  const bitmapPool = openPool(Math.max(2, Math.ceil(max / 2)), ['set enable_indexscan = off', ...custom]);
  const bitmapDb = drizzle(bitmapPool, { schema });
  const genericPool = sessionStatements ? openPool(max, [GENERIC_PLANS]) : undefined;
  const generic = genericPool && drizzle(genericPool, { schema });
  if (sessionStatements) {
    nameStatementsOn(db);
    nameStatementsOn(bitmapDb);
    if (generic) nameStatementsOn(generic);
  }
  const genericDb = generic ?? db;
  return {
    db,
    pool,
    bitmapDb,
    genericDb,
    close: async () => void (await Promise.all([pool.end(), bitmapPool.end(), genericPool?.end()])),
  };
}
