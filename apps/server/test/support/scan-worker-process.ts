/**
 * A scan worker process for the reliability test: the same wiring as the worker role, with
 * pg-boss maintenance every second so expired jobs are noticed quickly. Logs JSON lines.
 */
import PgBoss from 'pg-boss';
import { loadConfig } from '../../src/lib/config/index.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { registerScanWorkers } from '../../src/modules/scans/scans-jobs.ts';
import { openRuntime } from '../../src/server/runtime.ts';

const config = loadConfig();
const logger = createLogger(config.env.LOG_LEVEL);
const runtime = await openRuntime(config, logger);
const boss = new PgBoss({
  connectionString: runtime.databaseUrl,
  schema: 'pgboss',
  max: 4,
  maintenanceIntervalSeconds: 1,
});
boss.on('error', (err) => logger.error({ err }, 'queue error'));
await boss.start();
const workers = await registerScanWorkers(runtime.ctx, boss);
process.once('SIGTERM', async () => {
  workers.stop();
  await boss.stop({ graceful: false, wait: true, timeout: 3000 }).catch(() => {});
  await runtime.close();
  process.exit(0);
});
