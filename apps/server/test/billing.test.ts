import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type {
  TAvailableTariffs,
  TBillingState,
  TCheckoutLink,
  TCheckoutSession,
  TTariffsInfo,
  TUser,
} from '@perimeter/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLocalCard, isNewer } from '../src/modules/billing/billing-fns.ts';
import { createTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.ts';
import { type Api, REPO_ROOT, signUp } from './support/scan-lab.ts';

type Data<T> = { data: T };
type Err = { detail: string; code: string; fields?: Record<string, string[]> };

const VISA = '4242 4242 4242 4242';
const DECLINED = '4000000000000002';

async function buy(api: Api, plan: string, period = 'monthly', promo?: string): Promise<TCheckoutSession> {
  const q = `plan=${plan}&period=${period}${promo ? `&promo_code=${promo}` : ''}`;
  const link = await api.get<Data<TCheckoutLink>>(`/users/get_checkout_sessions_link?${q}`);
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  const paid = await api.post<Data<TCheckoutSession>>('/users/billing/local_pay', {
    session_id: link.body.data.session_id,
    card_number: VISA,
    name_on_card: 'Ada Lovelace',
    expiry: '12/39',
    cvc: '123',
    remember_card: true,
  });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data;
}

const addTargets = (api: Api, targets: unknown[]) =>
  api.post<Err>('/main/user_target/add_targets', { targets });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ BILLING_CURRENCY: 'aed' });
});
afterAll(async () => t?.close());

describe('plans and tariffs endpoints', () => {
  it('get_tariffs_info returns the five plans with display fields, filtered by type, and the configured currency', async () => {
    const { api } = await signUp(t);
    const all = await api.get<Data<TTariffsInfo>>(
      '/users/get_tariffs_info?tariffs_types=subscription&tariffs_types=payment',
    );
    expect(all.status).toBe(200);
    expect(all.body.data.currency).toBe('aed');
    expect(Object.keys(all.body.data.tariffs).sort()).toEqual(
      ['business', 'enterprise', 'starter', 'trial_scan', 'try_it'].sort(),
    );
    const starter = all.body.data.tariffs.starter;
    expect(starter?.name).toBe('Starter');
    expect(starter?.price).toEqual({ monthly: ['350', '500'], yearly: '4,200' });
    expect(starter?.limitations).toEqual(['1 domain', '100 external IPs', '30 subdomains']);
    expect(all.body.data.tariffs.business?.price).toEqual({ monthly: ['700', '1,000'], yearly: '8,400' });
    expect(all.body.data.tariffs.enterprise?.isEnterprise).toBe(true);
    expect(all.body.data.tariffs.try_it?.name).toBe('Try it!');
    const subs = await api.get<Data<TTariffsInfo>>('/users/get_tariffs_info?tariffs_types=subscription');
    expect(Object.keys(subs.body.data.tariffs).sort()).toEqual(['business', 'enterprise', 'starter']);
    const pay = await api.get<Data<TTariffsInfo>>('/users/get_tariffs_info?tariffs_types=payment');
    expect(Object.keys(pay.body.data.tariffs).sort()).toEqual(['trial_scan', 'try_it']);
    const bad = await api.get<Err>('/users/get_tariffs_info?tariffs_types=gold');
    expect(bad.status).toBe(400);
  });

  it('requires sign-in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/users/get_available_tariffs' });
    expect(res.statusCode).toBe(401);
  });

  it('available tariffs: a trial user can buy try_it, starter and business; enterprise is on request', async () => {
    const { api } = await signUp(t);
    const res = await api.get<Data<TAvailableTariffs>>('/users/get_available_tariffs');
    expect(res.body.data).toEqual({
      current: 'trial_scan',
      available: ['try_it', 'starter', 'business'],
      on_request: ['enterprise'],
      currency: 'aed',
    });
  });

  it('checkout link: refuses enterprise, unknown periods and unknown promo codes with 400', async () => {
    const { api } = await signUp(t);
    expect((await api.get('/users/get_checkout_sessions_link?plan=enterprise')).status).toBe(400);
    expect((await api.get('/users/get_checkout_sessions_link?plan=starter&period=weekly')).status).toBe(400);
    const promo = await api.get<Err>('/users/get_checkout_sessions_link?plan=starter&promo_code=NOPE');
    expect(promo.status).toBe(400);
    expect(promo.body.fields?.promo_code).toBeDefined();
  });

  it('the Stripe webhook answers 404 while Stripe is not configured', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/billing/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(404);
  });

  it('the portal link of the local provider is the in-app payment page', async () => {
    const { api } = await signUp(t);
    const res = await api.get<Data<{ url: string }>>('/users/get_billing_portal_link');
    expect(res.body.data.url).toBe('http://perimeter.test/account/payment');
  });
});

describe('local provider checkout', () => {
  it('starter yearly with a promo code: link to the in-app page, test card paid, plan and tariffs updated', async () => {
    const { api } = await signUp(t);
    const link = await api.get<Data<TCheckoutLink>>(
      '/users/get_checkout_sessions_link?plan=starter&period=yearly&promo_code=welcome10',
    );
    expect(link.status).toBe(200);
    expect(link.body.data.url).toBe(`http://perimeter.test/checkout/${link.body.data.session_id}`);
    const session = await api.get<Data<TCheckoutSession>>(
      `/users/billing/checkout_session?session_id=${link.body.data.session_id}`,
    );
    expect(session.body.data).toMatchObject({
      plan: 'starter',
      period: 'yearly',
      mode: 'subscription',
      status: 'open',
      amount: 378_000,
      discount: 42_000,
      currency: 'aed',
      promo_code: 'WELCOME10',
    });
    const paid = await api.post<Data<TCheckoutSession>>('/users/billing/local_pay', {
      session_id: link.body.data.session_id,
      card_number: VISA,
      name_on_card: 'Ada Lovelace',
      expiry: '12/39',
      cvc: '123',
      remember_card: true,
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data.status).toBe('complete');
    const user = await api.get<Data<TUser>>('/users/user');
    expect(user.body.data.tariffs[0]).toEqual({ key: 'starter', name: 'Starter' });
    const state = await api.get<Data<TBillingState>>('/users/billing/state');
    expect(state.body.data.plan).toBe('starter');
    expect(state.body.data.subscription).toMatchObject({
      plan: 'starter',
      period: 'yearly',
      status: 'active',
    });
    expect(state.body.data.card).toEqual({ brand: 'visa', last4: '4242' });
    expect(state.body.data.invoices).toHaveLength(1);
    expect(state.body.data.invoices[0]).toMatchObject({
      amount: 378_000,
      status: 'paid',
      card: 'visa •••• 4242',
    });
    // Paying the same session twice is refused.
    const again = await api.post<Err>('/users/billing/local_pay', {
      session_id: link.body.data.session_id,
      card_number: VISA,
      name_on_card: 'Ada Lovelace',
      expiry: '12/39',
      cvc: '123',
    });
    expect(again.status).toBe(409);
    // Only brand and last four are stored: the full number appears nowhere in the database.
    const dump = await t.runtime.ctx.database.pool.query(
      'select row_to_json(x)::text as j from (select * from billing_customers union all select null, null, null, null, null) x',
    );
    expect(JSON.stringify(dump.rows)).not.toContain('4242424242424242');
    const invoices = await t.runtime.ctx.database.pool.query(
      'select row_to_json(i)::text as j from billing_invoices i',
    );
    expect(JSON.stringify(invoices.rows)).not.toContain('4242424242424242');
  });

  it('validates the card: Luhn, expiry, unknown numbers; a declined test card fails the session', async () => {
    const { api } = await signUp(t);
    const link = await api.get<Data<TCheckoutLink>>('/users/get_checkout_sessions_link?plan=try_it');
    const pay = (card_number: string, expiry = '12/39') =>
      api.post<Err & Data<TCheckoutSession>>('/users/billing/local_pay', {
        session_id: link.body.data.session_id,
        card_number,
        name_on_card: 'Ada',
        expiry,
        cvc: '123',
      });
    const luhn = await pay('4242424242424241');
    expect(luhn.status).toBe(400);
    expect(luhn.body.fields?.card_number).toBeDefined();
    const expired = await pay(VISA, '01/20');
    expect(expired.status).toBe(400);
    expect(expired.body.fields?.expiry).toBeDefined();
    const unknown = await pay('4111111111111111');
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatch(/test cards/);
    const declined = await pay(DECLINED);
    expect(declined.status).toBe(200);
    expect(declined.body.data.status).toBe('failed');
    expect(declined.body.data.failure_reason).toMatch(/declined/);
    expect((await api.get<Data<TUser>>('/users/user')).body.data.tariffs[0]?.key).toBe('trial_scan');
    // A failed session can be paid again with a good card.
    const ok = await pay(VISA);
    expect(ok.body.data.status).toBe('complete');
    expect((await api.get<Data<TUser>>('/users/user')).body.data.tariffs[0]?.key).toBe('try_it');
    const state = await api.get<Data<TBillingState>>('/users/billing/state');
    expect(state.body.data.invoices.map((i) => i.status).sort()).toEqual(['failed', 'paid']);
    expect(state.body.data.card).toBeNull(); // remember_card was off
  });

  it('a local checkout left unpaid for more than a day expires', async () => {
    const { api } = await signUp(t);
    const link = await api.get<Data<TCheckoutLink>>('/users/get_checkout_sessions_link?plan=starter');
    await t.runtime.ctx.database.pool.query(
      "update checkout_sessions set created_at = now() - interval '2 days' where id = $1",
      [link.body.data.session_id],
    );
    const pay = await api.post<Err>('/users/billing/local_pay', {
      session_id: link.body.data.session_id,
      card_number: VISA,
      name_on_card: 'Ada',
      expiry: '12/39',
      cvc: '123',
    });
    expect(pay.status).toBe(409);
    expect(pay.body.detail).toMatch(/expired/);
    const s = await api.get<Data<TCheckoutSession>>(
      `/users/billing/checkout_session?session_id=${link.body.data.session_id}`,
    );
    expect(s.body.data.status).toBe('expired');
    expect((await api.get<Data<TUser>>('/users/user')).body.data.tariffs[0]?.key).toBe('trial_scan');
  });

  it("another user's checkout session is not found", async () => {
    const a = await signUp(t);
    const b = await signUp(t);
    const link = await a.api.get<Data<TCheckoutLink>>('/users/get_checkout_sessions_link?plan=starter');
    const peek = await b.api.get(`/users/billing/checkout_session?session_id=${link.body.data.session_id}`);
    expect(peek.status).toBe(404);
    const pay = await b.api.post('/users/billing/local_pay', {
      session_id: link.body.data.session_id,
      card_number: VISA,
      name_on_card: 'Eve',
      expiry: '12/39',
      cvc: '123',
    });
    expect(pay.status).toBe(404);
  });

  it('a subscriber cannot buy try_it or the same subscription again; cancel keeps the plan to the period end', async () => {
    const { api } = await signUp(t);
    await buy(api, 'starter', 'monthly');
    expect((await api.get('/users/get_checkout_sessions_link?plan=try_it')).status).toBe(409);
    expect((await api.get('/users/get_checkout_sessions_link?plan=starter&period=monthly')).status).toBe(409);
    const avail = await api.get<Data<TAvailableTariffs>>('/users/get_available_tariffs');
    expect(avail.body.data.available).toEqual(['starter', 'business']);
    const cancel = await api.post<Data<TBillingState>>('/users/billing/cancel_subscription');
    expect(cancel.status).toBe(200);
    expect(cancel.body.data.subscription?.cancel_at_period_end).toBe(true);
    expect(cancel.body.data.plan).toBe('starter');
    // Past the period end the plan falls back to the trial.
    await t.runtime.ctx.database.pool.query(
      "update billing_subscriptions set current_period_end = now() - interval '1 minute'",
    );
    const later = await api.get<Data<TBillingState>>('/users/billing/state');
    expect(later.body.data.plan).toBe('trial_scan');
    expect(later.body.data.subscription?.status).toBe('canceled');
    expect((await api.post('/users/billing/cancel_subscription')).status).toBe(409);
  });
});

describe('plan limits through the API (enforced by the targets module from PLAN_LIMITS)', () => {
  it('trial and starter: one domain; starter refuses a second, business accepts up to three', async () => {
    const { api } = await signUp(t);
    expect((await addTargets(api, ['acme-one.example.org'])).status).toBe(201);
    expect((await addTargets(api, ['acme-two.example.org'])).status).toBe(403);
    await buy(api, 'starter', 'yearly');
    const refused = await addTargets(api, ['acme-two.example.org']);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/Starter plan allows 1 domain/);
    await buy(api, 'business', 'monthly');
    expect((await addTargets(api, ['acme-two.example.org', 'acme-three.example.org'])).status).toBe(201);
    const fourth = await addTargets(api, ['acme-four.example.org']);
    expect(fourth.status).toBe(403);
    expect(fourth.body.detail).toMatch(/Business plan allows 3 domains/);
    const state = await api.get<Data<TBillingState>>('/users/billing/state');
    expect(state.body.data.usage.domains).toBe(3);
    expect(state.body.data.subscription).toMatchObject({ plan: 'business', period: 'monthly' });
  });

  it('external IPs: starter 100 (a /25 refused, a /26 accepted), business 1000 (a /22 refused, a /23 accepted)', async () => {
    const starter = await signUp(t, 'starter');
    expect((await addTargets(starter.api, ['8.8.4.0/25'])).status).toBe(403);
    expect((await addTargets(starter.api, ['8.8.4.0/26'])).status).toBe(201);
    const business = await signUp(t, 'business');
    expect((await addTargets(business.api, ['9.9.0.0/22'])).status).toBe(403);
    expect((await addTargets(business.api, ['9.9.0.0/23'])).status).toBe(201);
  });

  it('enterprise: domains by request (no fixed limit)', async () => {
    const { api } = await signUp(t, 'enterprise');
    const many = Array.from({ length: 6 }, (_, i) => `corp${i}.example.org`);
    expect((await addTargets(api, many)).status).toBe(201);
    // Enterprise is changed by the team, not through checkout.
    expect((await api.get('/users/get_checkout_sessions_link?plan=business')).status).toBe(409);
  });
});

describe('operator command plans assign', () => {
  const run = promisify(execFile);
  it('assigns enterprise to a user by e-mail; unknown plans and users are refused', async () => {
    const { api, email } = await signUp(t);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-billing-cli-'));
    const cli = (...args: string[]) =>
      run(
        path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
        [path.join(REPO_ROOT, 'apps/server/src/cli.ts'), ...args],
        {
          env: {
            ...process.env,
            DATABASE_URL: t.databaseUrl,
            PERIMETER_DATA_DIR: dir,
            PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
            JWT_SECRET: TEST_JWT_SECRET,
            LOG_LEVEL: 'silent',
          },
          timeout: 60_000,
        },
      );
    try {
      const { stdout } = await cli('plans', 'assign', email.toUpperCase(), 'enterprise');
      expect(stdout).toContain('plan enterprise');
      const user = await api.get<Data<TUser>>('/users/user');
      expect(user.body.data.tariffs[0]).toEqual({ key: 'enterprise', name: 'Enterprise' });
      await expect(cli('plans', 'assign', email, 'gold')).rejects.toMatchObject({ code: 64 });
      await expect(cli('plans', 'assign', 'nobody@example.com', 'starter')).rejects.toMatchObject({
        code: 64,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('pure functions', () => {
  it('checkLocalCard: Luhn, expiry, the test-card table', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    expect(checkLocalCard('4242424242424242', '11/26', now)).toMatchObject({
      ok: true,
      brand: 'visa',
      last4: '4242',
    });
    expect(checkLocalCard('4242424242424242', '10/26', now)).toMatchObject({ ok: false, field: 'expiry' });
    expect(checkLocalCard('5555555555554444', '01/2030', now)).toMatchObject({
      ok: true,
      brand: 'mastercard',
    });
    expect(checkLocalCard('5555555555554445', '01/30', now)).toMatchObject({
      ok: false,
      field: 'card_number',
    });
    expect(checkLocalCard('4000000000000002', '01/30', now)).toMatchObject({ ok: true, outcome: 'declined' });
  });

  it('isNewer: newer events apply, older ones do not, canceled stays canceled', () => {
    const stored = { lastEventCreated: 100, periodStart: 50, status: 'active' };
    expect(isNewer(stored, { created: 101, periodStart: 50, status: 'active' })).toBe(true);
    expect(isNewer(stored, { created: 99, periodStart: 60, status: 'active' })).toBe(false);
    expect(isNewer(stored, { created: 100, periodStart: 40, status: 'active' })).toBe(false);
    expect(isNewer(stored, { created: 100, periodStart: 60, status: 'active' })).toBe(true);
    expect(
      isNewer({ ...stored, status: 'canceled' }, { created: 200, periodStart: 60, status: 'active' }),
    ).toBe(false);
  });
});
