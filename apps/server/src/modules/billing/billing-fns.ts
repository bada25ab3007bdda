import {
  cardBrand,
  expiryValid,
  luhnValid,
  PLAN_AMOUNTS,
  type TBillingPeriod,
  type TCheckoutSession,
  type TPurchasablePlan,
  ZBillingPeriod,
  ZCurrency,
  ZPurchasablePlan,
} from '@perimeter/contracts';
import { z } from 'zod';
import type { CheckoutRow } from './billing-repo.ts';

/** Mode of a checkout: try_it is a one-time payment, the others are subscriptions. */
export const checkoutMode = (plan: TPurchasablePlan): 'payment' | 'subscription' =>
  plan === 'try_it' ? 'payment' : 'subscription';

export const amountOf = (plan: TPurchasablePlan, period: TBillingPeriod): number =>
  PLAN_AMOUNTS[plan][plan === 'try_it' ? 'monthly' : period];

/** BILLING_LOCAL_PROMO_CODES "CODE:percent,..." → upper-cased code → percent (1…100). */
export function parsePromoCodes(spec: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of spec.split(',')) {
    const [code, pct] = part.split(':');
    const n = Number(pct);
    if (code && Number.isInteger(n) && n > 0 && n <= 100) out.set(code.toUpperCase(), n);
  }
  return out;
}

export const discountOf = (amount: number, percent: number): number => Math.round((amount * percent) / 100);

/** The local provider's test cards (docs/billing.md). Any other number is refused. */
export const LOCAL_TEST_CARDS: Record<string, { outcome: 'success' | 'declined'; reason?: string }> = {
  '4242424242424242': { outcome: 'success' },
  '5555555555554444': { outcome: 'success' },
  '378282246310005': { outcome: 'success' },
  '4000000000000002': { outcome: 'declined', reason: 'Your card was declined.' },
  '4000000000009995': { outcome: 'declined', reason: 'Your card has insufficient funds.' },
};

export type CardCheck =
  | { ok: true; brand: string; last4: string; outcome: 'success' | 'declined'; reason?: string }
  | { ok: false; field: 'card_number' | 'expiry'; message: string };

/** Validates the card form (Luhn, expiry) and looks the number up among the test cards. */
export function checkLocalCard(number: string, expiry: string, now: Date = new Date()): CardCheck {
  if (!luhnValid(number)) return { ok: false, field: 'card_number', message: 'The card number is invalid.' };
  if (!expiryValid(expiry, now)) return { ok: false, field: 'expiry', message: 'The card has expired.' };
  const test = LOCAL_TEST_CARDS[number];
  if (!test)
    return {
      ok: false,
      field: 'card_number',
      message: 'The local payment provider accepts only the test cards listed in docs/billing.md.',
    };
  return { ok: true, brand: cardBrand(number), last4: number.slice(-4), ...test };
}

export function addPeriod(from: Date, period: TBillingPeriod): Date {
  const d = new Date(from);
  if (period === 'yearly') d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}

/** Stripe subscription statuses → what the user's plan becomes. */
export function planEffect(status: string): 'grant' | 'keep' | 'revoke' {
  if (status === 'active' || status === 'trialing') return 'grant';
  if (status === 'past_due' || status === 'incomplete') return 'keep';
  return 'revoke';
}

/**
 * Out-of-order safety: an update applies only when it is not older than the last applied one,
 * ordered by (event.created, current_period_start); once canceled, a subscription stays canceled.
 */
export function isNewer(
  stored: { lastEventCreated: number; periodStart: number | null; status: string },
  incoming: { created: number; periodStart: number | null; status: string },
): boolean {
  if (stored.status === 'canceled' && incoming.status !== 'canceled') return false;
  if (incoming.created !== stored.lastEventCreated) return incoming.created > stored.lastEventCreated;
  return (incoming.periodStart ?? 0) >= (stored.periodStart ?? 0);
}

/** A checkout row as the API shows it. */
export function toSessionDto(row: CheckoutRow): TCheckoutSession {
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
