import { z } from 'zod';
import { withClientTransaction } from '../../db/transaction.ts';
import { defineJob, ensureQueues, type PgBoss } from '../../lib/queue.ts';
import type { AppContext } from '../../server/context.ts';
import { claimNotification, lockUnnotifiedScans } from './notifications-repo.ts';
import { deliver, markDeliveryFailed, notifyScanFinished } from './notifications-service.ts';

/** `notify-scan`: mails and webhook fan-out for one finished scan. */
export const NOTIFY_SCAN_QUEUE = 'notify-scan';
/** A canceled scan's worker stops within 5 s (keeping what it found); notify after that. */
export const CANCELED_SETTLE_MS = 10_000;
export const ZNotifyScanJob = z.object({ scanId: z.uuid() });
/** `webhook-deliver`: one signed POST; retried with exponential backoff (10 s, 20 s, 40 s … 6 retries). */
export const WEBHOOK_QUEUE = 'webhook-deliver';
export const ZWebhookJob = z.object({ deliveryId: z.uuid() });

export interface NotificationPolicy {
  /** Seconds before the first webhook retry; doubles each time. */
  webhookRetryDelay: number;
  webhookRetryLimit: number;
  /** How often finished scans are looked for. */
  sweepMs: number;
}
export const DEFAULT_NOTIFICATION_POLICY: NotificationPolicy = {
  webhookRetryDelay: 10,
  webhookRetryLimit: 6,
  sweepMs: 15_000,
};

const notifyJob = defineJob(NOTIFY_SCAN_QUEUE, ZNotifyScanJob, {
  retryLimit: 3,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 300,
});
const webhookJob = (p: NotificationPolicy) =>
  defineJob(WEBHOOK_QUEUE, ZWebhookJob, {
    retryLimit: p.webhookRetryLimit,
    retryDelay: p.webhookRetryDelay,
    retryBackoff: true,
    expireInSeconds: 120,
  });

/**
 * Finds finished scans not yet notified, claims each in `notification_log` and enqueues its
 * `notify-scan` job in the same transaction — so every finished scan is notified once, whichever
 * worker sees it first, and nothing is lost if a worker dies.
 */
export async function sweepFinishedScans(ctx: AppContext, now = new Date()): Promise<number> {
  return withClientTransaction(ctx.database, async (db, executeSql) => {
    const due = await lockUnnotifiedScans(
      db,
      new Date(now.getTime() - 2 * 86_400_000),
      50,
      new Date(now.getTime() - CANCELED_SETTLE_MS),
    );
    if (due.length === 0) return 0;
    let n = 0;
    for (const scan of due) {
      if (!(await claimNotification(db, scan.userId, scan.id, 'scan_finished'))) continue;
      await notifyJob.enqueue(executeSql, { scanId: scan.id }, { singletonKey: scan.id });
      n += 1;
    }
    return n;
  });
}

export async function registerNotificationWorkers(
  ctx: AppContext,
  boss: PgBoss,
  policy: NotificationPolicy = DEFAULT_NOTIFICATION_POLICY,
) {
  const webhooks = webhookJob(policy);
  await ensureQueues(ctx.database.pool, boss, [notifyJob, webhooks]);
  const notifyWorkers = notifyJob.work(boss, ctx.logger, async ({ scanId }) => {
    const deliveryIds = await notifyScanFinished(ctx, scanId);
    if (deliveryIds.length === 0) return;
    await withClientTransaction(ctx.database, async (_db, executeSql) => {
      for (const deliveryId of deliveryIds)
        await webhooks.enqueue(executeSql, { deliveryId }, { singletonKey: deliveryId });
    });
  });
  const webhookWorkers = webhooks.work(boss, ctx.logger, async ({ deliveryId }, job) => {
    const result = await deliver(ctx, deliveryId);
    if (result.ok) return;
    if (job.retryCount >= job.retryLimit) {
      await markDeliveryFailed(ctx, deliveryId);
      return;
    }
    throw new Error(`webhook delivery ${deliveryId} failed: ${result.error}`);
  });
  let stopped = false;
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = sweepFinishedScans(ctx)
      .catch((err) => ctx.logger.error({ err }, 'notification sweep failed'))
      .finally(() => {
        running = undefined;
      });
  }, policy.sweepMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await Promise.all([notifyWorkers.stop(), webhookWorkers.stop()]);
    },
  };
}
