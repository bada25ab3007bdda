import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';

export interface Counter {
  hits: number;
  windowEndsAt: Date;
}

/**
 * Counts one hit on `key` in a fixed window, atomically (one upsert), so every API process
 * shares the same count. A window that has ended starts again at 1.
 */
export async function hitCounter(db: DbOrTx, key: string, windowMs: number): Promise<Counter> {
  const { rows } = await db.execute<{ hits: number; window_ends_at: Date | string }>(sql`
    insert into rate_limit_counters (key, hits, window_ends_at)
    values (${key}, 1, now() + ${windowMs} * interval '1 millisecond')
    on conflict (key) do update set
      hits = case when rate_limit_counters.window_ends_at <= now() then 1 else rate_limit_counters.hits + 1 end,
      window_ends_at = case when rate_limit_counters.window_ends_at <= now()
        then now() + ${windowMs} * interval '1 millisecond' else rate_limit_counters.window_ends_at end
    returning hits, window_ends_at`);
  const row = rows[0]!;
  return { hits: Number(row.hits), windowEndsAt: new Date(row.window_ends_at) };
}

/** The live count of `key`, or undefined when it has none or its window ended. */
export async function readCounter(db: DbOrTx, key: string): Promise<Counter | undefined> {
  const { rows } = await db.execute<{ hits: number; window_ends_at: Date | string }>(sql`
    select hits, window_ends_at from rate_limit_counters where key = ${key} and window_ends_at > now()`);
  const row = rows[0];
  return row ? { hits: Number(row.hits), windowEndsAt: new Date(row.window_ends_at) } : undefined;
}

/** Gives back one hit of a live window (an attempt that turned out not to be a failure). */
export async function releaseHit(db: DbOrTx, key: string): Promise<void> {
  await db.execute(sql`
    update rate_limit_counters set hits = hits - 1 where key = ${key} and hits > 0 and window_ends_at > now()`);
}

/** Moves the end of `key`'s window (its count then lasts exactly as long as a lock). */
export async function setWindowEnd(db: DbOrTx, key: string, endsAt: Date): Promise<void> {
  await db.execute(sql`update rate_limit_counters set window_ends_at = ${endsAt} where key = ${key}`);
}

export async function clearCounter(db: DbOrTx, key: string): Promise<void> {
  await db.execute(sql`delete from rate_limit_counters where key = ${key}`);
}

/** Drops counters whose window ended more than an hour ago. */
export async function pruneCounters(db: DbOrTx): Promise<number> {
  const res = await db.execute(
    sql`delete from rate_limit_counters where window_ends_at < now() - interval '1 hour'`,
  );
  return res.rowCount ?? 0;
}
