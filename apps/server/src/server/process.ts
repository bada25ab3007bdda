import { ConfigError, loadConfig } from '../lib/config/index.ts';
import { createLogger } from '../lib/logger.ts';
import { startQueue } from '../lib/queue.ts';
import { registerIntelJobs } from '../modules/intel/intel-jobs.ts';
import { logDatabaseNotice } from '../modules/intel/intel-service.ts';
import { registerNotificationWorkers } from '../modules/notifications/notifications-jobs.ts';
import { registerScanWorkers } from '../modules/scans/scans-jobs.ts';
import { startSchedules } from '../modules/schedules/schedules-worker.ts';
import { buildApp } from './app.ts';
import { openRuntime } from './runtime.ts';

interface Roles {
  api: boolean;
  worker: boolean;
}

/** Starts the roles asked for and stops them cleanly on SIGINT/SIGTERM. */
export async function runProcess(roles: Roles): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  const logger = createLogger(config.env.LOG_LEVEL);
  const runtime = await openRuntime(config, logger);
  // An empty or stale CVE database looks like "no vulnerabilities": say so, and how to fix it.
  await logDatabaseNotice(runtime.ctx).catch((err) => logger.error({ err }, 'CVE database check failed'));

  const stops: Array<() => Promise<unknown>> = [];

  const boss = await startQueue(runtime.databaseUrl, logger);
  stops.push(() => boss.stop({ graceful: true, timeout: 10_000 }));

  if (roles.api) {
    const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance });
    const address = await app.listen({ host: config.env.HOST, port: config.env.PORT });
    stops.unshift(() => app.close());
    logger.info(
      `Perimeter listening on ${address.replace('127.0.0.1', 'localhost')} (open ${config.publicUrl})`,
    );
    console.log(`Perimeter listening on ${address}`);
  }
  if (roles.worker) {
    await registerScanWorkers(runtime.ctx, boss);
    const scheduler = await startSchedules(runtime.ctx, boss);
    stops.unshift(() => scheduler.stop());
    const notifier = await registerNotificationWorkers(runtime.ctx, boss);
    stops.unshift(() => notifier.stop());
    await registerIntelJobs(runtime.ctx, boss);
    logger.info('worker role ready');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const stop of stops) await stop().catch((err) => logger.error({ err }, 'error while stopping'));
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
