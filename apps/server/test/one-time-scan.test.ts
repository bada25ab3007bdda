import type { TBillingState, TCheckoutLink, TCheckoutSession } from '@perimeter/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanBridge } from '../src/modules/schedules/schedules-scan-adapter.ts';
import { createScheduler } from '../src/modules/schedules/schedules-scheduler.ts';
import { createSchedule } from '../src/modules/schedules/schedules-service.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, signUp } from './support/scan-lab.ts';

/**
 * try_it is a one-time scan (issue 8): each paid one-time payment allows exactly one scan, used by
 * the scan's creation; the scheduler creates scans through the same function (issue 6) and so is
 * refused the same way.
 */
let t: TestApp;

type Data<T> = { data: T };
type Err = { detail: string };
const VISA = '4242 4242 4242 4242';

beforeAll(async () => {
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
});
afterAll(async () => t?.close());

async function addDomain(api: Api, domain: string): Promise<string> {
  const add = await api.post<Data<{ added: { user_target_id: string }[] }>>('/main/user_target/add_targets', {
    targets: [domain],
  });
  expect(add.status, JSON.stringify(add.body)).toBe(201);
  return add.body.data.added[0]?.user_target_id as string;
}

/** Buys try_it through the local provider's checkout with a test card. */
async function buyTryIt(api: Api): Promise<void> {
  const link = await api.get<Data<TCheckoutLink>>('/users/get_checkout_sessions_link?plan=try_it');
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  const pay = await api.post<Data<TCheckoutSession>>('/users/billing/local_pay', {
    session_id: link.body.data.session_id,
    card_number: VISA,
    name_on_card: 'Ada Lovelace',
    expiry: '12/39',
    cvc: '123',
  });
  expect(pay.status, JSON.stringify(pay.body)).toBe(200);
  expect(pay.body.data.status).toBe('complete');
}

const createBody = (targetId: string) => ({
  targets: [{ target_type: 'domain', user_target_id: targetId }],
  scan_type: 'full',
});

async function oneTimeLeft(api: Api): Promise<number | undefined> {
  const state = await api.get<Data<TBillingState>>('/users/billing/state');
  expect(state.status).toBe(200);
  return state.body.data.usage.one_time_scans_left;
}

describe('try_it: one scan per one-time payment', () => {
  it('a paid try_it allows exactly one scan; the second is a 403 naming the limit; another payment allows one more', async () => {
    const { api } = await signUp(t);
    const targetId = await addDomain(api, 'once.example.com');
    await buyTryIt(api);
    expect(await oneTimeLeft(api)).toBe(1);
    const first = await api.post('/main/create_abstract_scan', createBody(targetId));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(await oneTimeLeft(api)).toBe(0);
    const second = await api.post<Err>('/main/create_abstract_scan', createBody(targetId));
    expect(second.status).toBe(403);
    expect(second.body.detail).toMatch(/Try it!/);
    expect(second.body.detail).toMatch(/one-time scan/);
    await buyTryIt(api);
    expect(await oneTimeLeft(api)).toBe(1);
    const third = await api.post('/main/create_abstract_scan', createBody(targetId));
    expect(third.status, JSON.stringify(third.body)).toBe(201);
    expect((await api.post('/main/create_abstract_scan', createBody(targetId))).status).toBe(403);
  });

  it('the try_it plan without a paid payment creates no scan', async () => {
    const { api } = await signUp(t, 'try_it');
    const targetId = await addDomain(api, 'unpaid.example.com');
    const res = await api.post<Err>('/main/create_abstract_scan', createBody(targetId));
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/one-time payment/);
    const list = await api.get<Data<{ total: number }>>('/main/get_user_abstract_scans_stats');
    expect(list.body.data.total).toBe(0);
  });

  it('concurrent creations use one payment once: exactly one scan is created', async () => {
    const { api, userId } = await signUp(t);
    const targetId = await addDomain(api, 'race.example.com');
    await buyTryIt(api);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => api.post('/main/create_abstract_scan', createBody(targetId))),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403, 403, 403, 403]);
    const { rows } = await t.runtime.ctx.database.pool.query<{ n: number; bound: number }>(
      `select (select count(*)::int from scans where user_id = $1) as n,
              (select count(consumed_scan_id)::int from billing_invoices where user_id = $1) as bound`,
      [userId],
    );
    expect(rows[0]).toEqual({ n: 1, bound: 1 });
  });

  it('other plans are not one-time: a starter user creates scans without any payment record', async () => {
    const { api } = await signUp(t, 'starter');
    const targetId = await addDomain(api, 'starter.example.com');
    expect((await api.post('/main/create_abstract_scan', createBody(targetId))).status).toBe(201);
    expect((await api.post('/main/create_abstract_scan', createBody(targetId))).status).toBe(201);
  });
});

describe('scheduled scans are created by the same function as create_abstract_scan', () => {
  /** Schedules a Monday 03:00 UTC run, runs `before`, ticks the scheduler at that time: the run's error. */
  async function scheduledRunError(
    userId: string,
    targetId: string,
    before: () => Promise<unknown> = async () => {},
  ): Promise<string | null> {
    const pool = t.runtime.ctx.database.pool;
    await pool.query(`update users set tz = 'UTC' where id = $1`, [userId]);
    const s = await createSchedule(
      t.runtime.ctx,
      scanBridge,
      userId,
      {
        targets: [{ target_type: 'domain', user_target_id: targetId }],
        days: ['mon'],
        start_time: '03:00',
        tz: 'UTC',
      },
      new Date('2027-03-01T00:00:00Z'), // a Monday
    );
    await before();
    await pool.query('delete from scan_schedules where id <> $1', [s.scan_schedule_id]);
    const sched = createScheduler(t.runtime.ctx, {
      bridge: scanBridge,
      now: () => new Date('2027-03-01T03:00:30Z'),
    });
    expect(await sched.tick()).toMatchObject({ failed: 1, started: 0 });
    const { rows } = await pool.query<{ error: string | null }>(
      'select error from scan_schedule_runs where schedule_id = $1',
      [s.scan_schedule_id],
    );
    return rows[0]?.error ?? null;
  }

  it('an unpaid try_it user: the scheduler records the API’s 403 detail', async () => {
    const { api, userId } = await signUp(t, 'try_it');
    const targetId = await addDomain(api, 'sched-unpaid.example.com');
    const viaApi = await api.post<Err>('/main/create_abstract_scan', createBody(targetId));
    expect(viaApi.status).toBe(403);
    expect(await scheduledRunError(userId, targetId)).toBe(viaApi.body.detail);
  });

  it('a target disabled after scheduling: the scheduler records the API’s 409 detail', async () => {
    const { api, userId } = await signUp(t, 'business');
    const targetId = await addDomain(api, 'sched-disabled.example.com');
    const error = await scheduledRunError(userId, targetId, () =>
      t.runtime.ctx.database.pool.query('update targets set disabled = true where id = $1', [targetId]),
    );
    const viaApi = await api.post<Err>('/main/create_abstract_scan', createBody(targetId));
    expect(viaApi.status).toBe(409);
    expect(error).toBe(viaApi.body.detail);
  });
});
