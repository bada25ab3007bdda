import type { TScanSchedule, TScheduleOverview } from '@perimeter/contracts';
import { sql as sql_ } from 'drizzle-orm';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../src/db/client.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startQueue } from '../src/lib/queue.ts';
import { localDate, localTime, runsBetween } from '../src/modules/schedules/schedules-fns.ts';
import { scanBridge } from '../src/modules/schedules/schedules-scan-adapter.ts';
import type { ScanBridge } from '../src/modules/schedules/schedules-scan-port.ts';
import { createScheduler } from '../src/modules/schedules/schedules-scheduler.ts';
import { createSchedule } from '../src/modules/schedules/schedules-service.ts';
import type { AppContext } from '../src/server/context.ts';
import { client, createTestApp, newUserInput, type TestApp } from './support/app.ts';

let t: TestApp;
let sql: pg.Client;

beforeAll(async () => {
  t = await createTestApp();
  sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await t?.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
async function call<T = Record<string, unknown>>(
  token: string | undefined,
  method: Method,
  url: string,
  body?: unknown,
) {
  const res = await t.app.inject({
    method,
    url: `/api${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.json() as T };
}

async function signUp(tz: string | null = 'Europe/Berlin', plan = 'enterprise') {
  const input = newUserInput();
  await client(t.app).post('/users/auth/registration/', input);
  const login = await client(t.app).post<{ data: { access: string; user: { id?: string } } }>(
    '/users/auth/login/',
    { email: input.email, password: input.password1 },
  );
  const { rows } = await sql.query<{ id: string }>(
    'update users set tz = $2, plan = $3, email_verified = true where email = $1 returning id',
    [input.email, tz, plan],
  );
  return { token: login.body.data.access, userId: rows[0]!.id };
}

async function addTarget(userId: string, value: string, type = 'domain') {
  const { rows } = await sql.query<{ id: string }>(
    `insert into targets (user_id, target_type, value, display_name, main_domain, verified, verification_token)
     values ($1, $2, $3, $3, $3, true, 'tok') returning id`,
    [userId, type, value],
  );
  return rows[0]!.id;
}

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
          const res = await t.app.inject({
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

describe('scheduler', () => {
  /** A scans module stand-in that creates a real `scans` row in the scheduler's transaction. */
  const fakeBridge = (calls: string[]): ScanBridge => ({
    async assertTargetsOwned() {},
    async createAndStartScan(_ctx, tx, _executeSql, request) {
      const { rows } = await tx.execute<{ id: string }>(
        sql_`insert into scans (user_id, status, target_type, scan_type)
             values (${request.userId}, 'pending', ${request.targets[0]!.target_type}, ${request.scanType}) returning id`,
      );
      calls.push(rows[0]!.id);
      return { scanId: rows[0]!.id };
    },
  });

  it('runs each due run exactly once with two schedulers and a restart, across DST changes', async () => {
    const { userId } = await signUp('Europe/Berlin');
    const targetId = await addTarget(userId, 'dst.example');
    const targets = [{ target_type: 'domain' as const, user_target_id: targetId }];
    const clockStart = new Date('2026-03-05T12:00:00Z');
    let clock = clockStart;
    const calls: string[] = [];
    const bridge = fakeBridge(calls);
    const ctx = t.runtime.ctx;
    const specs = [
      { days: ['sun' as const], start_time: '02:30', tz: 'Europe/Berlin' }, // gap on 2026-03-29
      { days: ['sun' as const], start_time: '02:30', tz: 'America/New_York' }, // gap on 2026-03-08
      { days: ['sun' as const], start_time: '01:30', tz: 'America/New_York' }, // twice on 2026-11-01
      { days: ['sun' as const], start_time: '02:30', tz: 'Europe/Berlin', end_time: '03:00' }, // twice on 10-25
      { days: ['fri' as const, 'sat' as const], start_time: '02:00', tz: 'Europe/Berlin' },
    ];
    const ids: string[] = [];
    for (const s of specs)
      ids.push((await createSchedule(ctx, bridge, userId, { targets, ...s }, clockStart)).scan_schedule_id);

    const second: Database = connectDatabase(t.databaseUrl, 3);
    const third: Database = connectDatabase(t.databaseUrl, 3);
    const ctx2: AppContext = { ...ctx, database: second, db: second.db };
    const ctx3: AppContext = { ...ctx, database: third, db: third.db };
    const a = createScheduler(ctx, { bridge, now: () => clock });
    const b = createScheduler(ctx2, { bridge, now: () => clock });
    const c = createScheduler(ctx3, { bridge, now: () => clock }); // "a after a restart"
    try {
      const stepMs = 20 * 60_000;
      const phases: Array<[string, string]> = [
        ['2026-03-05T12:00:00Z', '2026-04-01T00:00:00Z'],
        ['2026-10-22T00:00:00Z', '2026-11-03T00:00:00Z'],
      ];
      let step = 0;
      for (const [from, to] of phases) {
        // Between the phases nothing ticks: the schedulers are "down" for months.
        for (
          clock = new Date(from);
          clock.getTime() <= new Date(to).getTime();
          clock = new Date(clock.getTime() + stepMs)
        ) {
          const first = step % 200 < 100 ? a : c; // a and c take turns, like a process that restarts
          await Promise.all([first.tick(), b.tick()]);
          step += 1;
        }
      }
    } finally {
      await second.close();
      await third.close();
    }

    const { rows } = await sql.query<{
      schedule_id: string;
      due_at: Date;
      status: string;
      scan_id: string | null;
    }>('select schedule_id, due_at, status, scan_id from scan_schedule_runs order by due_at');
    // Exactly one row per (schedule, due) by construction; each started run created exactly one scan.
    expect(new Set(rows.map((r) => `${r.schedule_id}|${r.due_at.toISOString()}`)).size).toBe(rows.length);
    const started = rows.filter((r) => r.status === 'started');
    expect(started.map((r) => r.scan_id).sort()).toEqual([...calls].sort());
    expect(new Set(calls).size).toBe(calls.length);
    const scanCount = Number(
      (await sql.query('select count(*) from scans where user_id = $1', [userId])).rows[0].count,
    );
    expect(scanCount).toBe(calls.length);

    const runsOf = (i: number, status = 'started') =>
      rows.filter((r) => r.schedule_id === ids[i] && r.status === status).map((r) => r.due_at.toISOString());
    const expectedIn = (i: number, from: string, to: string) => {
      const s = specs[i]!;
      return runsBetween(
        {
          days: s.days.map((d) => (d === 'sun' ? 0 : d === 'fri' ? 5 : 6)),
          startTime: s.start_time,
          tz: s.tz,
        },
        new Date(from),
        new Date(to),
      ).map((d) => d.toISOString());
    };
    // Berlin Sunday 02:30: 4 Sundays in March; 2026-03-29 02:30 does not exist → 03:30 CEST (01:30Z).
    expect(runsOf(0).slice(0, 4)).toEqual(expectedIn(0, '2026-03-05T12:00:00Z', '2026-04-01T00:00:00Z'));
    expect(runsOf(0)).toContain('2026-03-29T01:30:00.000Z');
    // New York Sunday 02:30: 2026-03-08 02:30 does not exist → 03:30 EDT (07:30Z).
    expect(runsOf(1)).toContain('2026-03-08T07:30:00.000Z');
    // New York Sunday 01:30 on 2026-11-01 happens twice on the wall clock: one run, the first (EDT).
    const nov1 = runsOf(2).filter((d) => d.startsWith('2026-11-01'));
    expect(nov1).toEqual(['2026-11-01T05:30:00.000Z']);
    // Berlin 02:30 on 2026-10-25 happens twice: one run, the first (CEST).
    expect(runsOf(3).filter((d) => d.startsWith('2026-10-25'))).toEqual(['2026-10-25T00:30:00.000Z']);
    // Fri+Sat 02:00 Berlin, phase 1: every Friday and Saturday once.
    expect(runsOf(4).filter((d) => d < '2026-04-01')).toEqual(
      expectedIn(4, '2026-03-05T12:00:00Z', '2026-04-01T00:00:00Z'),
    );
    // After months down, only the latest missed occurrence is considered: started if its window is open,
    // recorded as missed otherwise — never a burst of catch-up scans.
    const afterGap = rows.filter(
      (r) => r.due_at > new Date('2026-04-01') && r.due_at < new Date('2026-10-22'),
    );
    expect(afterGap.length).toBeLessThanOrEqual(specs.length);
    expect(afterGap.every((r) => r.status === 'missed')).toBe(true);
    // Phase 2 runs, all once.
    expect(runsOf(2).filter((d) => d > '2026-10-22')).toEqual(
      expectedIn(2, '2026-10-22T00:00:00Z', '2026-11-03T00:00:00Z'),
    );
  }, 120_000);

  it('with the real scans bridge: the due run creates one scan and enqueues its start job in one transaction', async () => {
    const boss = await startQueue(t.databaseUrl, createLogger('silent'));
    try {
      const { userId } = await signUp('UTC');
      await sql.query(`update users set plan = 'business' where id = $1`, [userId]);
      const targetId = await addTarget(userId, 'bridge.example');
      const start = new Date('2027-02-01T00:00:00Z'); // a Monday
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
        start,
      );
      await sql.query('delete from scan_schedules where id <> $1', [s.scan_schedule_id]);
      const clock = new Date('2027-02-01T03:00:30Z');
      const second = connectDatabase(t.databaseUrl, 2);
      try {
        const a = createScheduler(t.runtime.ctx, { bridge: scanBridge, now: () => clock });
        const b = createScheduler(
          { ...t.runtime.ctx, database: second, db: second.db },
          { bridge: scanBridge, now: () => clock },
        );
        await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      } finally {
        await second.close();
      }
      const scans = await sql.query('select id, status, subclasses from scans where user_id = $1', [userId]);
      expect(scans.rows).toHaveLength(1);
      expect(scans.rows[0]).toMatchObject({ status: 'created' });
      const jobs = await sql.query(`select data from pgboss.job where name = 'schedule-start'`);
      expect(jobs.rows.map((r) => r.data.scanId)).toEqual([scans.rows[0].id]);
      const run = await sql.query('select status, scan_id from scan_schedule_runs where schedule_id = $1', [
        s.scan_schedule_id,
      ]);
      expect(run.rows).toEqual([{ status: 'started', scan_id: scans.rows[0].id }]);
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });

  it('records a refused scan as failed without retrying it, and moves on', async () => {
    const { userId } = await signUp('UTC');
    const targetId = await addTarget(userId, 'refused.example');
    const start = new Date('2027-01-04T00:00:00Z'); // a Monday
    const refusing: ScanBridge = {
      async assertTargetsOwned() {},
      async createAndStartScan() {
        throw new Error('Your plan allows 1 scan per month.');
      },
    };
    const s = await createSchedule(
      t.runtime.ctx,
      refusing,
      userId,
      {
        targets: [{ target_type: 'domain', user_target_id: targetId }],
        days: ['mon'],
        start_time: '01:00',
        tz: 'UTC',
      },
      start,
    );
    await sql.query('delete from scan_schedules where id <> $1', [s.scan_schedule_id]); // earlier tests' rows
    let clock = new Date('2027-01-04T01:05:00Z');
    const sched = createScheduler(t.runtime.ctx, { bridge: refusing, now: () => clock });
    expect(await sched.tick()).toMatchObject({ failed: 1, started: 0 });
    clock = new Date('2027-01-04T01:10:00Z');
    expect(await sched.tick()).toMatchObject({ failed: 0, started: 0 });
    const { rows } = await sql.query('select status, error from scan_schedule_runs where schedule_id = $1', [
      s.scan_schedule_id,
    ]);
    expect(rows).toEqual([{ status: 'failed', error: 'Your plan allows 1 scan per month.' }]);
    const next = await sql.query('select next_run_at from scan_schedules where id = $1', [
      s.scan_schedule_id,
    ]);
    expect((next.rows[0].next_run_at as Date).toISOString()).toBe('2027-01-11T01:00:00.000Z');
  });
});
