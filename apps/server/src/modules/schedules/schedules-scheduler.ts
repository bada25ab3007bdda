import { withClientTransaction } from '../../db/transaction.ts';
import type { Logger } from '../../lib/logger.ts';
import type { AppContext } from '../../server/context.ts';
import { isWithinWindow, nextRunAfter } from './schedules-fns.ts';
import * as repo from './schedules-repo.ts';
import type { ScanBridge } from './schedules-scan-port.ts';
import { storedConfig } from './schedules-service.ts';

export interface SchedulerOptions {
  bridge: ScanBridge;
  /** The clock; tests pass a controlled one. */
  now?: () => Date;
  /** Schedules handled per transaction. */
  batch?: number;
  logger?: Logger;
}

export interface TickResult {
  started: number;
  failed: number;
  missed: number;
}

/**
 * Starts due scheduled scans. Safe with any number of scheduler processes on one database: due rows
 * are locked with FOR UPDATE SKIP LOCKED, each run is claimed by the unique (schedule_id, due_at)
 * key and the schedule's next_run_at is advanced in the same transaction that creates and enqueues
 * the scan — so a run happens exactly once, and a crash before commit leaves it due for the next tick.
 * State lives only in the database, so restarts lose nothing; a run missed while every scheduler was
 * down is still started if its window (start_time–end_time) is open, otherwise recorded as missed.
 */
export function createScheduler(ctx: AppContext, opts: SchedulerOptions) {
  const now = opts.now ?? (() => new Date());
  const batch = opts.batch ?? 20;
  const log = opts.logger ?? ctx.logger;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<TickResult> | undefined;

  async function tickOnce(): Promise<TickResult & { handled: number }> {
    const result = { started: 0, failed: 0, missed: 0, handled: 0 };
    const at = now();
    await withClientTransaction(ctx.database, async (tx, executeSql) => {
      const due = await repo.lockDueSchedules(tx, at, batch);
      result.handled = due.length;
      for (const row of due) {
        const timing = { days: row.days, startTime: row.startTime, tz: row.tz };
        // The latest occurrence that is due (earlier ones were missed while nothing ran).
        let dueAt = row.nextRunAt!;
        for (let next = nextRunAfter(timing, dueAt); next && next <= at; next = nextRunAfter(timing, dueAt)) {
          dueAt = next;
        }
        const inWindow = isWithinWindow(dueAt, at, row);
        const claimed = await repo.claimRun(tx, {
          scheduleId: row.id,
          userId: row.userId,
          dueAt,
          status: inWindow ? 'started' : 'missed',
        });
        if (claimed && inWindow) {
          const config = storedConfig(row);
          // A savepoint: a refused scan (plan limit, target gone) is recorded as failed, not retried.
          await executeSql('savepoint scheduled_scan');
          try {
            const { scanId } = await opts.bridge.createAndStartScan(ctx, tx, executeSql, {
              userId: row.userId,
              targets: config.targets,
              scanType: row.scanType === 'custom' ? 'custom' : 'full',
              config: { classes: config.classes, subclasses: config.subclasses },
            });
            await executeSql('release savepoint scheduled_scan');
            await repo.finishRun(tx, claimed.id, { status: 'started', scanId });
            result.started += 1;
          } catch (err) {
            await executeSql('rollback to savepoint scheduled_scan');
            const detail = err instanceof Error ? err.message : String(err);
            await repo.finishRun(tx, claimed.id, { status: 'failed', error: detail.slice(0, 1000) });
            log.warn({ err, scheduleId: row.id, dueAt }, 'scheduled scan was not started');
            result.failed += 1;
          }
        } else if (claimed) {
          result.missed += 1;
        }
        await repo.advanceSchedule(tx, row.id, nextRunAfter(timing, at), dueAt);
      }
    });
    return result;
  }

  async function tick(): Promise<TickResult> {
    const total = { started: 0, failed: 0, missed: 0 };
    for (;;) {
      const r = await tickOnce();
      total.started += r.started;
      total.failed += r.failed;
      total.missed += r.missed;
      if (r.handled < batch) return total;
    }
  }

  return {
    tick,
    start(intervalMs = 30_000) {
      const run = () => {
        if (running) return;
        running = tick()
          .catch((err) => {
            log.error({ err }, 'scheduler tick failed');
            return { started: 0, failed: 0, missed: 0 };
          })
          .finally(() => {
            running = undefined;
          });
      };
      timer = setInterval(run, intervalMs);
      timer.unref();
      run();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
export type Scheduler = ReturnType<typeof createScheduler>;
