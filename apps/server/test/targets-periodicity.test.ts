import type { TExtendedTarget, TScanSchedule } from '@perimeter/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, signUp } from './support/scan-lab.ts';

/** get_extend_targets_info / get_info_by_id: `periodicity` comes from the target's enabled schedules. */
let t: TestApp;
let api: Api;

type Data<T> = { data: T };

beforeAll(async () => {
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
  let userId: string;
  ({ api, userId } = await signUp(t, 'enterprise'));
  await t.runtime.ctx.database.pool.query(`update users set tz = 'Europe/Berlin' where id = $1`, [userId]);
});
afterAll(async () => t?.close());

async function addDomain(domain: string): Promise<string> {
  const add = await api.post<Data<{ added: { user_target_id: string }[] }>>('/main/user_target/add_targets', {
    targets: [domain],
  });
  expect(add.status, JSON.stringify(add.body)).toBe(201);
  return add.body.data.added[0]?.user_target_id as string;
}

async function periodicityOf(id: string): Promise<string | null | undefined> {
  const all = await api.get<Data<Record<string, TExtendedTarget[]>>>(
    '/main/user_target/get_extend_targets_info?targets_type=domain',
  );
  expect(all.status).toBe(200);
  const one = await api.get<Data<TExtendedTarget>>(
    `/main/user_target/get_info_by_id?target_type=domain&user_target_id=${id}`,
  );
  expect(one.status).toBe(200);
  const fromList = all.body.data.domain?.find((x) => x.user_target_id === id)?.periodicity;
  expect(one.body.data.periodicity).toBe(fromList);
  return fromList;
}

describe('periodicity', () => {
  it('is null without a schedule, describes each enabled schedule, and is null again once disabled', async () => {
    const a = await addDomain('periodic-a.example.com');
    const b = await addDomain('periodic-b.example.com');
    expect(await periodicityOf(a)).toBeNull();

    const weekly = await api.post<Data<TScanSchedule>>('/users/create_scan_schedule', {
      targets: [{ target_type: 'domain', user_target_id: a }],
    });
    expect(weekly.status, JSON.stringify(weekly.body)).toBe(201);
    expect(await periodicityOf(a)).toBe('Weekly: Sat 02:00 (Europe/Berlin)');
    expect(await periodicityOf(b)).toBeNull();

    const often = await api.post<Data<TScanSchedule>>('/users/create_scan_schedule', {
      targets: [
        { target_type: 'domain', user_target_id: a },
        { target_type: 'domain', user_target_id: b },
      ],
      days: ['fri', 'mon', 'wed'],
      start_time: '03:30',
      tz: 'UTC',
    });
    expect(often.status, JSON.stringify(often.body)).toBe(201);
    expect(await periodicityOf(a)).toBe(
      'Weekly: Sat 02:00 (Europe/Berlin); 3× a week: Mon, Wed, Fri 03:30 (UTC)',
    );
    expect(await periodicityOf(b)).toBe('3× a week: Mon, Wed, Fri 03:30 (UTC)');

    const off = await api.patch('/users/update_scan_schedule', {
      scan_schedule_id: often.body.data.scan_schedule_id,
      enabled: false,
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(await periodicityOf(b)).toBeNull();
    expect(await periodicityOf(a)).toBe('Weekly: Sat 02:00 (Europe/Berlin)');
  });
});
