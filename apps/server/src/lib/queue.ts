import PgBoss from 'pg-boss';
import type { Logger } from './logger.ts';

/**
 * pg-boss keeps its queue in its own schema of our PostgreSQL and migrates it on start.
 * Jobs are defined with a name, a zod payload schema and their retry policy where they live.
 */
export async function startQueue(connectionString: string, logger: Logger): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString, schema: 'pgboss', max: 5 });
  boss.on('error', (err) => logger.error({ err }, 'queue error'));
  await boss.start();
  return boss;
}

export type { PgBoss };
