import { randomBytes } from 'node:crypto';
import {
  TARIFFS,
  type TCheckoutSession,
  ZBillingPeriod,
  ZLocalPayBody,
  ZPurchasablePlan,
} from '@perimeter/contracts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { addPeriod, checkLocalCard, discountOf, parsePromoCodes, toSessionDto } from './billing-fns.ts';
import type { BillingProvider, CheckoutInput, CheckoutResult } from './billing-provider.ts';
import * as repo from './billing-repo.ts';

/*
 * The embedded provider (no Stripe key): its checkout page is ours, so its card step — the
 * documented test cards, the plan applied at once — and its subscriptions' expiry live here.
 */

/** The embedded default: an in-app checkout page that accepts the documented test cards. */
export class LocalBillingProvider implements BillingProvider {
  readonly name = 'local' as const;
  readonly changesPlansInPortal = false;
  private readonly promos: Map<string, number>;
  constructor(
    private readonly publicUrl: string,
    promoSpec: string,
  ) {
    this.promos = parsePromoCodes(promoSpec);
  }

  async createCheckout(input: CheckoutInput): Promise<CheckoutResult> {
    let discount = 0;
    if (input.promoCode) {
      const pct = this.promos.get(input.promoCode.toUpperCase());
      if (pct === undefined) throw badRequest('Unknown promo code.', { promo_code: ['Unknown promo code.'] });
      discount = discountOf(input.amount, pct);
    }
    const id = `lcs_${randomBytes(18).toString('base64url')}`;
    return { id, url: `${this.publicUrl}/checkout/${id}`, discount, customerId: input.customerId };
  }

  async portalLink() {
    return { url: `${this.publicUrl}/account/payment`, customerId: null };
  }

  async cancelAtPeriodEnd(): Promise<void> {}
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
export async function expireLocal(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const sub = await repo.getSubscription(tx, userId, true);
    if (sub?.provider !== 'local' || sub.status === 'canceled') return;
    if (!sub.currentPeriodEnd || sub.currentPeriodEnd > new Date() || !sub.cancelAtPeriodEnd) return;
    await repo.upsertSubscription(tx, { ...sub, status: 'canceled' });
    await repo.setUserPlan(tx, userId, 'trial_scan');
  });
}
