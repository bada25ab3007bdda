import { TARIFFS, ZPurchasablePlan } from '@perimeter/contracts';
import { z } from 'zod';
import { AppError } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { isNewer, planEffect } from './billing-fns.ts';
import * as repo from './billing-repo.ts';

/*
 * Stripe's webhook events (signature checked by the route): each applied once, by event id, in
 * one transaction, older updates than the stored state ignored.
 */

const ZMeta = z.object({
  user_id: z.string().optional(),
  plan: z.string().optional(),
  period: z.string().optional(),
});
const idOf = z.union([z.string(), z.object({ id: z.string() }).transform((o) => o.id)]);
const ZStripeSubscription = z.object({
  id: z.string(),
  customer: idOf,
  status: z.string(),
  cancel_at_period_end: z.boolean().default(false),
  metadata: ZMeta.default({}),
  current_period_start: z.number().optional(),
  current_period_end: z.number().optional(),
  items: z
    .object({
      data: z.array(
        z.object({
          current_period_start: z.number().optional(),
          current_period_end: z.number().optional(),
          price: z.object({ recurring: z.object({ interval: z.string() }).nullish() }).optional(),
        }),
      ),
    })
    .optional(),
});
const ZStripeSession = z.object({
  id: z.string(),
  mode: z.string(),
  payment_status: z.string(),
  customer: idOf.nullish(),
  client_reference_id: z.string().nullish(),
  subscription: idOf.nullish(),
  payment_intent: idOf.nullish(),
  amount_total: z.number().nullish(),
  currency: z.string().nullish(),
  metadata: ZMeta.default({}),
});
const ZStripeInvoice = z.object({
  id: z.string(),
  customer: idOf.nullish(),
  amount_paid: z.number().default(0),
  amount_due: z.number().default(0),
  currency: z.string(),
  subscription: idOf.nullish(),
  parent: z
    .object({
      subscription_details: z.object({ subscription: idOf.nullish(), metadata: ZMeta.nullish() }).nullish(),
    })
    .nullish(),
  lines: z.object({ data: z.array(z.object({ metadata: ZMeta.nullish() })) }).optional(),
});

export interface StripeEventLike {
  id: string;
  type: string;
  created: number;
  data: { object: unknown };
}

export type WebhookOutcome = 'applied' | 'duplicate' | 'ignored';

async function userFor(
  tx: Parameters<Parameters<AppContext['db']['transaction']>[0]>[0],
  meta: { user_id?: string | undefined },
  customer: string | null | undefined,
): Promise<string | undefined> {
  if (meta.user_id && z.uuid().safeParse(meta.user_id).success && (await repo.getUser(tx, meta.user_id)))
    return meta.user_id;
  if (customer) return (await repo.findCustomerByStripeId(tx, customer))?.userId;
  return undefined;
}

/** Applies one verified Stripe event exactly once (by event id), ignoring updates older than the stored state. */
export async function handleStripeEvent(ctx: AppContext, event: StripeEventLike): Promise<WebhookOutcome> {
  return ctx.db.transaction(async (tx) => {
    if (!(await repo.claimEvent(tx, event.id, event.type))) return 'duplicate';
    switch (event.type) {
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed': {
        const s = ZStripeSubscription.parse(event.data.object);
        const userId = await userFor(tx, s.metadata, s.customer);
        if (!userId) return 'ignored';
        const item = s.items?.data[0];
        const periodStart = item?.current_period_start ?? s.current_period_start ?? null;
        const periodEnd = item?.current_period_end ?? s.current_period_end ?? null;
        const status = event.type === 'customer.subscription.deleted' ? 'canceled' : s.status;
        const stored = await repo.getSubscription(tx, userId, true);
        const plan = ZPurchasablePlan.safeParse(s.metadata.plan);
        if (stored && stored.externalId === s.id) {
          const ok = isNewer(
            {
              lastEventCreated: stored.lastEventCreated,
              periodStart: stored.currentPeriodStart
                ? Math.floor(stored.currentPeriodStart.getTime() / 1000)
                : null,
              status: stored.status,
            },
            { created: event.created, periodStart, status },
          );
          if (!ok) return 'ignored';
        } else if (stored && stored.status !== 'canceled' && planEffect(status) === 'revoke') {
          // The end of an older subscription must not end the current one.
          return 'ignored';
        }
        const interval = item?.price?.recurring?.interval;
        await repo.upsertSubscription(tx, {
          userId,
          provider: 'stripe',
          externalId: s.id,
          plan: plan.success ? plan.data : (stored?.plan ?? 'trial_scan'),
          period: s.metadata.period === 'yearly' || interval === 'year' ? 'yearly' : 'monthly',
          status,
          currentPeriodStart: periodStart ? new Date(periodStart * 1000) : null,
          currentPeriodEnd: periodEnd ? new Date(periodEnd * 1000) : null,
          cancelAtPeriodEnd: s.cancel_at_period_end,
          lastEventCreated: event.created,
        });
        const effect = planEffect(status);
        if (effect === 'grant' && plan.success) await repo.setUserPlan(tx, userId, plan.data);
        if (effect === 'revoke') await repo.setUserPlan(tx, userId, 'trial_scan');
        return 'applied';
      }
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const s = ZStripeSession.parse(event.data.object);
        const row = await repo.getCheckout(tx, s.id, true);
        const userId =
          row?.userId ??
          (await userFor(tx, { user_id: s.client_reference_id ?? s.metadata.user_id }, s.customer));
        if (!userId) return 'ignored';
        if (s.payment_status !== 'paid' && s.payment_status !== 'no_payment_required') return 'applied';
        if (row) await repo.updateCheckout(tx, s.id, { status: 'complete', completedAt: new Date() });
        const plan = ZPurchasablePlan.safeParse(row?.plan ?? s.metadata.plan);
        if (!plan.success) return 'ignored';
        if (s.mode === 'payment') {
          await repo.upsertInvoice(tx, {
            userId,
            provider: 'stripe',
            externalId: s.payment_intent ?? s.id,
            plan: plan.data,
            amount: s.amount_total ?? row?.amount ?? 0,
            currency: s.currency ?? row?.currency ?? ctx.config.env.BILLING_CURRENCY,
            status: 'paid',
            description: `${TARIFFS[plan.data].name} (one-time)`,
            card: null,
          });
          await repo.setUserPlan(tx, userId, plan.data);
        } else if (s.subscription) {
          const stored = await repo.getSubscription(tx, userId, true);
          if (!stored || stored.externalId !== s.subscription) {
            await repo.upsertSubscription(tx, {
              userId,
              provider: 'stripe',
              externalId: s.subscription,
              plan: plan.data,
              period: row?.period ?? s.metadata.period ?? 'monthly',
              status: 'active',
              currentPeriodStart: null,
              currentPeriodEnd: null,
              cancelAtPeriodEnd: false,
              lastEventCreated: 0,
            });
            await repo.setUserPlan(tx, userId, plan.data);
          } else if (planEffect(stored.status) === 'grant') {
            await repo.setUserPlan(tx, userId, plan.data);
          }
        }
        if (s.customer) await repo.saveCustomer(tx, userId, { stripeCustomerId: s.customer });
        return 'applied';
      }
      case 'checkout.session.expired':
      case 'checkout.session.async_payment_failed': {
        const s = ZStripeSession.parse(event.data.object);
        const row = await repo.getCheckout(tx, s.id, true);
        if (!row || row.status === 'complete') return 'ignored';
        await repo.updateCheckout(tx, s.id, {
          status: event.type === 'checkout.session.expired' ? 'expired' : 'failed',
          failureReason: event.type === 'checkout.session.expired' ? null : 'The payment failed.',
        });
        return 'applied';
      }
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
      case 'invoice.payment_failed': {
        const inv = ZStripeInvoice.parse(event.data.object);
        const meta = inv.parent?.subscription_details?.metadata ?? inv.lines?.data[0]?.metadata ?? {};
        const userId = await userFor(tx, meta, inv.customer);
        if (!userId) return 'ignored';
        const failed = event.type === 'invoice.payment_failed';
        const plan = ZPurchasablePlan.safeParse(meta.plan);
        await repo.upsertInvoice(tx, {
          userId,
          provider: 'stripe',
          externalId: inv.id,
          plan: plan.success ? plan.data : 'unknown',
          amount: failed ? inv.amount_due : inv.amount_paid,
          currency: inv.currency,
          status: failed ? 'failed' : 'paid',
          description: plan.success ? `${TARIFFS[plan.data].name} subscription` : 'Subscription',
          card: null,
        });
        if (failed) {
          const subId = inv.parent?.subscription_details?.subscription ?? inv.subscription;
          const stored = await repo.getSubscription(tx, userId, true);
          if (
            stored &&
            subId &&
            stored.externalId === subId &&
            stored.status === 'active' &&
            event.created >= stored.lastEventCreated
          )
            await repo.upsertSubscription(tx, {
              ...stored,
              status: 'past_due',
              lastEventCreated: event.created,
            });
        }
        return 'applied';
      }
      default:
        return 'ignored';
    }
  });
}

export const webhookNotConfigured = () =>
  new AppError(404, 'not_found', 'The Stripe webhook is not configured on this server.');
