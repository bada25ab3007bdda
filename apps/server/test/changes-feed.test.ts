import type { TAllEventsBody } from '@perimeter/contracts';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionState } from '../src/modules/auth/auth-repo.ts';
import { listFindings } from '../src/modules/findings/findings-repo.ts';
import { listTechnologiesWithoutCve } from '../src/modules/findings/findings-tech-repo.ts';
import { client, createTestApp, type TestApp } from './support/app.ts';
import { signUpWithBulkFindings } from './support/bulk-user.ts';
import { startPgProxy } from './support/pg-proxy.ts';

/**
 * What each API process remembers until a trigger says it changed (src/db/changes.ts): events
 * totals (counted once, read again until the user's findings change) and signed-in session states
 * (read once, until the user's row or refresh tokens change). A change committed anywhere (another
 * process; here a separate connection, as a worker's) is in the very next request, without waiting.
 */
let t: TestApp;
let userId: string;
let token: string;
/** Another connection to the same database, as a worker process writes findings. */
let worker: pg.Client;

beforeAll(async () => {
  t = await createTestApp();
  ({ userId, token } = await signUpWithBulkFindings(t, 2_000));
  worker = new pg.Client({ connectionString: t.databaseUrl });
  await worker.connect();
  await until(() => t.runtime.ctx.changes.live);
}, 120_000);

afterAll(async () => {
  await worker?.end();
  await t?.close();
});

async function until(ok: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const body: TAllEventsBody = {
  scan_subclass: 'exploit_scanner',
  severity: ['critical', 'high'],
  sort_key: 'name',
};

/** One page through the repository with the app's memo; the statements it sent. */
async function page(app = t, request: TAllEventsBody = body) {
  const sent: string[] = [];
  const db = drizzle(app.runtime.ctx.database.pool, { logger: { logQuery: (q) => sent.push(q) } });
  const memo = app.runtime.ctx.findingsMemo.memo(userId);
  // Both handles log: a remembered total's few matches are read on the bitmap pool's handle.
  const p = await listFindings(
    { db: db as never, bitmapDb: db as never },
    userId,
    request,
    { limit: 10, offset: 0 },
    undefined,
    memo,
  );
  return {
    ...p,
    counted: sent.some((q) => /count\(\*\)/.test(q)),
    targetsRead: sent.some((q) => /from "targets"/.test(q)),
  };
}

/** A worker deletes one of the page's matches (critical or high) on its own connection. */
const deleteOneMatch = () =>
  worker.query(
    `delete from findings_exploit_scanner where id = (select id from findings_exploit_scanner
     where user_id = $1 and severity_ordering >= 4 limit 1)`,
    [userId],
  );

const apiTotal = async (extra: Record<string, unknown> = {}, app = t) => {
  const res = await client(app.app, token).post<{ data: { total: number; items: { id: string }[] } }>(
    '/main/get_all_user_abstract_scan_events',
    { scan_subclass: 'exploit_scanner', ...extra },
  );
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('remembered events totals', () => {
  it('count once, then read the total again until a finding of the user changes', async () => {
    const first = await page();
    expect(first.counted).toBe(true);
    const again = await page();
    expect(again.counted).toBe(false);
    expect(again.total).toBe(first.total);
    expect(again.rows.map((r) => r.id)).toEqual(first.rows.map((r) => r.id));

    // A worker deletes one of the matches: the next page counts again.
    await deleteOneMatch();
    const after = await page();
    expect(after.counted).toBe(true);
    expect(after.total).toBe(first.total - 1);
    expect((await page()).counted).toBe(false);
  });

  it('show another process’s write in the next total over HTTP, and a resolve at once', async () => {
    const before = await apiTotal();
    expect((await apiTotal()).total).toBe(before.total);
    await worker.query(
      `delete from findings_exploit_scanner where id = (select id from findings_exploit_scanner where user_id = $1 limit 1)`,
      [userId],
    );
    expect((await apiTotal()).total).toBe(before.total - 1);

    const open = await apiTotal({ hide_resolved: true });
    const res = await client(t.app, token).post('/main/resolve_abstract_scan_event', {
      scan_subclass: 'exploit_scanner',
      event_id: open.items[0]!.id,
      reason: 'accepted_risk',
    });
    expect(res.status).toBe(200);
    expect((await apiTotal({ hide_resolved: true })).total).toBe(open.total - 1);
  });

  it('remember the targets of a type until a target of the user is added, changed or deleted anywhere', async () => {
    const byType: TAllEventsBody = { ...body, targets_type: 'peer' };
    // All of the user's targets are domains: no peer, an empty page.
    expect((await page(t, byType)).targetsRead).toBe(true);
    const again = await page(t, byType);
    expect(again).toMatchObject({ targetsRead: false, total: 0 });

    // A worker adds a peer (no findings of it yet): the next page reads the user's targets again.
    const { rows } = await worker.query<{ id: string }>(
      `insert into targets (user_id, target_type, value, display_name, verification_token)
       values ($1, 'peer', '192.0.2.77', '192.0.2.77', 'feed') returning id`,
      [userId],
    );
    const added = await page(t, byType);
    expect(added).toMatchObject({ targetsRead: true, total: 0 });
    expect((await page(t, byType)).targetsRead).toBe(false);
    await worker.query(`update targets set display_name = 'renamed' where id = $1`, [rows[0]!.id]);
    expect((await page(t, byType)).targetsRead).toBe(true);
    await worker.query('delete from targets where id = $1', [rows[0]!.id]);
    expect((await page(t, byType)).targetsRead).toBe(true);
    expect((await page(t, byType)).targetsRead).toBe(false);
  });

  it('remember the technologies-without-CVE total until a technology of the user changes anywhere', async () => {
    /** The user's technologies without a CVE through the repository with the app's memo. */
    const technologies = async () => {
      const sent: string[] = [];
      const db = drizzle(t.runtime.ctx.database.pool, { logger: { logQuery: (q) => sent.push(q) } });
      const list = await listTechnologiesWithoutCve(
        db as never,
        userId,
        { scan_subclass: 'exploit_db', vulnerabilities_existence: 'without', sort_key: 'tech' },
        { limit: 10, offset: 0 },
        undefined,
        t.runtime.ctx.findingsMemo.memo(userId),
      );
      return { total: list.total, counted: sent.some((q) => /count\(\*\)/.test(q)) };
    };
    const first = await technologies();
    expect(first.counted).toBe(true);
    expect(await technologies()).toEqual({ total: first.total, counted: false });

    // A worker's statements on technology_sightings (as a scan finishing folds its technologies in,
    // or a CVE finding flips has_cve): each is counted again in the next page.
    const key = [userId, 'feed.example.org', 'feedtech', '1'];
    await worker.query(
      `insert into technology_sightings (user_id, host, tech_key, version, main_domain, id, tech,
         target_types, first_seen, last_seen, last_scan_id, has_cve)
       values ($1, $2, $3, $4, 'feed.example.org', gen_random_uuid(), 'FeedTech', '{domain}', now(), now(),
         gen_random_uuid(), false)`,
      key,
    );
    expect(await technologies()).toEqual({ total: first.total + 1, counted: true });
    expect((await technologies()).counted).toBe(false);
    const where = 'user_id = $1 and host = $2 and tech_key = $3 and version = $4';
    await worker.query(`update technology_sightings set has_cve = true where ${where}`, key);
    expect(await technologies()).toEqual({ total: first.total, counted: true });
    await worker.query(`update technology_sightings set has_cve = false where ${where}`, key);
    expect(await technologies()).toEqual({ total: first.total + 1, counted: true });
    await worker.query(`delete from technology_sightings where ${where}`, key);
    expect(await technologies()).toEqual({ total: first.total, counted: true });
    expect((await technologies()).counted).toBe(false);
  });

  it('remember nothing while the notifications are not heard, and again once they are', async () => {
    const counts = t.runtime.ctx.changes;
    const before = (await page()).total;
    expect((await page()).counted).toBe(false);
    await worker.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = current_database() and application_name = 'perimeter listen'`,
    );
    await until(() => !counts.live);
    // Missed while down: the total is counted, never taken from before.
    await deleteOneMatch();
    const down = await page();
    expect(down.counted).toBe(true);
    expect(down.total).toBe(before - 1);
    expect((await page()).counted).toBe(true);

    await until(() => counts.live);
    expect((await page()).counted).toBe(true);
    const back = await page();
    expect(back.counted).toBe(false);
    expect(back.total).toBe(before - 1);
  });
});

describe('a sync whose own notification does not come back (a pooler in transaction mode)', () => {
  it('ends the listening connection, answers from the database, remembers nothing until it listens again', async () => {
    const proxy = await startPgProxy(t.databaseUrl);
    // Another API process on the same database, all its connections through the proxy.
    const other = await createTestApp({}, proxy.url);
    try {
      const feed = other.runtime.ctx.changes;
      await until(() => feed.live);
      const listening = proxy.connections.filter((c) => c.applicationName === 'perimeter listen');
      expect(listening).toHaveLength(1);
      const before = await page(other);
      expect(before.counted).toBe(true);
      expect((await page(other)).counted).toBe(false);

      // Notifications stop arriving, the worker's change included; the listener cannot reconnect.
      proxy.dropNotifications = true;
      proxy.refuse = 'perimeter listen';
      await deleteOneMatch();
      const missed = await page(other);
      expect(missed.counted).toBe(true);
      expect(missed.total).toBe(before.total - 1);
      expect(listening[0]!.closed).toBe(true);
      expect(feed.live).toBe(false);
      // Down: nothing is remembered; a signed-in request is answered from the database.
      expect((await page(other)).counted).toBe(true);
      expect((await page(other)).total).toBe(before.total - 1);
      const { rows } = await worker.query<{ n: number }>(
        'select count(*)::int as n from findings_exploit_scanner where user_id = $1',
        [userId],
      );
      expect((await apiTotal({}, other)).total).toBe(rows[0]!.n);

      // Carried again: the listener reconnects, then remembers and hears changes as before.
      proxy.dropNotifications = false;
      proxy.refuse = undefined;
      await until(() => feed.live, 30_000);
      expect(proxy.connections.filter((c) => c.applicationName === 'perimeter listen')).toHaveLength(2);
      expect((await page(other)).counted).toBe(true);
      const back = await page(other);
      expect(back.counted).toBe(false);
      expect(back.total).toBe(before.total - 1);
      await deleteOneMatch();
      const heard = await page(other);
      expect(heard.counted).toBe(true);
      expect(heard.total).toBe(before.total - 2);
    } finally {
      await other.close();
      await proxy.close();
    }
  }, 60_000);
});

describe('remembered session states', () => {
  /** The session check of one request through the repository with the app's memo; whether it queried. */
  async function check(familyId: string) {
    const sent: string[] = [];
    const db = drizzle(t.runtime.ctx.database.pool, { logger: { logQuery: (q) => sent.push(q) } });
    const state = await sessionState(db as never, userId, familyId, t.runtime.ctx.sessionStates.memo(userId));
    return { ...state, queried: sent.length > 0 };
  }
  const familyOf = async () =>
    (
      await worker.query<{ family_id: string }>(
        'select family_id from refresh_tokens where user_id = $1 and revoked_at is null limit 1',
        [userId],
      )
    ).rows[0]!.family_id;

  it('read once, then remembered; a plan changed elsewhere is in the next request', async () => {
    const family = await familyOf();
    expect(await check(family)).toMatchObject({ live: true, plan: 'enterprise', queried: true });
    expect(await check(family)).toMatchObject({ live: true, plan: 'enterprise', queried: false });
    await worker.query(`update users set plan = 'trial_scan' where id = $1`, [userId]);
    expect(await check(family)).toMatchObject({ live: true, plan: 'trial_scan', queried: true });
    const hidden = await client(t.app, token).post<{ data: { details_hidden: boolean } }>(
      '/main/get_all_user_abstract_scan_events',
      { scan_subclass: 'exploit_scanner' },
    );
    expect(hidden.body.data.details_hidden).toBe(true);
    await worker.query(`update users set plan = 'enterprise' where id = $1`, [userId]);
    const shown = await client(t.app, token).post<{ data: { details_hidden: boolean } }>(
      '/main/get_all_user_abstract_scan_events',
      { scan_subclass: 'exploit_scanner' },
    );
    expect(shown.body.data.details_hidden).toBe(false);
  });

  it('end an access token at once when its session is revoked by another process', async () => {
    const me = () =>
      client(t.app, token).post('/main/get_all_user_abstract_scan_events', { scan_subclass: 'leakcheck' });
    expect((await me()).status).toBe(200);
    expect((await me()).status).toBe(200); // remembered now
    const family = await familyOf();
    expect(await check(family)).toMatchObject({ live: true, queried: false });
    await worker.query('update refresh_tokens set revoked_at = now() where user_id = $1', [userId]);
    expect((await me()).status).toBe(401);
    expect(await check(family)).toMatchObject({ live: false, queried: true });
  });
});

describe('PERIMETER_CHANGE_FEED=false (a pooler in transaction mode)', () => {
  it('listens to nothing and remembers nothing: every request reads its session and counts', async () => {
    const off = await createTestApp({ PERIMETER_CHANGE_FEED: 'false' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(off.runtime.ctx.changes.live).toBe(false);
      const { rows } = await off.runtime.ctx.database.pool.query(
        `select 1 from pg_stat_activity where datname = current_database() and application_name = 'perimeter listen'`,
      );
      expect(rows).toHaveLength(0);
      const memo = off.runtime.ctx.findingsMemo.memo(userId);
      memo.set('k', 1);
      expect(await memo.get('k')).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
