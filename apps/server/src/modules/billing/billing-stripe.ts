import Stripe from 'stripe';
import type { TEnv } from '../../lib/config/index.ts';
import { AppError, badRequest } from '../../lib/errors.ts';
import type { BillingProvider, CheckoutInput, CheckoutResult } from './billing-provider.ts';

const PRICE_ENV: Record<string, keyof TEnv> = {
  'try_it:monthly': 'STRIPE_PRICE_TRY_IT',
  'try_it:yearly': 'STRIPE_PRICE_TRY_IT',
  'starter:monthly': 'STRIPE_PRICE_STARTER_MONTHLY',
  'starter:yearly': 'STRIPE_PRICE_STARTER_YEARLY',
  'business:monthly': 'STRIPE_PRICE_BUSINESS_MONTHLY',
  'business:yearly': 'STRIPE_PRICE_BUSINESS_YEARLY',
};

export function stripeClient(env: TEnv): Stripe {
  const base = env.STRIPE_API_BASE ? new URL(env.STRIPE_API_BASE) : null;
  return new Stripe(env.STRIPE_SECRET_KEY ?? 'sk_test_unset', {
    maxNetworkRetries: 1,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'http:' ? 80 : 443),
          protocol: base.protocol === 'http:' ? 'http' : 'https',
        }
      : {}),
  });
}

/** A failure of the Stripe API (network, 5xx, bad configuration) → 502 with a plain message. */
async function viaStripe<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(502, 'internal_error', 'The payment provider did not answer. Try again in a moment.');
  }
}

/** Stripe Checkout, promotion codes and the customer portal. Card data never reaches us. */
export class StripeBillingProvider implements BillingProvider {
  readonly name = 'stripe' as const;
  readonly changesPlansInPortal = true;
  constructor(
    private readonly stripe: Stripe,
    private readonly env: TEnv,
    private readonly publicUrl: string,
  ) {}

  private async ensureCustomer(userId: string, email: string, customerId: string | null): Promise<string> {
    if (customerId) return customerId;
    const customer = await this.stripe.customers.create({ email, metadata: { user_id: userId } });
    return customer.id;
  }

  createCheckout(input: CheckoutInput): Promise<CheckoutResult> {
    return viaStripe(() => this.checkout(input));
  }

  private async checkout(input: CheckoutInput): Promise<CheckoutResult> {
    let promotionCodeId: string | null = null;
    if (input.promoCode) {
      const found = await this.stripe.promotionCodes.list({ code: input.promoCode, active: true, limit: 1 });
      const promo = found.data[0];
      if (!promo) throw badRequest('Unknown promo code.', { promo_code: ['Unknown promo code.'] });
      promotionCodeId = promo.id;
    }
    const customer = await this.ensureCustomer(input.userId, input.email, input.customerId);
    const priceId = this.env[PRICE_ENV[`${input.plan}:${input.period}`] as keyof TEnv] as string | undefined;
    const metadata = { user_id: input.userId, plan: input.plan, period: input.period };
    const lineItem = priceId
      ? { price: priceId, quantity: 1 }
      : {
          quantity: 1,
          price_data: {
            currency: input.currency,
            unit_amount: input.amount,
            product_data: { name: `Perimeter ${input.plan}` },
            ...(input.mode === 'subscription'
              ? {
                  recurring: { interval: input.period === 'yearly' ? ('year' as const) : ('month' as const) },
                }
              : {}),
          },
        };
    const session = await this.stripe.checkout.sessions.create({
      mode: input.mode,
      customer,
      client_reference_id: input.userId,
      line_items: [lineItem],
      metadata,
      ...(input.mode === 'subscription' ? { subscription_data: { metadata } } : {}),
      ...(promotionCodeId
        ? { discounts: [{ promotion_code: promotionCodeId }] }
        : { allow_promotion_codes: true }),
      success_url: `${this.publicUrl}/post-payment?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${this.publicUrl}/choose-plan`,
    });
    if (!session.url) throw new Error('Stripe returned a checkout session without a URL.');
    return { id: session.id, url: session.url, discount: 0, customerId: customer };
  }

  portalLink(input: { userId: string; email: string; customerId: string | null }) {
    return viaStripe(() => this.portal(input));
  }

  private async portal(input: { userId: string; email: string; customerId: string | null }) {
    const customer = await this.ensureCustomer(input.userId, input.email, input.customerId);
    const portal = await this.stripe.billingPortal.sessions.create({
      customer,
      return_url: `${this.publicUrl}/account/plan`,
    });
    return { url: portal.url, customerId: customer };
  }

  async cancelAtPeriodEnd(externalSubscriptionId: string): Promise<void> {
    await viaStripe(() =>
      this.stripe.subscriptions.update(externalSubscriptionId, { cancel_at_period_end: true }),
    );
  }
}
