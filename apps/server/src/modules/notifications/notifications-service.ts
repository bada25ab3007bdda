import {
  PLAN_KEYS,
  PLAN_LIMITS,
  type TCreateWebhookBody,
  type TLanguage,
  type TPlanKey,
  type TWebhook,
} from '@perimeter/contracts';
import { decryptSecret, encryptSecret, randomToken } from '../../lib/crypto.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { checkedAddress, RefusedAddressError, userFetchPolicy } from '../../lib/guarded-request.ts';
import type { AppContext } from '../../server/context.ts';
import { newFindingsLink } from './notifications-fns.ts';
import * as repo from './notifications-repo.ts';
import { postWebhook } from './notifications-send.ts';
import { newCriticalHighMail, scanFailedMail, scanFinishedMail } from './notifications-templates.ts';

const MAX_WEBHOOKS = 10;

function toWebhook(row: repo.WebhookRow, last?: repo.DeliveryRow): TWebhook {
  return {
    webhook_id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    created_at: row.createdAt.toISOString(),
    last_delivery: last
      ? {
          event: last.event,
          status: last.status,
          status_code: last.lastStatusCode,
          at: last.createdAt.toISOString(),
        }
      : null,
  };
}

/** A URL naming a refused address outright is refused at once; names are checked at each delivery. */
async function refuseLiteralAddress(ctx: AppContext, url: string) {
  const parsed = new URL(url);
  try {
    await checkedAddress(parsed, userFetchPolicy(ctx.config.env), async () => []);
  } catch (err) {
    if (err instanceof RefusedAddressError)
      throw badRequest(`The webhook address is refused: ${err.message}.`, { url: [err.message] });
  }
}

export async function createWebhook(ctx: AppContext, userId: string, body: TCreateWebhookBody) {
  if ((await repo.countWebhooks(ctx.db, userId)) >= MAX_WEBHOOKS)
    throw badRequest(`At most ${MAX_WEBHOOKS} webhooks per account.`);
  await refuseLiteralAddress(ctx, body.url);
  const secret = `whsec_${randomToken(24)}`;
  const row = await repo.insertWebhook(ctx.db, {
    userId,
    url: body.url,
    secretEnc: encryptSecret(secret, ctx.config.secrets.encryptionKey),
    events: body.events ?? ['scan.finished', 'findings.new_critical_high'],
  });
  return { ...toWebhook(row), secret };
}

export async function listWebhooks(ctx: AppContext, userId: string) {
  const rows = await repo.listWebhooks(ctx.db, userId);
  const deliveries = await repo.recentDeliveries(
    ctx.db,
    rows.map((r) => r.id),
    1,
  );
  const results = rows.map((r) =>
    toWebhook(
      r,
      deliveries.find((d) => d.webhookId === r.id),
    ),
  );
  return { results, count: results.length };
}

export async function deleteWebhook(ctx: AppContext, userId: string, id: string) {
  if (!(await repo.deleteWebhook(ctx.db, userId, id))) throw notFound('Webhook not found.');
  return { detail: 'Webhook deleted.' };
}

/** Sends a `webhook.test` event now and reports what the endpoint answered. */
export async function testWebhook(ctx: AppContext, userId: string, id: string) {
  const hook = await repo.findWebhook(ctx.db, userId, id);
  if (!hook) throw notFound('Webhook not found.');
  const delivery = await repo.insertDelivery(ctx.db, {
    webhookId: hook.id,
    event: 'webhook.test',
    payload: { event: 'webhook.test', webhook_id: hook.id, sent_at: new Date().toISOString() },
  });
  const result = await deliver(ctx, delivery.id);
  return { delivered: result.ok, status_code: result.statusCode, error: result.error };
}

/** One attempt at a delivery; records the outcome. */
export async function deliver(ctx: AppContext, deliveryId: string) {
  const found = await repo.deliveryWithWebhook(ctx.db, deliveryId);
  if (!found) return { ok: true, statusCode: null, error: null, gone: true };
  const { delivery, webhook } = found;
  if (delivery.status === 'delivered') return { ok: true, statusCode: delivery.lastStatusCode, error: null };
  const body = JSON.stringify({ id: delivery.id, ...(delivery.payload as object) });
  const secret = decryptSecret(webhook.secretEnc, ctx.config.secrets.encryptionKey);
  const result = await postWebhook(
    webhook.url,
    secret,
    body,
    { 'x-perimeter-event': delivery.event, 'x-perimeter-delivery': delivery.id },
    { policy: userFetchPolicy(ctx.config.env) },
  );
  await repo.updateDelivery(ctx.db, delivery.id, {
    attempts: delivery.attempts + 1,
    lastStatusCode: result.statusCode,
    lastError: result.error,
    ...(result.ok ? { status: 'delivered', deliveredAt: new Date() } : {}),
  });
  return result;
}

export async function markDeliveryFailed(ctx: AppContext, deliveryId: string) {
  await repo.updateDelivery(ctx.db, deliveryId, { status: 'failed' });
}

const CRIT_HIGH = new Set(['critical', 'high']);
const planKeyOf = (plan: string): TPlanKey =>
  (PLAN_KEYS as readonly string[]).includes(plan) ? (plan as TPlanKey) : 'trial_scan';

/**
 * Everything a finished scan notifies: mails per the user's preferences, in their language, and
 * webhook deliveries (returned, for the caller to enqueue). Each mail kind is claimed in the log
 * first, so a retried job does not mail twice.
 */
export async function notifyScanFinished(ctx: AppContext, scanId: string): Promise<string[]> {
  const facts = await repo.scanFacts(ctx.db, scanId);
  if (!facts?.user) return [];
  const { scan, user } = facts;
  // A canceled scan: no "scan finished" mail (the user stopped it), but what it found before the
  // cancel is real: new critical/high alerts and the scan.finished webhook (status canceled) go out.
  const canceled = scan.status === 'canceled';
  // try_it is a one-time scan with "no follow-up notifications": its result mail, no alerts.
  const followUps = !PLAN_LIMITS[planKeyOf(user.plan)].oneTimeScan;
  const lang: TLanguage = user.language === 'ru' ? 'ru' : 'en';
  const counts: Record<string, number> = {};
  for (const f of facts.findings) counts[f.severity] = (counts[f.severity] ?? 0) + 1;
  const fresh = (followUps ? facts.findings : [])
    .filter((f) => CRIT_HIGH.has(f.severity) && (f.change === 'new' || f.change === 'regressed'))
    .sort((a, b) =>
      a.severity === b.severity ? a.name.localeCompare(b.name) : a.severity === 'critical' ? -1 : 1,
    );
  const mailFacts = {
    name: user.firstName,
    targets: facts.targets.join(', ') || scan.targetType,
    link: `${ctx.config.publicUrl}/scans/past-scans/${scan.id}`,
    counts,
    newCriticalHigh: fresh.map((f) => ({ name: f.name, severity: f.severity, host: f.host ?? '' })),
    partial: scan.partial ?? null,
  };
  if (
    user.notifyScanFinished &&
    (!canceled || scan.failureReason) &&
    (await repo.claimNotification(ctx.db, user.id, scan.id, 'mail_scan_finished'))
  ) {
    // A failed scan (canceled by the system, not the user) is told too, with its reason.
    if (scan.failureReason)
      await ctx.mailer.send(
        user.email,
        'scan_failed',
        scanFailedMail(lang, { ...mailFacts, reason: scan.failureReason }),
      );
    else await ctx.mailer.send(user.email, 'scan_finished', scanFinishedMail(lang, mailFacts));
  }
  if (
    fresh.length > 0 &&
    user.notifyNewCriticalHigh &&
    (await repo.claimNotification(ctx.db, user.id, scan.id, 'mail_new_critical_high'))
  ) {
    mailFacts.link = newFindingsLink(ctx.config.publicUrl, scan.id, fresh);
    await ctx.mailer.send(user.email, 'new_critical_high', newCriticalHighMail(lang, mailFacts));
  }

  const deliveries: string[] = [];
  const payload = {
    scan_id: scan.id,
    status: scan.status,
    targets: facts.targets,
    finished_at: scan.finishedAt?.toISOString() ?? null,
    severity_counts: counts,
    partial: scan.partial ?? null,
  };
  if (await repo.claimNotification(ctx.db, user.id, scan.id, 'webhook_scan_finished')) {
    for (const hook of await repo.webhooksForEvent(ctx.db, user.id, 'scan.finished')) {
      const d = await repo.insertDelivery(ctx.db, {
        webhookId: hook.id,
        event: 'scan.finished',
        payload: { event: 'scan.finished', ...payload },
      });
      deliveries.push(d.id);
    }
  }
  if (
    fresh.length > 0 &&
    (await repo.claimNotification(ctx.db, user.id, scan.id, 'webhook_new_critical_high'))
  ) {
    for (const hook of await repo.webhooksForEvent(ctx.db, user.id, 'findings.new_critical_high')) {
      const d = await repo.insertDelivery(ctx.db, {
        webhookId: hook.id,
        event: 'findings.new_critical_high',
        payload: {
          event: 'findings.new_critical_high',
          ...payload,
          findings: mailFacts.newCriticalHigh.slice(0, 100),
        },
      });
      deliveries.push(d.id);
    }
  }
  return deliveries;
}
