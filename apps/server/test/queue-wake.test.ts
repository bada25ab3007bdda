import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../src/lib/logger.ts';
import { defineJob, type JobWakeups, type PgBoss, startQueue } from '../src/lib/queue.ts';
import { SCAN_QUEUED_CHANNEL } from '../src/modules/scans/scans-jobs.ts';
import { createTestApp, type TestApp } from './support/app.ts';

/**
 * An idle worker loop polls every 0.5 s; a job queued with a wake channel notifies it at its
 * transaction's commit, and a process listening on the change feed (PERIMETER_CHANGE_FEED) starts
 * it at once. Without the feed (a pooler in transaction mode) the poll still finds it.
 */
const POLICY = { retryLimit: 0, retryDelay: 1, retryBackoff: false, expireInSeconds: 60 };
const logger = createLogger('silent');

async function until(ok: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Enqueues one job in a transaction of its own; resolves at its commit. */
async function enqueueCommitted(t: TestApp, job: ReturnType<typeof defineJob<{ n: number }>>, n: number) {
  const c = await t.runtime.ctx.database.pool.connect();
  try {
    await c.query('begin');
    await job.enqueue((text, values) => c.query(text, values), { n });
    await c.query('commit');
  } finally {
    c.release();
  }
}

/** A worker of `job` on `t`'s database; `picked` holds when each job's handler started. */
async function workerOf(
  t: TestApp,
  job: ReturnType<typeof defineJob<{ n: number }>>,
  options: { pollMs: number; wake?: JobWakeups },
) {
  const boss = await startQueue(t.databaseUrl, logger);
  await boss.createQueue(job.name, { name: job.name, ...POLICY });
  const picked = new Map<number, number>();
  const workers = job.work(
    boss,
    logger,
    async ({ n }) => {
      picked.set(n, performance.now());
    },
    { concurrency: 2, ...options },
  );
  // Both loops fetched once, found nothing and sleep.
  await new Promise((r) => setTimeout(r, 500));
  return {
    picked,
    async stop() {
      await workers.stop(1000);
      await boss.stop({ graceful: false, wait: true, timeout: 5000 });
    },
  };
}

describe('an idle worker is woken when a job is queued', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await until(() => t.runtime.ctx.changes.live);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('picks the job at once, long before its poll would', async () => {
    const job = defineJob('wake-test', z.object({ n: z.number() }), POLICY, {
      wakeChannel: SCAN_QUEUED_CHANNEL,
    });
    // A poll of 30 s: only the notification can start these jobs within the test.
    const w = await workerOf(t, job, { pollMs: 30_000, wake: t.runtime.ctx.scansQueued });
    try {
      for (const n of [1, 2, 3]) {
        const committed = performance.now();
        await enqueueCommitted(t, job, n);
        await until(() => w.picked.has(n), 5_000);
        expect((w.picked.get(n) as number) - committed).toBeLessThan(2_000);
      }
    } finally {
      await w.stop();
    }
  });
});

describe('without the change feed (a pooler in transaction mode)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PERIMETER_CHANGE_FEED: 'false' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('hears no notification, and the poll still finds the job', async () => {
    const job = defineJob('wake-test', z.object({ n: z.number() }), POLICY, {
      wakeChannel: SCAN_QUEUED_CHANNEL,
    });
    expect(t.runtime.ctx.changes.live).toBe(false);
    const w = await workerOf(t, job, { pollMs: 1_500, wake: t.runtime.ctx.scansQueued });
    try {
      const committed = performance.now();
      await enqueueCommitted(t, job, 1);
      await until(() => w.picked.has(1), 5_000);
      // Found by a poll: 0.5 s after the loops went to sleep at the earliest.
      expect((w.picked.get(1) as number) - committed).toBeGreaterThan(400);
    } finally {
      await w.stop();
    }
  });
});

describe('a notification while no loop sleeps', () => {
  it('makes the next loop that would sleep fetch again at once', async () => {
    // A queue whose first fetch is still under way when the notification comes.
    let releaseFirst: (jobs: []) => void = () => {};
    const fetched: number[] = [];
    const boss = {
      fetch: () => {
        fetched.push(performance.now());
        if (fetched.length === 1) return new Promise((r) => (releaseFirst = r));
        if (fetched.length === 2)
          return Promise.resolve([{ id: 'j1', data: { n: 1 }, retryCount: 0, retryLimit: 0 }]);
        return Promise.resolve([]);
      },
      complete: async () => {},
      fail: async () => {},
    } as unknown as PgBoss;
    let wake: () => void = () => {};
    const wakeups: JobWakeups = {
      subscribe: (onWake) => {
        wake = onWake;
        return () => {};
      },
    };
    const job = defineJob('wake-race', z.object({ n: z.number() }), POLICY);
    const ran: number[] = [];
    const workers = job.work(boss, logger, async ({ n }) => void ran.push(n), {
      concurrency: 1,
      pollMs: 30_000,
      wake: wakeups,
    });
    try {
      await until(() => fetched.length === 1);
      wake();
      releaseFirst([]);
      await until(() => ran.length === 1, 2_000);
      expect(ran).toEqual([1]);
      expect((fetched[1] as number) - (fetched[0] as number)).toBeLessThan(1_000);
    } finally {
      await workers.stop(100);
    }
  });
});
