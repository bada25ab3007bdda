import { EVENT_SORT_KEYS, EVENTS_PAGE_SIZE, type TAllEventsBody } from '@perimeter/contracts';
import { desc, eq, getTableColumns, gt, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectDatabase, type Database, SESSION_MAX_USES } from '../src/db/client.ts';
import { isoTimestamp } from '../src/db/iso-timestamp.ts';
import { mappedOnce, namesStatements, type Prepared, statementName } from '../src/db/prepared.ts';
import type { FindingsMemo, FindingsMemoValue } from '../src/modules/findings/findings-counts.ts';
import { FINDING_TABLES, listFindings } from '../src/modules/findings/findings-repo.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { signUpWithBulkFindings } from './support/bulk-user.ts';
import { type PlanNode, planNodes, planShape } from './support/events-cases.ts';

/**
 * mappedOnce (src/db/prepared.ts) runs Drizzle's prepared selects with the row mapping decided
 * once per statement. It reads Drizzle's prepared query (drizzle-orm is pinned): these tests hold
 * it to Drizzle's own execute on the real finding tables — every column type they have (uuid,
 * text, integers, numeric, booleans, timestamps with and without values, jsonb, text arrays), the
 * events pages' selections (whole rows; a row beside a count; a sort value and an id), the same
 * logged statements and the same errors — and fail when a Drizzle upgrade changes what it reads
 * (the statement would silently take Drizzle's slower path).
 */
let t: TestApp;
let userId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ userId } = await signUpWithBulkFindings(t, 1_500));
}, 120_000);

afterAll(async () => {
  await t?.close();
});

/** Both executors of one statement: Drizzle's and mappedOnce's (which must not fall back to it). */
function both<T>(build: () => { prepare(name: string): Prepared<T> }) {
  const drizzles = build().prepare('');
  const mapped = mappedOnce(build().prepare(''));
  expect(mapped).not.toBe(drizzles);
  return { drizzles, mapped };
}

describe('mappedOnce', () => {
  it('answers every selection of the events pages with Drizzle’s rows', async () => {
    const db = drizzle(t.runtime.ctx.database.pool);
    const values = { user: userId, limit: 40, after: 2 };
    let compared = 0;
    for (const table of Object.values(FINDING_TABLES)) {
      const where = sql`${table.userId} = ${sql.placeholder('user')} and ${gt(table.severityOrdering, sql.placeholder('after'))}`;
      const shapes: (() => { prepare(name: string): Prepared<unknown[]> })[] = [
        () =>
          db
            .select()
            .from(table)
            .where(where)
            .orderBy(desc(table.addTs), desc(table.id))
            .limit(sql.placeholder('limit')),
        () =>
          db
            .select({ row: getTableColumns(table), n: sql<number>`count(*) over ()`.mapWith(Number) })
            .from(table)
            .where(eq(table.userId, sql.placeholder('user')))
            .orderBy(desc(table.lastSeen), desc(table.id))
            .limit(sql.placeholder('limit')),
        // A page's timestamps as ISO strings (findings-repo.ts), beside a count.
        () =>
          db
            .select({
              row: {
                id: table.id,
                seen: sql<string>`${table.lastSeen}`.mapWith(isoTimestamp),
                fixed: sql<string | null>`${table.fixedAt}`.mapWith(isoTimestamp),
              },
              n: sql<number>`count(*) over ()`.mapWith(Number),
            })
            .from(table)
            .where(where)
            .orderBy(desc(table.lastSeen), desc(table.id))
            .limit(sql.placeholder('limit')),
        () =>
          db
            .select({ v: sql`${table.firstSeen}`, id: table.id, fixed: table.fixedAt })
            .from(table)
            .where(where)
            .orderBy(table.id)
            .limit(7)
            .offset(sql.placeholder('after')),
      ];
      for (const shape of shapes) {
        const { drizzles, mapped } = both(shape);
        const expected = await drizzles.execute(values);
        expect(expected.length).toBeGreaterThan(0);
        // Twice: the statement is reused with its values.
        expect(await mapped.execute(values)).toEqual(expected);
        expect(await mapped.execute({ ...values, limit: 3 })).toEqual(
          await drizzles.execute({ ...values, limit: 3 }),
        );
        compared++;
      }
    }
    expect(compared).toBe(12);
  });

  it('asks for a statement’s columns once, then reads its rows with the parsers it learnt', async () => {
    const db = drizzle(t.runtime.ctx.database.pool);
    const table = FINDING_TABLES.exploit_db;
    const { drizzles, mapped } = both(() =>
      db
        .select()
        .from(table)
        .where(eq(table.userId, sql.placeholder('user')))
        .orderBy(desc(table.addTs), desc(table.id))
        .limit(sql.placeholder('limit')),
    );
    const limits = [5, 0, 40, 1];
    const { prototype } = (pg as unknown as { Connection: { prototype: { describe(): void } } }).Connection;
    const describes = vi.spyOn(prototype, 'describe');
    const pages: unknown[][] = [];
    try {
      for (const limit of limits) pages.push(await mapped.execute({ user: userId, limit }));
      // The first execution's Describe only: the others reuse its columns.
      expect(describes).toHaveBeenCalledTimes(1);
    } finally {
      describes.mockRestore();
    }
    for (const [i, limit] of limits.entries())
      expect(pages[i]).toEqual(await drizzles.execute({ user: userId, limit }));
    expect(pages[2]!.length).toBeGreaterThan(0);
  });

  it('logs the statement and fails as Drizzle does', async () => {
    const logged: [string, unknown[]][] = [];
    const db = drizzle(t.runtime.ctx.database.pool, { logger: { logQuery: (q, p) => logged.push([q, p]) } });
    const table = FINDING_TABLES.exploit_scanner;
    const { drizzles, mapped } = both(() =>
      db
        .select()
        .from(table)
        .where(eq(table.userId, sql.placeholder('user')))
        .limit(1),
    );
    await mapped.execute({ user: userId });
    await drizzles.execute({ user: userId });
    expect(logged).toHaveLength(2);
    expect(logged[0]).toEqual(logged[1]);

    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: Error) => e,
      );
    const ours = await failure(mapped.execute({ user: 'not-a-uuid' }));
    const theirs = await failure(drizzles.execute({ user: 'not-a-uuid' }));
    expect(ours?.constructor).toBe(theirs?.constructor);
    expect(ours?.message).toBe(theirs?.message);
    expect((ours?.cause as { code?: string })?.code).toBe('22P02');
    await expect(mapped.execute({})).rejects.toThrow('No value for placeholder "user" was provided');
  });

  it('builds rows whose keys hold quotes, backslashes, line breaks and code as plain keys', async () => {
    // The row literal is compiled from the selection's keys: each must stay a quoted key.
    const db = drizzle(t.runtime.ctx.database.pool);
    const table = FINDING_TABLES.exploit_scanner;
    const odd = ['a"b', "c'd", 'e\\f', 'g\nh', '}; throw 1; ({', '\u2028', 'constructor', 'toString'];
    const { drizzles, mapped } = both(() =>
      db
        .select({
          ...Object.fromEntries(odd.map((k) => [k, table.id])),
          nested: { '`${x}`': table.severity, 'x"': table.name },
        })
        .from(table)
        .where(eq(table.userId, sql.placeholder('user')))
        .limit(2),
    );
    const rows = (await mapped.execute({ user: userId })) as Record<string, unknown>[];
    expect(rows).toEqual(await drizzles.execute({ user: userId }));
    expect(Object.keys(rows[0] ?? {})).toEqual([...odd, 'nested']);
    // A key a literal would read as the prototype keeps Drizzle's own mapping.
    const proto = db
      .select({ ['__proto__']: table.id })
      .from(table)
      .where(eq(table.userId, sql.placeholder('user')))
      .limit(1)
      .prepare('');
    expect(mappedOnce(proto)).toBe(proto);
  });
});

describe('named statements', () => {
  /** The prepared statements of a one-connection handle's session, and its plan cache mode. */
  async function session(database: Database) {
    const { rows } = await database.pool.query<{ name: string; custom: number; generic: number }>(
      `select name, custom_plans::int as custom, generic_plans::int as generic from pg_prepared_statements`,
    );
    const mode = (await database.pool.query<{ m: string }>(`select current_setting('plan_cache_mode') as m`))
      .rows;
    return { statements: rows, mode: mode[0]?.m };
  }
  const bodies: TAllEventsBody[] = [
    { scan_subclass: 'exploit_scanner', sort_key: 'name', sort_order: 'asc' },
    { scan_subclass: 'exploit_scanner', severity: ['critical', 'high'] },
    { scan_subclass: 'leakcheck', main_domain_filter_opt: { domain_filter: 'site1', is_contains: true } },
  ] as TAllEventsBody[];
  const pages = async (database: Database) => {
    const out: unknown[] = [];
    // Seven times each: past the five custom plans after which `auto` may switch to a generic one.
    for (let i = 0; i < 7; i++)
      for (const body of bodies)
        out.push(
          await listFindings({ db: database.db, bitmapDb: database.bitmapDb }, userId, body, {
            limit: 10 + i,
            offset: 0,
          }),
        );
    return out;
  };

  it('are parsed once per session and planned for each execution’s values, with the same pages', async () => {
    const named = connectDatabase(t.databaseUrl, 1, { sessionStatements: true });
    const unnamed = connectDatabase(t.databaseUrl, 1);
    try {
      expect(namesStatements(named.db)).toBe(true);
      expect(namesStatements(unnamed.db)).toBe(false);
      const expected = await pages(unnamed);
      expect(await pages(named)).toEqual(expected);
      const { statements, mode } = await session(named);
      expect(mode).toBe('force_custom_plan');
      // The statements run outside a transaction on the pool: the unfiltered page (with its count).
      expect(statements.length).toBeGreaterThan(0);
      for (const s of statements) {
        expect(s.name).toMatch(/^p_[\w-]{20}$/);
        expect(s.generic).toBe(0);
        expect(s.custom).toBe(7);
      }
      // Nothing kept in the sessions of a pool that may sit behind a pooler in transaction mode.
      expect(await session(unnamed)).toEqual({ statements: [], mode: 'auto' });
      // A session keeping them is replaced after a while (their memory in the backend is bounded).
      expect(named.pool.options.maxUses).toBe(SESSION_MAX_USES);
      expect(unnamed.pool.options.maxUses).toBe(Number.POSITIVE_INFINITY);
    } finally {
      await Promise.all([named.close(), unnamed.close()]);
    }
  });

  it('plan per execution in every session they are kept in, the bitmap pool’s too, whatever DATABASE_URL sets', async () => {
    const url = new URL(t.databaseUrl);
    url.searchParams.set('options', '-c application_name=from-url');
    const named = connectDatabase(url.toString(), 1, { sessionStatements: true });
    try {
      const settings = sql`select current_setting('plan_cache_mode') as mode,
        current_setting('application_name') as app, current_setting('enable_indexscan') as indexscan`;
      const [main, bitmap] = await Promise.all(
        [named.db, named.bitmapDb].map(async (db) => (await db.execute(settings)).rows[0]),
      );
      expect(main).toEqual({ mode: 'force_custom_plan', app: 'from-url', indexscan: 'on' });
      expect(bitmap).toEqual({ mode: 'force_custom_plan', app: 'from-url', indexscan: 'off' });
    } finally {
      await named.close();
    }
  });

  it('run unnamed when the session turns out not to be their own (a pooler in transaction mode)', async () => {
    const named = connectDatabase(t.databaseUrl, 1, { sessionStatements: true });
    const other = connectDatabase(t.databaseUrl, 1, { sessionStatements: true });
    try {
      const expected = await pages(named);
      const { rows: held } = await named.pool.query<{ name: string; statement: string }>(
        'select name, statement from pg_prepared_statements',
      );
      expect(held.length).toBeGreaterThan(0);
      // The session lost them (another server session behind the pooler): 26000 from the server
      // (pg-pool then replaces the connection the failure came on).
      await named.pool.query('deallocate all');
      expect(await pages(named)).toEqual(expected);
      // A session already holding them, not prepared by this client (42P05 from the server).
      for (const { name, statement } of held) await other.pool.query(`prepare "${name}" as ${statement}`);
      expect(await pages(other)).toEqual(expected);
    } finally {
      await Promise.all([named.close(), other.close()]);
    }
  });

  it('plan a first page of a user’s whole list once per session, walking the sort index for any user', async () => {
    const named = connectDatabase(t.databaseUrl, 1, { sessionStatements: true });
    const unnamed = connectDatabase(t.databaseUrl, 1);
    const m = new Map<string, FindingsMemoValue>();
    const memo: FindingsMemo = { get: async (k) => m.get(k), set: (k, n) => void m.set(k, n) };
    try {
      const bodies = Object.entries(EVENT_SORT_KEYS).flatMap(([sub, keys]) => [
        { scan_subclass: sub },
        ...keys.flatMap((k) =>
          ['asc', 'desc'].map((o) => ({ scan_subclass: sub, sort_key: k, sort_order: o })),
        ),
      ]) as TAllEventsBody[];
      for (const body of bodies) {
        const page = { limit: EVENTS_PAGE_SIZE[body.scan_subclass], offset: 0 };
        const expected = await listFindings(unnamed, userId, body, page);
        // The first with its count, then twice from the remembered total: the generic plan's pages.
        for (let i = 0; i < 3; i++)
          expect(await listFindings(named, userId, body, page, undefined, memo)).toEqual(expected);
      }
      await named.genericDb.transaction(async (tx) => {
        const mode = await tx.execute<{ m: string }>(sql`select current_setting('plan_cache_mode') as m`);
        expect(mode.rows[0]?.m).toBe('force_generic_plan');
        const { rows } = await tx.execute<{ name: string; custom: number; generic: number }>(
          sql`select name, custom_plans::int as custom, generic_plans::int as generic from pg_prepared_statements`,
        );
        expect(rows.length).toBeGreaterThan(0);
        for (const r of rows) {
          expect(r).toMatchObject({ custom: 0 });
          expect(r.generic).toBeGreaterThan(0);
          // One plan for the user of 1,500 findings and for one of none: an ordered index walk,
          // never the user's findings read and sorted.
          for (const user of [userId, '00000000-0000-4000-8000-000000000003']) {
            const plan = await tx.execute<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
              sql.raw(`explain (format json) execute "${r.name}"('${user}')`),
            );
            const root = plan.rows[0]!['QUERY PLAN'][0]!.Plan;
            const nodes = planNodes(root).map((n) => n['Node Type']);
            expect(nodes, planShape(root)).toContain('Index Scan');
            expect(nodes, planShape(root)).not.toContain('Sort');
          }
        }
      });
      // Planned per execution everywhere else: the main pool's statements.
      const { rows: main } = await named.pool.query<{ generic: number }>(
        'select generic_plans::int as generic from pg_prepared_statements',
      );
      for (const r of main) expect(r.generic).toBe(0);
    } finally {
      await Promise.all([named.close(), unnamed.close()]);
    }
  });

  it('are named by their text', () => {
    expect(statementName('select 1')).toBe(statementName('select 1'));
    expect(statementName('select 1')).not.toBe(statementName('select 2'));
  });

  it('are used only with the change feed, which needs sessions of their own (not a pooler in transaction mode)', async () => {
    expect(namesStatements(t.runtime.ctx.database.db)).toBe(true);
    expect(namesStatements(t.runtime.ctx.database.bitmapDb)).toBe(true);
    const off = await createTestApp({ PERIMETER_CHANGE_FEED: 'false' }, t.databaseUrl);
    try {
      expect(namesStatements(off.runtime.ctx.database.db)).toBe(false);
      expect(namesStatements(off.runtime.ctx.database.bitmapDb)).toBe(false);
      const { rows } = await off.runtime.ctx.database.pool.query<{ m: string }>(
        `select current_setting($$plan_cache_mode$$) as m`,
      );
      expect(rows[0]?.m).toBe('auto');
    } finally {
      await off.app.close();
      await off.runtime.close();
    }
  });
});

/** A function's string, or the name of what it threw. */
const outcome = (f: () => string) => {
  try {
    return f();
  } catch (e) {
    return (e as Error).name;
  }
};

describe('isoTimestamp', () => {
  it('turns PostgreSQL’s own text of a timestamptz into the string a Date of it gives, in any session time zone', async () => {
    const client = await t.runtime.ctx.database.pool.connect();
    try {
      for (const zone of ['UTC', 'Europe/Berlin', 'America/St_Johns']) {
        await client.query(`set time zone '${zone}'`);
        const { rows } = await client.query<{ text: string; iso: string }>({
          // Microseconds, whole seconds, a leap day, a summer and a winter time, the extremes a Date holds alike.
          text: `select v::text as text, to_char(v at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as iso
                 from unnest(array['2026-11-24 00:57:07.501195+00', '2026-11-24 00:57:07.999999+00',
                   '2026-11-24 00:57:07+00', '2024-02-29 23:59:59.9+00', '2026-07-01 12:00:00.05+00',
                   '1000-01-01 00:00:00+00', '9999-12-31 23:59:59.999+00']::timestamptz[]) v`,
        });
        for (const { text, iso } of rows) {
          const before = outcome(() => new Date(text).toISOString());
          expect(
            outcome(() => isoTimestamp(text)),
            `${zone}: ${text}`,
          ).toBe(before);
          // Date reads no offset with seconds (a zone's local mean time before 1900): it failed then as now.
          if (!/[+-]\d\d:\d\d:\d\d$/.test(text)) expect(before, `${zone}: ${text}`).toBe(iso);
        }
      }
    } finally {
      await client.query('reset time zone');
      client.release();
    }
  });
});
