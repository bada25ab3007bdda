import type { TMaintenanceResponse } from '@perimeter/contracts';
import type { Pool } from 'pg';
import type { Db } from '../../db/client.ts';
import type { TEnv } from '../../lib/config/index.ts';
import { getSetting, putSetting } from './system-repo.ts';

export interface Maintenance {
  enabled: boolean;
  message: string | null;
}

export interface MaintenanceState {
  get(): Promise<Maintenance>;
  set(value: Maintenance): Promise<void>;
}

const KEY = 'maintenance';
const CACHE_MS = 2_000;

/**
 * Maintenance mode lives in the database so the operator's CLI switches every API process at once.
 * MAINTENANCE_MODE in the environment, when set, wins over the stored switch.
 */
export function createMaintenanceState(
  db: Db,
  env: Pick<TEnv, 'MAINTENANCE_MODE' | 'MAINTENANCE_MESSAGE'>,
): MaintenanceState {
  let cached: { value: Maintenance; at: number } | undefined;
  // The read under way: every request arriving meanwhile waits for it instead of sending its own
  // (every API request checks the switch; under load a refresh waits for a pool connection, and
  // each request arriving in that wait sent another read of the same row).
  let reading: Promise<Maintenance> | undefined;
  const refresh = (): Promise<Maintenance> => {
    const read: Promise<Maintenance> = getSetting<Maintenance>(db, KEY).then(
      (stored) => {
        const value = { enabled: stored?.enabled ?? false, message: stored?.message ?? null };
        if (reading === read) {
          cached = { value, at: Date.now() };
          reading = undefined;
        }
        return value;
      },
      (err: unknown) => {
        if (reading === read) reading = undefined;
        throw err;
      },
    );
    reading = read;
    return read;
  };
  return {
    async get() {
      if (env.MAINTENANCE_MODE !== undefined) {
        return { enabled: env.MAINTENANCE_MODE, message: env.MAINTENANCE_MESSAGE ?? null };
      }
      if (cached && Date.now() - cached.at < CACHE_MS) return cached.value;
      return reading ?? refresh();
    },
    async set(value) {
      await putSetting(db, KEY, value);
      // A read that started before the write must not be remembered: the next get reads again.
      cached = undefined;
      reading = undefined;
    },
  };
}

/** The message is only sent while maintenance is on (the spec asks for it only then). */
export async function maintenanceStatus(state: MaintenanceState): Promise<TMaintenanceResponse> {
  const { enabled, message } = await state.get();
  return { maintenance_mode: enabled, message: enabled ? message : null };
}

const READY_TIMEOUT_MS = 2_000;

/**
 * What readiness checks: the database answers a query within 2 s and, where this process runs
 * workers, pg-boss's schema is there. Each check is `ok` or `down`; `ready` is all of them `ok`.
 */
export async function readiness(
  pool: Pick<Pool, 'query'>,
  { queue }: { queue: boolean },
): Promise<{ ready: boolean; checks: { database: 'ok' | 'down'; queue?: 'ok' | 'down' } }> {
  const within = <T>(p: Promise<T>) =>
    Promise.race([
      p.then(() => 'ok' as const),
      new Promise<'down'>((resolve) => setTimeout(() => resolve('down'), READY_TIMEOUT_MS).unref()),
    ]).catch(() => 'down' as const);
  const database = await within(pool.query('select 1'));
  const checks: { database: 'ok' | 'down'; queue?: 'ok' | 'down' } = { database };
  if (queue)
    checks.queue =
      database === 'ok' ? await within(pool.query('select version from pgboss.version')) : 'down';
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}
