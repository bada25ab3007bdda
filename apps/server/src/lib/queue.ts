import PgBoss from 'pg-boss';
import type { Logger } from './logger.ts';

/**
 * pg-boss keeps its queue in its own schema of our PostgreSQL and migrates it on start.
 * Jobs are defined with a name, a zod payload schema and their retry policy where they live.
 */
export async function startQueue(connectionString: string, logger: Logger): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString, schema: 'pgboss', max: 5 });
  boss.on('error', (err) => {
    // The database stopping (shutdown, restart) is an event of its life, not a fault of the queue.
    if (isDatabaseShutdown(err))
      logger.warn({ code: (err as { code?: string }).code }, 'queue: database shutting down');
    else logger.error({ err }, 'queue error');
  });
  await boss.start();
  return boss;
}

/** admin_shutdown, crash_shutdown, cannot_connect_now (SQLSTATE class 57). */
export function isDatabaseShutdown(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '57P01' || code === '57P02' || code === '57P03';
}

export type { PgBoss };
