import { sql as sql_ } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../src/db/client.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startQueue } from '../src/lib/queue.ts';
import { runsBetween } from '../src/modules/schedules/schedules-fns.ts';
import { scanBridge } from '../src/modules/schedules/schedules-scan-adapter.ts';
import type { ScanBridge } from '../src/modules/schedules/schedules-scan-port.ts';
import { createScheduler } from '../src/modules/schedules/schedules-scheduler.ts';
import { createSchedule } from '../src/modules/schedules/schedules-service.ts';
import type { AppContext } from '../src/server/context.ts';
import { useSchedulesApp } from './support/schedules-fixture.ts';

// The scheduler that runs the schedules; their endpoints are in schedules.test.ts.
const { app, signUp, addTarget } = useSchedulesApp();

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
    const ctx = app.t.runtime.ctx;
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

    const second: Database = connectDatabase(app.t.databaseUrl, 3);
    const third: Database = connectDatabase(app.t.databaseUrl, 3);
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

    const { rows } = await app.sql.query<{
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
      (await app.sql.query('select count(*) from scans where user_id = $1', [userId])).rows[0].count,
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
    const boss = await startQueue(app.t.databaseUrl, createLogger('silent'));
    try {
      const { userId } = await signUp('UTC');
      await app.sql.query(`update users set plan = 'business' where id = $1`, [userId]);
      const targetId = await addTarget(userId, 'bridge.example');
      const start = new Date('2027-02-01T00:00:00Z'); // a Monday
      const s = await createSchedule(
        app.t.runtime.ctx,
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
      await app.sql.query('delete from scan_schedules where id <> $1', [s.scan_schedule_id]);
      const clock = new Date('2027-02-01T03:00:30Z');
      const second = connectDatabase(app.t.databaseUrl, 2);
      try {
        const a = createScheduler(app.t.runtime.ctx, { bridge: scanBridge, now: () => clock });
        const b = createScheduler(
          { ...app.t.runtime.ctx, database: second, db: second.db },
          { bridge: scanBridge, now: () => clock },
        );
        await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      } finally {
        await second.close();
      }
      const scans = await app.sql.query('select id, status, subclasses from scans where user_id = $1', [
        userId,
      ]);
      expect(scans.rows).toHaveLength(1);
      expect(scans.rows[0]).toMatchObject({ status: 'created' });
      const jobs = await app.sql.query(`select data from pgboss.job where name = 'schedule-start'`);
      expect(jobs.rows.map((r) => r.data.scanId)).toEqual([scans.rows[0].id]);
      const run = await app.sql.query(
        'select status, scan_id from scan_schedule_runs where schedule_id = $1',
        [s.scan_schedule_id],
      );
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
      app.t.runtime.ctx,
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
    await app.sql.query('delete from scan_schedules where id <> $1', [s.scan_schedule_id]); // earlier tests' rows
    let clock = new Date('2027-01-04T01:05:00Z');
    const sched = createScheduler(app.t.runtime.ctx, { bridge: refusing, now: () => clock });
    expect(await sched.tick()).toMatchObject({ failed: 1, started: 0 });
    clock = new Date('2027-01-04T01:10:00Z');
    expect(await sched.tick()).toMatchObject({ failed: 0, started: 0 });
    const { rows } = await app.sql.query(
      'select status, error from scan_schedule_runs where schedule_id = $1',
      [s.scan_schedule_id],
    );
    expect(rows).toEqual([{ status: 'failed', error: 'Your plan allows 1 scan per month.' }]);
    const next = await app.sql.query('select next_run_at from scan_schedules where id = $1', [
      s.scan_schedule_id,
    ]);
    expect((next.rows[0].next_run_at as Date).toISOString()).toBe('2027-01-11T01:00:00.000Z');
  });
});
