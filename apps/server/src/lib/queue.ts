import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { z } from 'zod';
import type { Logger } from './logger.ts';

/**
 * pg-boss keeps its queue in its own schema of our PostgreSQL and migrates it on start. Each job
 * is declared once with `defineJob` (name, payload schema, retry policy) where it lives; the
 * definition enqueues in the caller's transaction and runs workers that ride out a database
 * outage (pg-boss's own `work()` settles jobs without catching, so a lost connection at that
 * moment is an unhandled rejection that ends the process).
 */
export const QUEUE_SCHEMA = 'pgboss';
/** Serialises queue creation across processes (pg-boss's createQueue deadlocks when raced). */
const QUEUE_LOCK_ID = 7_253_002;

export async function startQueue(connectionString: string, logger: Logger): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString, schema: QUEUE_SCHEMA, max: 5 });
  boss.on('error', (err) => {
    // The database stopping (shutdown, restart) is an event of its life, not a fault of the queue.
    if (isDatabaseShutdown(err))
      logger.warn({ code: (err as { code?: string }).code }, 'queue: database shutting down');
    else logger.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'queue error');
  });
  await boss.start();
  return boss;
}

export type ExecuteSql = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;

export interface JobPolicy {
  retryLimit: number;
  /** Seconds before the first retry. */
  retryDelay: number;
  retryBackoff: boolean;
  expireInSeconds: number;
  /** pg-boss's queue policy (`singleton`: at most one job active at a time); `standard` when unset. */
  queuePolicy?: 'standard' | 'short' | 'singleton' | 'stately';
}

export interface JobMeta {
  id: string;
  retryCount: number;
  retryLimit: number;
}

export interface JobWorkers {
  /** Stops fetching; waits up to `timeoutMs` for running handlers, then fails their jobs so they retry elsewhere. */
  stop(timeoutMs?: number): Promise<void>;
}

/** What tells a process's idle loops at once that a job was queued (src/db/changes.ts Wakeups). */
export interface JobWakeups {
  subscribe(onWake: () => void): () => void;
}

export interface JobDefinition<T> {
  readonly name: string;
  readonly policy: JobPolicy;
  /** Sends the job in the caller's transaction (its `executeSql`); null when a singleton is already queued. */
  enqueue(executeSql: ExecuteSql, data: T, options?: { singletonKey?: string }): Promise<string | null>;
  /**
   * Runs `concurrency` fetch loops on this process. An idle loop fetches again every `pollMs`, and
   * at once when `wake` says a job was queued (the notification of defineJob's `wakeChannel`).
   */
  work(
    boss: PgBoss,
    logger: Logger,
    handler: (data: T, job: JobMeta) => Promise<void>,
    options?: { concurrency?: number; pollMs?: number; wake?: JobWakeups },
  ): JobWorkers;
}

/** Resolves after `ms`, on abort, or when `wakeUp` is called (whichever comes first). */
const sleep = (ms: number, signal?: AbortSignal, onWakeUp?: (wakeUp: () => void) => void) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
    onWakeUp?.(done);
  });

/** Doubles from 250 ms to 10 s: how long a loop waits after the database refused it. */
const nextBackoff = (ms: number) => Math.min(10_000, ms ? ms * 2 : 250);

const isDeadlock = (err: unknown) => (err as { code?: string }).code === '40P01';

async function createQueueOnce(
  boss: PgBoss,
  name: string,
  { queuePolicy, ...policy }: JobPolicy,
): Promise<void> {
  if (!(await boss.getQueue(name)))
    await boss.createQueue(name, { name, ...policy, ...(queuePolicy ? { policy: queuePolicy } : {}) });
}

/** The retry options pg-boss takes on `send` and `schedule`. */
export const sendOptions = ({ queuePolicy: _queuePolicy, ...policy }: JobPolicy) => policy;

/**
 * `wakeChannel`: each enqueue also notifies this channel (delivered when the caller's transaction
 * commits, so the job is there to fetch), for workers listening to wake at once rather than at
 * their next poll.
 */
export function defineJob<T>(
  name: string,
  schema: z.ZodType<T>,
  policy: JobPolicy,
  { wakeChannel }: { wakeChannel?: string } = {},
): JobDefinition<T> {
  return {
    name,
    policy,
    async enqueue(executeSql, data, options = {}) {
      const boss = new PgBoss({ db: { executeSql }, schema: QUEUE_SCHEMA });
      if (!(await boss.getQueue(name))) {
        // In the caller's transaction: the lock is held until it ends, so racing creators wait.
        await executeSql('select pg_advisory_xact_lock($1)', [QUEUE_LOCK_ID]);
        await createQueueOnce(boss, name, policy);
      }
      const id = await boss.send(name, schema.parse(data) as object, { ...sendOptions(policy), ...options });
      if (id && wakeChannel) await executeSql('select pg_notify($1, $2)', [wakeChannel, id]);
      return id;
    },
    work(boss, logger, handler, { concurrency = 1, pollMs = 500, wake } = {}) {
      const stopping = new AbortController();
      const running = new Map<string, Promise<void>>();
      // Each notification wakes one idle loop (one job); one that comes while no loop sleeps (a
      // loop between its empty fetch and its sleep) makes the next loop that would sleep fetch again.
      const sleeping: (() => void)[] = [];
      let unheard = 0;
      const unsubscribe = wake?.subscribe(() => {
        const wakeUp = sleeping.shift();
        if (wakeUp) wakeUp();
        else unheard = Math.min(concurrency, unheard + 1);
      });
      const idle = async () => {
        if (unheard > 0) {
          unheard--;
          return;
        }
        let mine: (() => void) | undefined;
        await sleep(pollMs, stopping.signal, (wakeUp) => {
          mine = wakeUp;
          sleeping.push(wakeUp);
        });
        const at = mine ? sleeping.indexOf(mine) : -1;
        if (at >= 0) sleeping.splice(at, 1);
      };

      /** Completes or fails the job, retrying while the database is away (until stopped for good). */
      const settle = async (job: JobMeta, failure: unknown) => {
        let backoff = 0;
        for (;;) {
          try {
            // After a lost connection the job may have been handed on meanwhile (the stale-scan
            // check, its lease): settle it only while it is still this worker's.
            if (backoff && (await boss.getJobById(name, job.id))?.state !== 'active') return;
            if (failure === undefined) await boss.complete(name, job.id);
            else await boss.fail(name, job.id, { message: (failure as Error)?.message ?? String(failure) });
            return;
          } catch (err) {
            backoff = nextBackoff(backoff);
            logger.warn(
              { queue: name, jobId: job.id, err: (err as Error).message },
              'queue unavailable; will settle the job when it is back',
            );
            await sleep(backoff);
          }
        }
      };

      const loop = async () => {
        let backoff = 0;
        while (!stopping.signal.aborted) {
          let job: PgBoss.JobWithMetadata<unknown> | undefined;
          try {
            [job] = await boss.fetch<unknown>(name, { batchSize: 1, includeMetadata: true });
            if (backoff) logger.info({ queue: name }, 'queue reachable again');
            backoff = 0;
          } catch (err) {
            if (!backoff)
              logger.warn({ queue: name, err: (err as Error).message }, 'queue unavailable; retrying');
            backoff = nextBackoff(backoff);
            await sleep(backoff, stopping.signal);
            continue;
          }
          if (!job) {
            await idle();
            continue;
          }
          const meta: JobMeta = { id: job.id, retryCount: job.retryCount, retryLimit: job.retryLimit };
          const run = (async () => {
            let failure: unknown;
            try {
              await handler(schema.parse(job.data), meta);
            } catch (err) {
              failure = err ?? new Error('job failed');
            }
            await settle(meta, failure);
          })();
          running.set(job.id, run);
          await run.finally(() => running.delete(meta.id));
        }
      };

      const loops = Array.from({ length: concurrency }, () => loop());
      return {
        async stop(timeoutMs = 10_000) {
          stopping.abort();
          unsubscribe?.();
          const all = Promise.all(loops);
          const timedOut = await Promise.race([all.then(() => false), sleep(timeoutMs).then(() => true)]);
          if (!timedOut) return;
          // Still running: hand the jobs back now so another worker resumes them without waiting for a lease.
          await Promise.all(
            [...running.keys()].map((id) =>
              boss.fail(name, id, { message: 'the worker stopped while running this job' }).catch(() => {}),
            ),
          );
        },
      };
    },
  };
}

/**
 * Creates the queues that do not exist yet, one process at a time (a session advisory lock on a
 * connection of our own pool), retrying when PostgreSQL still reports a deadlock.
 */
export async function ensureQueues(
  pool: pg.Pool,
  boss: PgBoss,
  jobs: Pick<JobDefinition<unknown>, 'name' | 'policy'>[],
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query('select pg_advisory_lock($1)', [QUEUE_LOCK_ID]);
      for (const job of jobs) await createQueueOnce(boss, job.name, job.policy);
      return;
    } catch (err) {
      if (!isDeadlock(err) || attempt >= 5) throw err;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [QUEUE_LOCK_ID]).catch(() => {});
      client.release();
    }
    await sleep(100 * attempt);
  }
}

/** admin_shutdown, crash_shutdown, cannot_connect_now (SQLSTATE class 57). */
export function isDatabaseShutdown(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '57P01' || code === '57P02' || code === '57P03';
}

export type { PgBoss };
