import type { TBillingPeriod, TCurrency, TPurchasablePlan } from '@perimeter/contracts';
import type { TEnv } from '../../lib/config/index.ts';
import { LocalBillingProvider } from './billing-local.ts';
import { StripeBillingProvider, stripeClient } from './billing-stripe.ts';

export interface CheckoutInput {
  userId: string;
  email: string;
  /** The provider's customer id when one exists (Stripe). */
  customerId: string | null;
  plan: TPurchasablePlan;
  period: TBillingPeriod;
  mode: 'subscription' | 'payment';
  amount: number;
  currency: TCurrency;
  promoCode: string | null;
}

export interface CheckoutResult {
  id: string;
  url: string;
  discount: number;
  /** A customer the provider created on the way (saved by the service). */
  customerId: string | null;
}

/** What the billing service needs from a payment provider. Network calls happen outside transactions. */
export interface BillingProvider {
  readonly name: 'local' | 'stripe';
  /** A live subscription changes plan in the provider's own portal (its prorations), not by a new checkout. */
  readonly changesPlansInPortal: boolean;
  createCheckout(input: CheckoutInput): Promise<CheckoutResult>;
  portalLink(input: { userId: string; email: string; customerId: string | null }): Promise<{
    url: string;
    customerId: string | null;
  }>;
  cancelAtPeriodEnd(externalSubscriptionId: string): Promise<void>;
}

/** The configured provider: Stripe with STRIPE_SECRET_KEY, else the local one (one per app context). */
export function createBillingProvider(env: TEnv, publicUrl: string): BillingProvider {
  return env.STRIPE_SECRET_KEY
    ? new StripeBillingProvider(stripeClient(env), env, publicUrl)
    : new LocalBillingProvider(publicUrl, env.BILLING_LOCAL_PROMO_CODES);
}
