import type { TBillingState, TCheckoutLink, TUser } from '@perimeter/contracts';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, signUp } from './support/scan-lab.ts';
import { event, last, recorded, startStripeStandIn, subscription } from './support/stripe-stand-in.ts';

type Data<T> = { data: T };

const SECRET = 'whsec_test_secret';
const sdk = new Stripe('sk_test_helper');
let t: TestApp;
let stand: Awaited<ReturnType<typeof startStripeStandIn>>;

beforeAll(async () => {
  stand = await startStripeStandIn();
  t = await createTestApp({
    STRIPE_SECRET_KEY: 'sk_test_perimeter',
    STRIPE_WEBHOOK_SECRET: SECRET,
    STRIPE_API_BASE: stand.url,
  });
});
afterAll(async () => {
  await t?.close();
  await stand?.close();
});

async function deliver(payloadObject: unknown, secret = SECRET) {
  const payload = JSON.stringify(payloadObject);
  const signature = sdk.webhooks.generateTestHeaderString({ payload, secret });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/billing/stripe/webhook',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload,
  });
  return {
    status: res.statusCode,
    body: res.json() as { received?: boolean; outcome?: string; detail?: string },
  };
}

const state = async (api: Api) => (await api.get<Data<TBillingState>>('/users/billing/state')).body.data;
const planOf = async (api: Api) => (await api.get<Data<TUser>>('/users/user')).body.data.tariffs[0]?.key;

describe('Stripe provider against a stand-in API', () => {
  let api: Api;
  let userId: string;
  beforeAll(async () => {
    ({ api, userId } = await signUp(t));
  });

  it('checkout: creates the customer, looks the promotion code up and sends the session shape', async () => {
    const link = await api.get<Data<TCheckoutLink>>(
      '/users/get_checkout_sessions_link?plan=starter&period=yearly&promo_code=SAVE20',
    );
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect(link.body.data).toEqual({
      url: 'https://checkout.stripe.test/c/cs_test_1',
      session_id: 'cs_test_1',
    });
    const customer = last('/v1/customers');
    expect(customer.auth).toBe('Bearer sk_test_perimeter');
    expect(customer.form.get('metadata[user_id]')).toBe(userId);
    const promo = last('/v1/promotion_codes');
    expect(promo.method).toBe('GET');
    expect(promo.query.get('code')).toBe('SAVE20');
    expect(promo.query.get('active')).toBe('true');
    const s = last('/v1/checkout/sessions').form;
    expect(Object.fromEntries(s)).toMatchObject({
      mode: 'subscription',
      customer: 'cus_test_1',
      client_reference_id: userId,
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '420000',
      'line_items[0][price_data][recurring][interval]': 'year',
      'metadata[plan]': 'starter',
      'metadata[period]': 'yearly',
      'subscription_data[metadata][user_id]': userId,
      'discounts[0][promotion_code]': 'promo_1',
      success_url: 'http://perimeter.test/post-payment?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://perimeter.test/choose-plan',
    });
    expect(s.has('allow_promotion_codes')).toBe(false);
  });

  it('checkout without a code allows promotion codes on the Stripe page; an unknown code is a 400', async () => {
    const before = recorded.filter((r) => r.path === '/v1/customers').length;
    const link = await api.get<Data<TCheckoutLink>>('/users/get_checkout_sessions_link?plan=try_it');
    expect(link.status).toBe(200);
    const s = last('/v1/checkout/sessions').form;
    expect(s.get('mode')).toBe('payment');
    expect(s.get('allow_promotion_codes')).toBe('true');
    expect(s.get('line_items[0][price_data][unit_amount]')).toBe('20000');
    expect(s.has('line_items[0][price_data][recurring][interval]')).toBe(false);
    // The customer was saved: no second one is created.
    expect(recorded.filter((r) => r.path === '/v1/customers').length).toBe(before);
    const bad = await api.get('/users/get_checkout_sessions_link?plan=starter&promo_code=NOPE');
    expect(bad.status).toBe(400);
    // A failing Stripe API is a 502 with a plain message, and no session is stored.
    const down = await api.get<{ detail: string }>(
      '/users/get_checkout_sessions_link?plan=starter&promo_code=BOOM',
    );
    expect(down.status).toBe(502);
    expect(down.body.detail).toMatch(/payment provider/);
  });

  it('portal link: a billing-portal session for the customer returning to /account/plan', async () => {
    const res = await api.get<Data<{ url: string }>>('/users/get_billing_portal_link');
    expect(res.body.data.url).toBe('https://billing.stripe.test/p/1');
    const p = last('/v1/billing_portal/sessions').form;
    expect(p.get('customer')).toBe('cus_test_1');
    expect(p.get('return_url')).toBe('http://perimeter.test/account/plan');
  });

  it('webhook: a valid checkout.session.completed activates the plan; the replay changes nothing', async () => {
    const completed = event(
      'checkout.session.completed',
      {
        id: 'cs_test_1',
        object: 'checkout.session',
        mode: 'subscription',
        payment_status: 'paid',
        customer: 'cus_test_1',
        client_reference_id: userId,
        subscription: 'sub_1',
        metadata: { user_id: userId, plan: 'starter', period: 'yearly' },
      },
      1_790_000_001,
    );
    const first = await deliver(completed);
    expect(first).toEqual({ status: 200, body: { received: true, outcome: 'applied' } });
    expect(await planOf(api)).toBe('starter');
    const session = await api.get<Data<{ status: string }>>(
      '/users/billing/checkout_session?session_id=cs_test_1',
    );
    expect(session.body.data.status).toBe('complete');
    const replay = await deliver(completed);
    expect(replay.body.outcome).toBe('duplicate');
  });

  it('webhook: a bad signature or a missing one is refused with 400 and nothing changes', async () => {
    const evil = event(
      'customer.subscription.deleted',
      subscription(userId, { status: 'canceled' }),
      1_790_000_500,
    );
    const res = await deliver(evil, 'whsec_wrong');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/signature/);
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/api/billing/stripe/webhook',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(evil),
    });
    expect(unsigned.statusCode).toBe(400);
    // A payload altered after signing fails too.
    const payload = JSON.stringify(evil);
    const signature = sdk.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const tampered = await t.app.inject({
      method: 'POST',
      url: '/api/billing/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload: payload.replace('canceled', 'active__'),
    });
    expect(tampered.statusCode).toBe(400);
    expect(await planOf(api)).toBe('starter');
  });

  it('webhook: out-of-order subscription updates — an older event never overwrites a newer one', async () => {
    const older = event('customer.subscription.updated', subscription(userId), 1_790_000_100);
    const newer = event(
      'customer.subscription.updated',
      subscription(userId, { cancel_at_period_end: true }),
      1_790_000_200,
    );
    expect((await deliver(newer)).body.outcome).toBe('applied');
    expect((await deliver(older)).body.outcome).toBe('ignored');
    let s = await state(api);
    expect(s.subscription).toMatchObject({
      plan: 'starter',
      period: 'yearly',
      status: 'active',
      cancel_at_period_end: true,
    });
    expect(s.subscription?.current_period_end).toBe(new Date(1_821_536_000 * 1000).toISOString());
    // Failed renewal → past_due (plan kept), then paid renewal with a new period.
    const failed = event(
      'invoice.payment_failed',
      {
        id: 'in_1',
        object: 'invoice',
        customer: 'cus_test_1',
        amount_due: 420_000,
        amount_paid: 0,
        currency: 'usd',
        parent: {
          subscription_details: { subscription: 'sub_1', metadata: { user_id: userId, plan: 'starter' } },
        },
      },
      1_790_000_300,
    );
    expect((await deliver(failed)).body.outcome).toBe('applied');
    s = await state(api);
    expect(s.subscription?.status).toBe('past_due');
    expect(s.plan).toBe('starter');
    expect(s.invoices.find((i) => i.status === 'failed')?.amount).toBe(420_000);
    const renewed = event(
      'customer.subscription.updated',
      subscription(userId, {
        items: {
          object: 'list',
          data: [
            {
              current_period_start: 1_821_536_000,
              current_period_end: 1_853_072_000,
              price: { recurring: { interval: 'year' } },
            },
          ],
        },
      }),
      1_790_000_400,
    );
    const paid = event(
      'invoice.paid',
      {
        id: 'in_2',
        object: 'invoice',
        customer: 'cus_test_1',
        amount_paid: 420_000,
        currency: 'usd',
        parent: {
          subscription_details: { subscription: 'sub_1', metadata: { user_id: userId, plan: 'starter' } },
        },
      },
      1_790_000_401,
    );
    expect((await deliver(paid)).body.outcome).toBe('applied');
    expect((await deliver(renewed)).body.outcome).toBe('applied');
    s = await state(api);
    expect(s.subscription).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect(s.subscription?.current_period_end).toBe(new Date(1_853_072_000 * 1000).toISOString());
    expect(s.invoices.map((i) => i.status).sort()).toEqual(['failed', 'paid']);
  });

  it('cancel: asks Stripe to cancel at the period end', async () => {
    const res = await api.post<Data<TBillingState>>('/users/billing/cancel_subscription');
    expect(res.status).toBe(200);
    const call = last('/v1/subscriptions/sub_1');
    expect(call.method).toBe('POST');
    expect(call.form.get('cancel_at_period_end')).toBe('true');
    expect(res.body.data.subscription?.cancel_at_period_end).toBe(true);
    // Changing the plan of a live Stripe subscription goes through the portal.
    const change = await api.get<Data<TCheckoutLink>>(
      '/users/get_checkout_sessions_link?plan=business&period=monthly',
    );
    expect(change.body.data.url).toBe('https://billing.stripe.test/p/1');
  });

  it('webhook: deletion ends the plan; a late update of the deleted subscription is ignored', async () => {
    const deleted = event(
      'customer.subscription.deleted',
      subscription(userId, { status: 'canceled' }),
      1_790_000_600,
    );
    expect((await deliver(deleted)).body.outcome).toBe('applied');
    expect(await planOf(api)).toBe('trial_scan');
    const late = event('customer.subscription.updated', subscription(userId), 1_790_000_550);
    expect((await deliver(late)).body.outcome).toBe('ignored');
    const lateButNewer = event('customer.subscription.updated', subscription(userId), 1_790_000_700);
    expect((await deliver(lateButNewer)).body.outcome).toBe('ignored');
    expect(await planOf(api)).toBe('trial_scan');
  });

  it('webhook: a one-time try_it payment sets the plan and records the payment once', async () => {
    const other = await signUp(t);
    const link = await other.api.get<Data<TCheckoutLink>>('/users/get_checkout_sessions_link?plan=try_it');
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const completed = event(
      'checkout.session.completed',
      {
        id: link.body.data.session_id,
        object: 'checkout.session',
        mode: 'payment',
        payment_status: 'paid',
        customer: 'cus_test_2',
        client_reference_id: other.userId,
        payment_intent: 'pi_1',
        amount_total: 20_000,
        currency: 'usd',
        metadata: { user_id: other.userId, plan: 'try_it' },
      },
      1_790_001_000,
    );
    expect((await deliver(completed)).body.outcome).toBe('applied');
    expect((await deliver(completed)).body.outcome).toBe('duplicate');
    expect(await planOf(other.api)).toBe('try_it');
    const s = await state(other.api);
    expect(s.invoices).toHaveLength(1);
    expect(s.invoices[0]).toMatchObject({
      amount: 20_000,
      status: 'paid',
      description: 'Try it! (one-time)',
    });
  });
});
