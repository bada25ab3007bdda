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
  ZPlanKey,
  ZPurchasablePlan,
  ZSubscriptionStatus,
} from '@perimeter/contracts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { countStartedThisMonth } from '../scans/scans-repo.ts';
import { countLive } from '../targets/targets-repo.ts';
import { amountOf, checkoutMode, toSessionDto } from './billing-fns.ts';
import { expireLocal } from './billing-local.ts';
import * as repo from './billing-repo.ts';

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
  const provider = ctx.billing;
  if (provider.changesPlansInPortal && sub && q.plan !== 'try_it') {
    // Changing a live subscription goes through the provider's portal (prorations are the provider's).
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
  const res = await ctx.billing.portalLink({
    userId,
    email: user.email,
    customerId: customer?.stripeCustomerId ?? null,
  });
  if (res.customerId && res.customerId !== customer?.stripeCustomerId)
    await repo.saveCustomer(ctx.db, userId, { stripeCustomerId: res.customerId });
  return { url: res.url };
}

export async function getCheckout(ctx: AppContext, userId: string, id: string): Promise<TCheckoutSession> {
  const row = await repo.getCheckout(ctx.db, id);
  if (!row || row.userId !== userId) throw notFound('No such checkout session.');
  return toSessionDto(row);
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
    provider: ctx.billing.name,
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
  // A subscription made with another provider (the configuration changed since) is only marked here.
  if (sub.provider === ctx.billing.name) await ctx.billing.cancelAtPeriodEnd(sub.externalId);
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
