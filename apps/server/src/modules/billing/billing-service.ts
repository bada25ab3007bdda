import {
  PLAN_KEYS,
  TARIFFS,
  type TAvailableTariffs,
  type TBillingState,
  type TCheckoutLink,
  type TCheckoutSession,
  type TCurrency,
  type TPlanKey,
  type TPortalLink,
  type TTariffsInfo,
  type TTariffType,
  ZBillingPeriod,
  ZCheckoutLinkQuery,
  ZCurrency,
  ZLocalPayBody,
  ZPlanKey,
  ZPurchasablePlan,
  ZSubscriptionStatus,
} from '@perimeter/contracts';
import { z } from 'zod';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { countStartedThisMonth } from '../scans/scans-repo.ts';
import { countLive } from '../targets/targets-repo.ts';
import { addPeriod, amountOf, checkLocalCard, checkoutMode, isNewer, planEffect } from './billing-fns.ts';
import { type BillingProvider, createBillingProvider } from './billing-provider.ts';
import * as repo from './billing-repo.ts';

const providers = new WeakMap<AppContext, BillingProvider>();

/** The configured provider: Stripe with STRIPE_SECRET_KEY, else the local one. */
export function billingProvider(ctx: AppContext): BillingProvider {
  let p = providers.get(ctx);
  if (!p) {
    p = createBillingProvider(ctx.config.env, ctx.config.publicUrl);
    providers.set(ctx, p);
  }
  return p;
}

/** Tests and embedders may swap the provider (e.g. Stripe against a stand-in API). */
export function setBillingProvider(ctx: AppContext, provider: BillingProvider): void {
  providers.set(ctx, provider);
}

const currencyOf = (ctx: AppContext): TCurrency => ctx.config.env.BILLING_CURRENCY;
const planKey = (v: string): TPlanKey => ZPlanKey.catch('trial_scan').parse(v);

export function tariffsInfo(ctx: AppContext, types: TTariffType[] | undefined): TTariffsInfo {
  const wanted = types && types.length > 0 ? new Set(types) : null;
  const tariffs = Object.fromEntries(
    PLAN_KEYS.filter((k) => !wanted || wanted.has(TARIFFS[k].type)).map((k) => [k, TARIFFS[k]]),
  );
  return { tariffs, currency: currencyOf(ctx) };
}

async function activeSubscription(ctx: AppContext, userId: string) {
  const sub = await repo.getSubscription(ctx.db, userId);
  return sub && (sub.status === 'active' || sub.status === 'past_due') ? sub : undefined;
}

export async function availableTariffs(ctx: AppContext, userId: string): Promise<TAvailableTariffs> {
  const user = await repo.getUser(ctx.db, userId);
  if (!user) throw notFound();
  const current = planKey(user.plan);
  const sub = await activeSubscription(ctx, userId);
  const available = ZPurchasablePlan.options.filter((p) => {
    if (current === 'enterprise') return false;
    if (p === 'try_it') return !sub;
    return true;
  });
  return { current, available, on_request: ['enterprise'], currency: currencyOf(ctx) };
}

export async function checkoutLink(ctx: AppContext, userId: string, raw: unknown): Promise<TCheckoutLink> {
  const q = ZCheckoutLinkQuery.parse(raw);
  const user = await repo.getUser(ctx.db, userId);
  if (!user) throw notFound();
  const current = planKey(user.plan);
  if (current === 'enterprise')
    throw conflict('The Enterprise plan is managed by our team: contact us to change it.');
  const sub = await activeSubscription(ctx, userId);
  if (q.plan === 'try_it' && sub)
    throw conflict('A one-time scan cannot be bought while a subscription is active.');
  if (sub && !sub.cancelAtPeriodEnd && sub.plan === q.plan && sub.period === q.period)
    throw conflict(`You are already subscribed to this plan (${q.period}).`);
  const provider = billingProvider(ctx);
  if (provider.name === 'stripe' && sub && q.plan !== 'try_it') {
    // Changing a live Stripe subscription goes through the customer portal (prorations are Stripe's).
    const portal = await portalLink(ctx, userId);
    return { url: portal.url, session_id: '' };
  }
  const mode = checkoutMode(q.plan);
  const amount = amountOf(q.plan, q.period);
  const customer = await repo.getCustomer(ctx.db, userId);
  const res = await provider.createCheckout({
    userId,
    email: user.email,
    customerId: customer?.stripeCustomerId ?? null,
    plan: q.plan,
    period: q.period,
    mode,
    amount,
    currency: currencyOf(ctx),
    promoCode: q.promo_code ? q.promo_code : null,
  });
  await ctx.db.transaction(async (tx) => {
    if (res.customerId && res.customerId !== customer?.stripeCustomerId)
      await repo.saveCustomer(tx, userId, { stripeCustomerId: res.customerId });
    await repo.insertCheckout(tx, {
      id: res.id,
      userId,
      provider: provider.name,
      plan: q.plan,
      period: q.plan === 'try_it' ? 'monthly' : q.period,
      mode,
      amount: amount - res.discount,
      discount: res.discount,
      currency: currencyOf(ctx),
      promoCode: q.promo_code ? q.promo_code.toUpperCase() : null,
    });
  });
  return { url: res.url, session_id: res.id };
}

export async function portalLink(ctx: AppContext, userId: string): Promise<TPortalLink> {
  const user = await repo.getUser(ctx.db, userId);
  if (!user) throw notFound();
  const customer = await repo.getCustomer(ctx.db, userId);
  const res = await billingProvider(ctx).portalLink({
    userId,
    email: user.email,
    customerId: customer?.stripeCustomerId ?? null,
  });
  if (res.customerId && res.customerId !== customer?.stripeCustomerId)
    await repo.saveCustomer(ctx.db, userId, { stripeCustomerId: res.customerId });
  return { url: res.url };
}

function toSessionDto(row: repo.CheckoutRow): TCheckoutSession {
  return {
    id: row.id,
    provider: row.provider === 'stripe' ? 'stripe' : 'local',
    plan: ZPurchasablePlan.parse(row.plan),
    period: ZBillingPeriod.parse(row.period),
    mode: row.mode === 'payment' ? 'payment' : 'subscription',
    status: z.enum(['open', 'complete', 'failed', 'expired']).parse(row.status),
    amount: row.amount,
    discount: row.discount,
    currency: ZCurrency.parse(row.currency),
    promo_code: row.promoCode,
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
  };
}

export async function getCheckout(ctx: AppContext, userId: string, id: string): Promise<TCheckoutSession> {
  const row = await repo.getCheckout(ctx.db, id);
  if (!row || row.userId !== userId) throw notFound('No such checkout session.');
  return toSessionDto(row);
}

/** A local checkout not paid within a day expires. */
export const LOCAL_SESSION_TTL_MS = 24 * 60 * 60 * 1000;

/** The local provider's card step: validates, "charges" a test card, applies the plan at once. */
export async function payLocal(ctx: AppContext, userId: string, raw: unknown): Promise<TCheckoutSession> {
  const body = ZLocalPayBody.parse(raw);
  const card = checkLocalCard(body.card_number, body.expiry);
  if (!card.ok) throw badRequest(card.message, { [card.field]: [card.message] });
  const now = new Date();
  const row = await ctx.db.transaction(async (tx) => {
    const session = await repo.getCheckout(tx, body.session_id, true);
    if (!session || session.userId !== userId || session.provider !== 'local')
      throw notFound('No such checkout session.');
    if (session.status === 'complete') throw conflict('This checkout is already paid.');
    if (session.status !== 'expired' && now.getTime() - session.createdAt.getTime() > LOCAL_SESSION_TTL_MS) {
      await repo.updateCheckout(tx, session.id, { status: 'expired' });
      return null;
    }
    if (session.status === 'expired') throw conflict('This checkout has expired: start again.');
    const cardLabel = `${card.brand} •••• ${card.last4}`;
    const plan = ZPurchasablePlan.parse(session.plan);
    const period = ZBillingPeriod.parse(session.period);
    if (card.outcome === 'declined') {
      await repo.updateCheckout(tx, session.id, {
        status: 'failed',
        failureReason: card.reason ?? 'Declined.',
      });
      await repo.upsertInvoice(tx, {
        userId,
        provider: 'local',
        externalId: `${session.id}:${now.getTime()}`,
        plan,
        amount: session.amount,
        currency: session.currency,
        status: 'failed',
        description: `${TARIFFS[plan].name} (${session.mode === 'payment' ? 'one-time' : period})`,
        card: cardLabel,
      });
    } else {
      await repo.updateCheckout(tx, session.id, {
        status: 'complete',
        failureReason: null,
        completedAt: now,
      });
      await repo.upsertInvoice(tx, {
        userId,
        provider: 'local',
        externalId: session.id,
        plan,
        amount: session.amount,
        currency: session.currency,
        status: 'paid',
        description: `${TARIFFS[plan].name} (${session.mode === 'payment' ? 'one-time' : period})`,
        card: cardLabel,
      });
      if (session.mode === 'subscription') {
        await repo.upsertSubscription(tx, {
          userId,
          provider: 'local',
          externalId: session.id,
          plan,
          period,
          status: 'active',
          currentPeriodStart: now,
          currentPeriodEnd: addPeriod(now, period),
          cancelAtPeriodEnd: false,
          lastEventCreated: Math.floor(now.getTime() / 1000),
        });
      }
      await repo.setUserPlan(tx, userId, plan);
      if (body.remember_card)
        await repo.saveCustomer(tx, userId, { cardBrand: card.brand, cardLast4: card.last4 });
    }
    return (await repo.getCheckout(tx, session.id)) as repo.CheckoutRow;
  });
  // Expiry is committed before it is reported.
  if (!row) throw conflict('This checkout has expired: start again.');
  return toSessionDto(row);
}

/** A local subscription past its end (after a cancellation) falls back to the trial plan. */
async function expireLocal(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const sub = await repo.getSubscription(tx, userId, true);
    if (sub?.provider !== 'local' || sub.status === 'canceled') return;
    if (!sub.currentPeriodEnd || sub.currentPeriodEnd > new Date() || !sub.cancelAtPeriodEnd) return;
    await repo.upsertSubscription(tx, { ...sub, status: 'canceled' });
    await repo.setUserPlan(tx, userId, 'trial_scan');
  });
}

export async function billingState(ctx: AppContext, userId: string): Promise<TBillingState> {
  await expireLocal(ctx, userId);
  const user = await repo.getUser(ctx.db, userId);
  if (!user) throw notFound();
  const [sub, customer, invoices, live, scans, oneTime] = await Promise.all([
    repo.getSubscription(ctx.db, userId),
    repo.getCustomer(ctx.db, userId),
    repo.listInvoices(ctx.db, userId),
    countLive(ctx.db, userId),
    countStartedThisMonth(ctx.db, userId),
    repo.oneTimePayments(ctx.db, userId),
  ]);
  return {
    plan: planKey(user.plan),
    provider: billingProvider(ctx).name,
    currency: currencyOf(ctx),
    subscription: sub
      ? {
          plan: planKey(sub.plan),
          period: ZBillingPeriod.catch('monthly').parse(sub.period),
          status: ZSubscriptionStatus.catch('incomplete').parse(sub.status),
          current_period_end: sub.currentPeriodEnd?.toISOString() ?? null,
          cancel_at_period_end: sub.cancelAtPeriodEnd,
        }
      : null,
    card:
      customer?.cardBrand && customer.cardLast4
        ? { brand: customer.cardBrand, last4: customer.cardLast4 }
        : null,
    invoices: invoices.map((i) => ({
      id: i.id,
      plan: i.plan,
      amount: i.amount,
      currency: ZCurrency.catch('usd').parse(i.currency),
      status: i.status === 'paid' ? ('paid' as const) : ('failed' as const),
      description: i.description,
      card: i.card,
      created_at: i.createdAt.toISOString(),
    })),
    usage: {
      domains: live.domains,
      external_ips: live.ips,
      scans_this_month: scans,
      one_time_scans_left: oneTime.paid - oneTime.used,
    },
  };
}

export async function cancelSubscription(ctx: AppContext, userId: string): Promise<TBillingState> {
  const sub = await activeSubscription(ctx, userId);
  if (!sub) throw conflict('There is no active subscription to cancel.');
  if (sub.provider === 'stripe') await billingProvider(ctx).cancelAtPeriodEnd(sub.externalId);
  await repo.upsertSubscription(ctx.db, { ...sub, cancelAtPeriodEnd: true });
  return billingState(ctx, userId);
}

/** Operator command `plans assign <email> <plan>` (enterprise is given this way, by request). */
export async function assignPlan(
  ctx: AppContext,
  email: string,
  plan: string,
): Promise<{ userId: string; plan: TPlanKey }> {
  const key = ZPlanKey.safeParse(plan);
  if (!key.success) throw badRequest(`Unknown plan "${plan}". Plans: ${PLAN_KEYS.join(', ')}.`);
  return ctx.db.transaction(async (tx) => {
    const user = await repo.findUserByEmail(tx, email);
    if (!user) throw notFound(`No user with e-mail ${email}.`);
    await repo.setUserPlan(tx, user.id, key.data);
    return { userId: user.id, plan: key.data };
  });
}

// ---------------------------------------------------------------- Stripe webhook events

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
            currency: s.currency ?? row?.currency ?? currencyOf(ctx),
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
