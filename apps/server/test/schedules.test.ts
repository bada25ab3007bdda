import type { TScanSchedule, TScheduleOverview } from '@perimeter/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDate, localTime } from '../src/modules/schedules/schedules-fns.ts';
import { useSchedulesApp } from './support/schedules-fixture.ts';

// The schedule endpoints; the scheduler that runs the schedules is in schedules-scheduler.test.ts.
const { app, call, signUp, addTarget } = useSchedulesApp();

describe('schedule endpoints', () => {
  it('creates with the default window (Sat 02:00–06:00 in the user zone), lists, updates and deletes', async () => {
    const { token, userId } = await signUp('Europe/Berlin');
    const targetId = await addTarget(userId, 'example.com');
    const targets = [{ target_type: 'domain', user_target_id: targetId }];

    const created = await call<{ data: TScanSchedule }>(token, 'POST', '/users/create_scan_schedule', {
      targets,
    });
    expect(created.status).toBe(201);
    const s = created.body.data;
    expect(s).toMatchObject({
      days: ['sat'],
      days_numbers: [6],
      start_time: '02:00',
      end_time: '06:00',
      tz: 'Europe/Berlin',
      scan_type: 'full',
      enabled: true,
      targets,
    });
    const next = new Date(s.next_run_at!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(localTime(next, 'Europe/Berlin')).toBe('02:00');
    expect(new Date(`${localDate(next, 'Europe/Berlin')}T12:00:00Z`).getUTCDay()).toBe(6);

    const list = await call<{ data: { results: TScanSchedule[]; count: number } }>(
      token,
      'GET',
      '/users/get_user_scan_schedules',
    );
    expect(list.body.data.count).toBe(1);

    const patched = await call<{ data: TScanSchedule }>(token, 'PATCH', '/users/update_scan_schedule', {
      scan_schedule_id: s.scan_schedule_id,
      days: ['*', 'sun', 3],
      start_time: '23:15',
      tz: 'America/New_York',
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: ['leakcheck'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      days: ['sun', 'mon', 'wed'],
      days_numbers: [0, 1, 3],
      start_time: '23:15',
      tz: 'America/New_York',
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: ['leakcheck'] },
    });
    expect(localTime(new Date(patched.body.data.next_run_at!), 'America/New_York')).toBe('23:15');

    const disabled = await call<{ data: TScanSchedule }>(token, 'PATCH', '/users/update_scan_schedule', {
      scan_schedule_id: s.scan_schedule_id,
      enabled: false,
    });
    expect(disabled.body.data.next_run_at).toBeNull();

    const del = await call(
      token,
      'DELETE',
      `/users/delete_scan_schedule?scan_schedule_id=${s.scan_schedule_id}`,
    );
    expect(del.status).toBe(200);
    const again = await call(
      token,
      'DELETE',
      `/users/delete_scan_schedule?scan_schedule_id=${s.scan_schedule_id}`,
    );
    expect(again.status).toBe(404);
  });

  it('refuses a custom scan without classes, unknown zones, bad times and other users’ targets', async () => {
    const { token, userId } = await signUp();
    const other = await signUp();
    const mine = await addTarget(userId, 'mine.example');
    const theirs = await addTarget(other.userId, 'theirs.example');
    const base = { targets: [{ target_type: 'domain', user_target_id: mine }] };
    const cases: Array<[unknown, number]> = [
      [{ ...base, scan_type: 'custom' }, 400],
      [{ ...base, tz: 'Mars/Olympus' }, 400],
      [{ ...base, start_time: '24:00' }, 400],
      [{ ...base, days: ['funday'] }, 400],
      [{ ...base, days: [7] }, 400],
      [{ ...base, days: [] }, 400],
      [{ targets: [] }, 400],
      [{ targets: [{ target_type: 'domain', user_target_id: theirs }] }, 404],
      [{ targets: [{ target_type: 'peer', user_target_id: mine }] }, 404],
    ];
    for (const [body, status] of cases) {
      const res = await call(token, 'POST', '/users/create_scan_schedule', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body).toHaveProperty('detail');
    }
  });

  it('plan limit: scheduled scans per week over all enabled schedules (403 naming the limit)', async () => {
    const { token, userId } = await signUp('UTC', 'starter');
    const targetId = await addTarget(userId, 'limit.example');
    const targets = [{ target_type: 'domain', user_target_id: targetId }];
    const two = await call(token, 'POST', '/users/create_scan_schedule', { targets, days: ['mon', 'thu'] });
    expect(two.status).toBe(403);
    expect(two.body.detail).toBe(
      'Plan limit: the Starter plan allows 1 scheduled scan per week (0 already scheduled).',
    );
    const one = await call<{ data: TScanSchedule }>(token, 'POST', '/users/create_scan_schedule', {
      targets,
    });
    expect(one.status).toBe(201);
    const another = await call(token, 'POST', '/users/create_scan_schedule', { targets, days: ['sun'] });
    expect(another.status).toBe(403);
    const disabled = await call(token, 'POST', '/users/create_scan_schedule', {
      targets,
      days: ['sun'],
      enabled: false,
    });
    expect(disabled.status).toBe(201);
    const moved = await call(token, 'PATCH', '/users/update_scan_schedule', {
      scan_schedule_id: one.body.data.scan_schedule_id,
      days: ['wed'],
    });
    expect(moved.status).toBe(200);
  });

  it('overview lists every run of the next 30 days by local date, or up to the end of the month', async () => {
    const { token, userId } = await signUp('Asia/Tokyo');
    const targetId = await addTarget(userId, 'overview.example');
    await call(token, 'POST', '/users/create_scan_schedule', {
      targets: [{ target_type: 'domain', user_target_id: targetId }],
      days: ['mon', 'thu'],
      start_time: '09:00',
      tz: 'Asia/Tokyo',
    });
    const res = await call<{ data: TScheduleOverview }>(
      token,
      'GET',
      '/users/get_schedule_overview?by_end_of_month=false&days_ahead=30',
    );
    expect(res.status).toBe(200);
    const runs = res.body.data.days.flatMap((d) => d.runs);
    expect(res.body.data.days.length).toBeGreaterThanOrEqual(30);
    expect(runs.length).toBeGreaterThanOrEqual(8);
    expect(runs.length).toBeLessThanOrEqual(10);
    for (const r of runs) expect(r.local_time).toBe('09:00');
    const monthOnly = await call<{ data: TScheduleOverview }>(
      token,
      'GET',
      '/users/get_schedule_overview?by_end_of_month=true',
    );
    expect(monthOnly.status).toBe(200);
    const month = localDate(new Date(), 'Asia/Tokyo').slice(0, 7);
    for (const d of monthOnly.body.data.days) expect(d.date.slice(0, 7)).toBe(month);
  });

  it('another user’s schedule id answers 404 everywhere and stays untouched', async () => {
    const a = await signUp();
    const b = await signUp();
    const targetId = await addTarget(a.userId, 'iso.example');
    const created = await call<{ data: TScanSchedule }>(a.token, 'POST', '/users/create_scan_schedule', {
      targets: [{ target_type: 'domain', user_target_id: targetId }],
    });
    const id = created.body.data.scan_schedule_id;
    expect(
      (await call(b.token, 'PATCH', '/users/update_scan_schedule', { scan_schedule_id: id, enabled: false }))
        .status,
    ).toBe(404);
    expect((await call(b.token, 'DELETE', `/users/delete_scan_schedule?scan_schedule_id=${id}`)).status).toBe(
      404,
    );
    const listB = await call<{ data: { count: number } }>(b.token, 'GET', '/users/get_user_scan_schedules');
    expect(listB.body.data.count).toBe(0);
    const overviewB = await call<{ data: TScheduleOverview }>(b.token, 'GET', '/users/get_schedule_overview');
    expect(overviewB.body.data.days.flatMap((d) => d.runs)).toHaveLength(0);
    const listA = await call<{ data: { results: TScanSchedule[] } }>(
      a.token,
      'GET',
      '/users/get_user_scan_schedules',
    );
    expect(listA.body.data.results[0]!.enabled).toBe(true);
    expect((await call(undefined, 'GET', '/users/get_user_scan_schedules')).status).toBe(401);
  });

  it('no malformed body or query gets a 5xx (fast-check, 250 per endpoint)', async () => {
    const { token, userId } = await signUp();
    const targetId = await addTarget(userId, 'fuzz.example');
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.oneof(fc.string(), fc.integer(), fc.constantFrom('mon', '*', 'sun', 7, -1))),
      fc.constant([{ target_type: 'domain', user_target_id: targetId }]),
      fc.dictionary(fc.string(), fc.string()),
      fc.constantFrom(
        '02:00',
        '24:61',
        'Europe/Berlin',
        'custom',
        'full',
        targetId,
        '00000000-0000-0000-0000-000000000000',
      ),
    );
    const keys = fc.constantFrom(
      'targets',
      'days',
      'start_time',
      'end_time',
      'tz',
      'scan_type',
      'custom_scan_config',
      'enabled',
      'name',
      'scan_schedule_id',
      '__proto__',
      'x',
    );
    const body = fc.oneof(
      fc.dictionary(keys, value),
      value,
      fc.string().map((s) => ({ raw: s })),
    );
    const query = fc.dictionary(
      fc.constantFrom('by_end_of_month', 'days_ahead', 'scan_schedule_id', 'x'),
      fc.oneof(fc.string(), fc.constantFrom('true', '-1', '0', '367', '1e9', 'NaN', targetId)),
    );
    const qs = (q: Record<string, string>) => new URLSearchParams(q).toString();
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        for (const [m, u] of [
          ['POST', '/users/create_scan_schedule'],
          ['PATCH', '/users/update_scan_schedule'],
        ] as const) {
          const res = await app.t.app.inject({
            method: m,
            url: `/api${u}`,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            payload: JSON.stringify(b),
          });
          expect(res.statusCode, `${m} ${u} ${JSON.stringify(b)} → ${res.body}`).toBeLessThan(500);
        }
      }),
      { numRuns: 250 },
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        for (const [m, u] of [
          ['GET', '/users/get_schedule_overview'],
          ['DELETE', '/users/delete_scan_schedule'],
          ['GET', '/users/get_user_scan_schedules'],
        ] as const) {
          const res = await call(token, m, `${u}?${qs(q)}`);
          expect(res.status, `${m} ${u}?${qs(q)}`).toBeLessThan(500);
        }
      }),
      { numRuns: 250 },
    );
  });
});
