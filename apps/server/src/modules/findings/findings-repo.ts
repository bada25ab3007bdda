import { EVENTS_PAGE_SIZE, SUBCLASS_OF_CLASS, type TAllEventsBody } from '@perimeter/contracts';
import { type AnyColumn, and, asc, desc, eq, getTableColumns, inArray, is, type SQL, sql } from 'drizzle-orm';
import { PgTimestamp } from 'drizzle-orm/pg-core';
import { NO_MEMO } from '../../db/changes.ts';
import type { DbOrTx } from '../../db/client.ts';
import { isoTimestamp } from '../../db/iso-timestamp.ts';
import { Bindings, mappedOnce, namesStatements, type Prepared, PreparedCache } from '../../db/prepared.ts';
import {
  findingSightings,
  findingsExploitDb,
  findingsExploitScanner,
  findingsLeakcheck,
  targets,
} from '../../db/schema/index.ts';
import { type FindingsMemo, RememberedTotal, type WalkBound } from './findings-counts.ts';
import { type Bind, equalsIgnoringCase, severityMatch, textMatch } from './findings-sql.ts';

/*
 * The finding tables (one per subclass) and their read side: a user's findings page by page, a
 * finding resolved or reopened, the technologies a scan saw without a CVE. The write side (upsert,
 * mark unseen as fixed) is findings-write-repo.ts, the technologies without a CVE findings-tech-repo.ts;
 * the events API serves them.
 */

/** The one subclass → finding table map. */
export const FINDING_TABLES = {
  exploit_scanner: findingsExploitScanner,
  exploit_db: findingsExploitDb,
  leakcheck: findingsLeakcheck,
} as const;
export type Subclass = keyof typeof FINDING_TABLES;

/** Whitelisted sort keys → columns (never user input in SQL); `severity` sorts by its ordering. */
const SORT_COLUMNS = {
  exploit_scanner: {
    name: findingsExploitScanner.name,
    severity: findingsExploitScanner.severityOrdering,
    severity_ordering: findingsExploitScanner.severityOrdering,
    host: findingsExploitScanner.host,
    main_domain: findingsExploitScanner.mainDomain,
    subdomain: findingsExploitScanner.subdomain,
    add_ts: findingsExploitScanner.addTs,
  },
  exploit_db: {
    tech: findingsExploitDb.tech,
    version: findingsExploitDb.version,
    info_created_ts: findingsExploitDb.infoCreatedTs,
    info_updated_ts: findingsExploitDb.infoUpdatedTs,
    main_domain: findingsExploitDb.mainDomain,
    last_update_ts: findingsExploitDb.lastUpdateTs,
    last_check_ts: findingsExploitDb.lastCheckTs,
    cve: findingsExploitDb.cve,
    add_ts: findingsExploitDb.addTs,
    severity: findingsExploitDb.severityOrdering,
    epss_score: findingsExploitDb.epssScore,
    severity_ordering: findingsExploitDb.severityOrdering,
  },
  leakcheck: {
    email: findingsLeakcheck.email,
    password: findingsLeakcheck.password,
    leak_date: findingsLeakcheck.leakDate,
    main_domain: findingsLeakcheck.mainDomain,
    add_ts: findingsLeakcheck.addTs,
    severity: findingsLeakcheck.severityOrdering,
    severity_ordering: findingsLeakcheck.severityOrdering,
  },
} as const;

/** The columns of a finding no event carries (toEvent): never read for a page. */
const UNSENT = [
  'userId',
  'resolvedAt',
  'firstScanId',
  'lastScanId',
  'fixedScanId',
  'passwordEncrypted',
] as const;
type Unsent = (typeof UNSENT)[number];

/** A timestamp column read as the text PostgreSQL sends and decoded straight to the API's string. */
const asIso = (column: AnyColumn) => sql<string>`${column}`.mapWith(isoTimestamp);

/**
 * A page's columns per subclass: all but the UNSENT ones. The driver parsed and the mapping copied
 * them for every row (four UUIDs and a timestamp each, read and dropped), and their absence keeps
 * them out of the rows by construction. Timestamps come as the ISO strings the events carry
 * (isoTimestamp), not as Dates formatted again; the statement's text is the same.
 */
const PAGE_COLUMNS = Object.fromEntries(
  Object.entries(FINDING_TABLES).map(([sub, t]) => [
    sub,
    Object.fromEntries(
      Object.entries(getTableColumns(t))
        .filter(([name]) => !(UNSENT as readonly string[]).includes(name))
        .map(([name, column]) => [name, is(column, PgTimestamp) ? asIso(column) : column]),
    ),
  ]),
) as Record<Subclass, Record<string, AnyColumn | SQL>>;

type Columns = ReturnType<typeof getTableColumns<typeof findingsExploitScanner>>;
/** The page's selection (typed on one table: the three share what a query of them reads). */
type PageSelection = {
  [K in Exclude<keyof Columns, Unsent>]: Columns[K]['_']['columnType'] extends 'PgTimestamp'
    ? SQL<Columns[K]['_']['notNull'] extends true ? string : string | null>
    : Columns[K];
};

/** A page's columns as selected (or returned) from one subclass's table. */
export const pageColumnsOf = (sub: Subclass) => PAGE_COLUMNS[sub] as unknown as PageSelection;

/** A row's timestamps as the ISO strings a page reads them as. */
type IsoTimes<R> = { [K in keyof R]: Date extends R[K] ? Exclude<R[K], Date> | string : R[K] };

export type FindingRow =
  | ({ subclass: 'exploit_scanner' } & IsoTimes<Omit<typeof findingsExploitScanner.$inferSelect, Unsent>>)
  | ({ subclass: 'exploit_db' } & IsoTimes<Omit<typeof findingsExploitDb.$inferSelect, Unsent>>)
  | ({ subclass: 'leakcheck' } & IsoTimes<Omit<typeof findingsLeakcheck.$inferSelect, Unsent>>);

/** Totals above this are reported as `COUNT_CAP` with `total_exact: false`. */
export const COUNT_CAP = 10_000;
/**
 * A filtered request matching at most this many rows reads them through its filter's index and
 * sorts them; more, and the sort column's index is walked (a page is found within a few thousand
 * rows). A contains filter counts only this far: its total is exact up to here, a lower bound past it.
 */
export const CONTAINS_SORT_LIMIT = 2_000;
/** How far down the sort order a filtered page is looked for before its matches are sorted instead. */
const WALK_BUDGET = 4_000;
/** A walk's bound past the user's last finding (or a null sort value): no bound, the walk is the plan. */
const NO_BOUND: WalkBound = { v: null, id: '' };

/** The user's targets of one type; undefined when that is every target (the filter keeps all). */
async function targetsOfType(
  db: DbOrTx,
  userId: string,
  type: string,
  memo: FindingsMemo,
): Promise<string[] | undefined> {
  // Remembered with the totals: a target added, changed or deleted notifies the same channel (migration 0023).
  const key = JSON.stringify(['targets', type]);
  const remembered = await memo.get(key);
  if (typeof remembered === 'object' && 'ids' in remembered) return remembered.ids ?? undefined;
  const rows = await db
    .select({ id: targets.id, type: targets.targetType })
    .from(targets)
    .where(eq(targets.userId, userId));
  const ofType = rows.filter((r) => r.type === type).map((r) => r.id);
  const ids = ofType.length === rows.length && rows.length > 0 ? undefined : ofType;
  memo.set(key, { ids: ids ?? null });
  return ids;
}

/** The conditions of a request's filters and how its page is best read (see listFindings). */
interface FilterPlan {
  /** The owner first, then each filter's condition, then the scan's sightings. */
  conditions: SQL[];
  /** A filter with an index of its own matches: its rows may be few enough to read and sort. */
  indexed: boolean;
  /** A contains filter (trigram index), counted only up to CONTAINS_SORT_LIMIT. */
  contains: boolean;
  /** A one-scan total can be counted on finding_sightings alone. */
  sightingsCount: boolean;
}

/**
 * The SQL conditions of a request's filters, every value a placeholder (`bind`; the user and the
 * scan bound already): the conditions, and so the statements, are the same for every request of
 * the same shape (shapeKey) whatever its values.
 */
function filterPlan(
  sub: Subclass,
  body: TAllEventsBody,
  user: unknown,
  targetIds: string[] | undefined,
  scan: unknown,
  bind: Bind,
): FilterPlan {
  const t = FINDING_TABLES[sub];
  const conditions: SQL[] = [sql`${t.userId} = ${user}`];
  // Filters with an index of their own (btree, trigram, partial): when they match few rows, those
  // rows are read through it and sorted. The others (hide_resolved, leak_email_password, `with`)
  // keep most rows and are checked while the sort column's index is walked.
  let indexed = false;
  // Filters on the sort column's own index (severity sorted by severity, a main domain in its
  // default order): the page is a range of that index, read directly.
  const ordered: boolean[] = [];
  if (body.severity?.length) {
    // The severities are part of the shape: their bounds stay in the statement.
    conditions.push(severityMatch(t.severityOrdering, body.severity));
    indexed = true;
    ordered.push(!body.sort_key || body.sort_key === 'severity' || body.sort_key === 'severity_ordering');
  }
  if (targetIds) {
    conditions.push(sql`${t.targetId} = any(${bind(targetIds)}::uuid[])`);
    indexed = true;
  }
  if (body.main_domain_filter_opt) {
    conditions.push(
      textMatch(
        t.mainDomain,
        body.main_domain_filter_opt.domain_filter,
        body.main_domain_filter_opt.is_contains,
        true,
        bind,
      ),
    );
    indexed = true;
    // (user_id, main_domain, <default order>, id) indexes: severity, or add_ts for leaks.
    const mainDomainOrder = ['main_domain', sub === 'leakcheck' ? 'add_ts' : 'severity', 'severity_ordering'];
    ordered.push(
      !body.main_domain_filter_opt.is_contains && (!body.sort_key || mainDomainOrder.includes(body.sort_key)),
    );
  }
  if (body.hide_resolved) conditions.push(sql`not ${t.resolved} and ${t.status} <> 'fixed'`);
  if (body.scan_subclass === 'exploit_scanner' || body.scan_subclass === 'exploit_db') {
    const tt = body.scan_subclass === 'exploit_scanner' ? findingsExploitScanner : findingsExploitDb;
    if (body.subdomain_filter_opt) {
      conditions.push(
        textMatch(
          tt.subdomain,
          body.subdomain_filter_opt.subdomain_filter,
          body.subdomain_filter_opt.is_contains,
          true,
          bind,
        ),
      );
      indexed = true;
      // (user_id, subdomain, severity_ordering, id) indexes (migration 0021), and for template
      // findings (user_id, subdomain, id): equality in one of those orders is a range read directly.
      const subdomainOrder = [
        'severity',
        'severity_ordering',
        ...(sub === 'exploit_scanner' ? ['subdomain'] : []),
      ];
      ordered.push(
        !body.subdomain_filter_opt.is_contains && (!body.sort_key || subdomainOrder.includes(body.sort_key)),
      );
    }
  }
  // exploit_db findings are CVE matches: `with` keeps those with a CVE; `without` is served by
  // listTechnologiesWithoutCve (detected technologies that matched none).
  if (body.scan_subclass === 'exploit_db' && body.vulnerabilities_existence === 'with')
    conditions.push(sql`${findingsExploitDb.cve} <> ''`);
  if (body.scan_subclass === 'exploit_db' && body.known_exploited === true) {
    conditions.push(sql`${findingsExploitDb.kev}`);
    indexed = true;
  }
  if (body.scan_subclass === 'leakcheck') {
    if (body.subdomain_filter_opt) {
      conditions.push(
        textMatch(
          sql`split_part(${findingsLeakcheck.email}, '@', 2)`,
          body.subdomain_filter_opt.subdomain_filter,
          body.subdomain_filter_opt.is_contains,
          false,
          bind,
        ),
      );
      indexed = true;
    }
    if (body.leak_email_password === true)
      conditions.push(sql`${findingsLeakcheck.passwordEncrypted} is not null`);
    if (body.leak_email_password === false)
      conditions.push(sql`${findingsLeakcheck.passwordEncrypted} is null`);
    if (body.email_filter_opt) {
      const { email_filter: email, is_contains: contains } = body.email_filter_opt;
      // Equality without case on its own index (lower(email)), rather than the trigram index.
      conditions.push(
        contains
          ? textMatch(findingsLeakcheck.email, email, true, false, bind)
          : equalsIgnoringCase(findingsLeakcheck.email, email, bind),
      );
      indexed = true;
    }
  }
  // Only the owner filter, or a severity filter besides: a one-scan total is counted on
  // finding_sightings alone (index-only on (scan_id, subclass, severity_ordering)) rather than by
  // probing the sightings for every finding of the user (of those severities).
  const sightingsCount =
    conditions.length === 1 || (conditions.length === 2 && Boolean(body.severity?.length));
  // Every filter is on the sort column's index: the page is a range of it, read directly (with one
  // scan's sightings probed along it: sorting the matches instead read 34,044 pages for critical
  // ascending, one scan of 600,000 findings).
  const direct = ordered.length > 0 && ordered.every(Boolean) && ordered.length === conditions.length - 1;
  if (scan) {
    conditions.push(
      sql`exists (select 1 from ${findingSightings} s where s.scan_id = ${scan}::uuid and s.finding_id = ${t.id})`,
    );
    indexed = true;
  }
  if (direct) indexed = false;
  const contains =
    [body.main_domain_filter_opt, body.subdomain_filter_opt].some((o) => o?.is_contains) ||
    (body.scan_subclass === 'leakcheck' && body.email_filter_opt?.is_contains === true);
  return { conditions, indexed, contains, sightingsCount };
}

/** The free-text values of a request body: values, not shape (they enter as placeholders). */
const FREE_TEXT = new Set(['domain_filter', 'subdomain_filter', 'email_filter']);

/**
 * Everything a request's statements depend on besides its values: the body without its free
 * text (filters present, their kinds, severities, sort key and order), whether the targets filter
 * kept a list and whether one scan is read.
 */
function shapeKey(body: TAllEventsBody, targetIds: string[] | undefined, scanId: string | undefined): string {
  return JSON.stringify(
    [body, targetIds === undefined ? 0 : 1, scanId === undefined ? 0 : 1],
    (key, value) => (FREE_TEXT.has(key) ? '' : value),
  );
}

/** The events pages' statements that run outside a transaction, prepared once per shape. */
const PREPARED = new PreparedCache();

/** How many page statements a database handle holds prepared (tests). */
export const preparedPageStatements = (db: DbOrTx) => PREPARED.size(db);

/** A statement of a request, built on a handle (the pool, or a transaction) with its placeholders. */
type Build<T> = (q: DbOrTx) => { prepare(name: string): Prepared<T> };

/**
 * One page of a user's findings of one subclass, optionally only those one scan saw. `bitmapDb`
 * (Database.bitmapDb): a remembered total's few matches are read there, without a transaction.
 */
export async function listFindings(
  { db, bitmapDb, genericDb = db }: { db: DbOrTx; bitmapDb: DbOrTx; genericDb?: DbOrTx },
  userId: string,
  body: TAllEventsBody,
  page: { limit: number; offset: number },
  scanId?: string,
  memo: FindingsMemo = NO_MEMO,
): Promise<{ rows: FindingRow[]; total: number; totalExact: boolean }> {
  const none = { rows: [], total: 0, totalExact: true };
  const sub = body.scan_subclass;
  if (body.scan_class && body.scan_class !== SUBCLASS_OF_CLASS[sub]) return none;
  const t = FINDING_TABLES[sub];
  // Looked up first: no target of the type is an empty page at once (it was a walk of every
  // finding of the user), all of them is no filter, a few is a list the target index serves.
  const targetIds = body.targets_type ? await targetsOfType(db, userId, body.targets_type, memo) : undefined;
  if (targetIds?.length === 0) return none;
  // Every value is a placeholder: the statements are the same for every request of this shape.
  const b = new Bindings();
  const user = b.set('user', userId);
  const scan = scanId === undefined ? undefined : b.set('scan', scanId);
  const { conditions, indexed, contains, sightingsCount } = filterPlan(
    sub,
    body,
    user,
    targetIds,
    scan,
    b.bind,
  );
  const shape = shapeKey(body, targetIds, scanId);
  const limit = b.set('limit', page.limit);
  const offset = b.set('offset', page.offset);
  /**
   * Runs a statement with this request's values: on the pool, prepared once per shape (Drizzle
   * builds its SQL once); in a transaction, built for it.
   */
  const runner =
    (q: DbOrTx, once: boolean) =>
    <T>(key: string, build: Build<T>): Promise<T> =>
      (once
        ? PREPARED.get(q, `${key} ${shape}`, () =>
            mappedOnce(build(q).prepare(''), { named: namesStatements(q) }),
          )
        : build(q).prepare('')
      ).execute(b.values);
  const where = and(...conditions);
  const columns: Record<string, AnyColumn> = SORT_COLUMNS[sub];
  const sortColumn: AnyColumn | undefined = body.sort_key
    ? columns[body.sort_key]
    : sub === 'leakcheck'
      ? t.addTs
      : t.severityOrdering;
  const direction = body.sort_order ?? 'desc';
  // Plain asc/desc with the id as tie-breaker in the same direction, so a (user_id, column, id)
  // index serves the page directly, forwards or backwards, without sorting the user's findings.
  const order =
    direction === 'asc' ? [asc(sortColumn ?? t.addTs), asc(t.id)] : [desc(sortColumn ?? t.addTs), desc(t.id)];
  // CVEs without an EPSS score go last whichever way EPSS is sorted (each order has its index).
  if (body.sort_key === 'epss_score')
    order[0] = direction === 'asc' ? sql`${sortColumn} asc nulls last` : sql`${sortColumn} desc nulls last`;
  // The three tables share the lifecycle columns; Drizzle needs one concrete table per query.
  const table = t as typeof findingsExploitScanner;
  type Row = IsoTimes<Omit<typeof findingsExploitScanner.$inferSelect, Unsent>>;
  const pageColumns = pageColumnsOf(sub);
  const page_ = (run: ReturnType<typeof runner>, key: string, extra?: SQL) =>
    run(key, (q) =>
      q
        .select(pageColumns)
        .from(table)
        .where(extra ? and(where, extra) : where)
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    );
  // Counting stops at COUNT_CAP + 1 rows: past that the total is a lower bound, not a scan of
  // every finding of the user on each page request. A contains filter stops at CONTAINS_SORT_LIMIT
  // + 1 and counts through its trigram index (bitmap): walking a btree to test every host name
  // against the pattern until 10,001 match read 25,000 pages for "h12" (4.5 % of 600,000).
  const cap = contains ? CONTAINS_SORT_LIMIT : COUNT_CAP;
  const countQuery =
    scan && sightingsCount
      ? sql`select count(*)::int as n from (select 1 from ${findingSightings} where ${and(
          sql`${findingSightings.scanId} = ${scan}`,
          eq(findingSightings.subclass, sub),
          body.severity?.length ? severityMatch(findingSightings.severityOrdering, body.severity) : undefined,
        )} limit ${cap + 1}) capped`
      : sql`select count(*)::int as n from (select 1 from ${table} where ${where} limit ${cap + 1}) capped`;
  const capped = sql<number>`(${countQuery})`.mapWith(Number);
  const counted_ = sql<number>`n`.mapWith(Number);
  const total = await RememberedTotal.read(memo, scanId ?? '', body);
  const known = total.known;
  /**
   * The (sort value, id) `n` findings into the user's order: every finding before it compares
   * to it as a row, unless nulls come first (a nullable column descending) or it is null itself.
   */
  const walkBound = async (run: ReturnType<typeof runner>, n: number) => {
    const nullsLast = direction === 'asc' || body.sort_key === 'epss_score';
    if (!sortColumn || (!sortColumn.notNull && !nullsLast)) return undefined;
    // The user's findings in this order, whatever the filters: remembered with the totals.
    const key = JSON.stringify(['bound', sub, body.sort_key ?? '', direction, n]);
    const remembered = await memo.get(key);
    let bound = typeof remembered === 'object' && 'id' in remembered ? remembered : undefined;
    if (!bound) {
      b.set('boundAt', n);
      const [row] = await run('bound', (q) =>
        q
          .select({ v: sql`${sortColumn}`, id: t.id })
          .from(table)
          .where(sql`${t.userId} = ${user}`)
          .orderBy(...order)
          .limit(1)
          .offset(sql.placeholder('boundAt')),
      );
      bound = row ?? NO_BOUND;
      memo.set(key, bound);
    }
    return bound.v !== null ? bound : undefined;
  };
  let rows: Row[];
  let counted: number;
  if (!indexed) {
    const run = runner(db, true);
    // One statement: the page with the capped count beside each row (an uncorrelated subquery,
    // run once). A page past the last match has no row to carry the count: counted on its own.
    // A later page of the user's whole list: the offset is counted off in the sort index alone
    // (index-only), then only the page's rows are read from the table (offset 5,000: 1,667 pages
    // read instead of 5,100, 1.7 ms instead of 5.7 at 1,000,000 findings).
    const deep = page.offset > 0 && conditions.length === 1;
    const rowsOfPage = (q: DbOrTx) =>
      deep
        ? inArray(
            t.id,
            q
              .select({ id: t.id })
              .from(table)
              .where(where)
              .orderBy(...order)
              .limit(limit)
              .offset(offset),
          )
        : where;
    const skip = deep ? 0 : offset;
    const pageSize: number = EVENTS_PAGE_SIZE[sub];
    const variant = deep ? 'deep' : 'page';
    if (
      known !== undefined &&
      conditions.length === 1 &&
      !scan &&
      page.offset === 0 &&
      page.limit === pageSize
    ) {
      // The first page of the user's whole list, in the default page size: LIMIT a literal and no
      // OFFSET, so the one generic plan is the ordered walk of the sort index for any user (a user
      // of 600,000 findings or of none; PostgreSQL costs `LIMIT $n` as a tenth of the rows), and
      // planned once per session instead of per page (Database.genericDb).
      rows = await runner(genericDb, true)('first', (q) =>
        q
          .select(pageColumns)
          .from(table)
          .where(where)
          .orderBy(...order)
          // Drizzle binds a number; its SQL is inlined (the subclass's constant page size).
          .limit(sql.raw(String(pageSize)) as unknown as number),
      );
      counted = known;
    } else if (known !== undefined) {
      rows = await run(variant, (q) =>
        q
          .select(pageColumns)
          .from(table)
          .where(rowsOfPage(q))
          .orderBy(...order)
          .limit(limit)
          .offset(skip),
      );
      counted = known;
    } else {
      const withCount = await run(`${variant}+count`, (q) =>
        q
          .select({ row: pageColumns, n: capped })
          .from(table)
          .where(rowsOfPage(q))
          .orderBy(...order)
          .limit(limit)
          .offset(skip),
      );
      rows = withCount.map((r) => r.row);
      counted =
        withCount[0]?.n ??
        (await run('count', (q) => q.select({ n: counted_ }).from(sql`(${countQuery}) c`)))[0]?.n ??
        0;
    }
  } else {
    // Many matches: walk the sort column's index, but only over the first WALK_BUDGET findings of
    // the user in that order (a range the index reads, bounded). Matches that cluster far down the
    // order (sort by host, subdomain "h12": 504,195 pages walked) fill no page there: then read
    // them through the filter's index and sort them (index scans off), a cost bounded by the
    // matches. Without a bound (fewer findings than the budget, or nulls first in the order) the
    // walk is the plan. Past the budget, the sort of the matches costs at worst one read of the
    // table; the walk, a random heap read per finding of the user. Undefined: sort them.
    const walk = async (run: ReturnType<typeof runner>): Promise<Row[] | undefined> => {
      const bound = await walkBound(run, page.offset + WALK_BUDGET);
      if (!bound) return page_(run, 'page');
      const v = b.set('boundValue', bound.v);
      const id = b.set('boundId', bound.id);
      const within =
        direction === 'asc'
          ? sql`(${sortColumn}, ${t.id}) <= (${v}, ${id}::uuid)`
          : sql`(${sortColumn}, ${t.id}) >= (${v}, ${id}::uuid)`;
      const walked = await page_(run, 'walk', within);
      return walked.length === page.limit ? walked : undefined;
    };
    const sorted = (tx: DbOrTx) =>
      tx.execute(sql`set local enable_indexscan = off`).then(() => page_(runner(tx, false), 'page'));
    // The matches read through their filters' indexes and sorted, in one statement on the
    // sessions planned without plain index scans.
    const sortedMatches = () => page_(runner(bitmapDb, true), 'page');
    if (known !== undefined) {
      // A remembered total needs no count and no transaction. Few matches are read and sorted;
      // many need no planner setting (a contains filter's count stops at CONTAINS_SORT_LIMIT + 1:
      // its index scans would be set on, as they are): the walk, then the sorted matches if the
      // walk finds no page within its budget.
      rows =
        known <= CONTAINS_SORT_LIMIT
          ? await sortedMatches()
          : ((await walk(runner(db, true))) ?? (await sortedMatches()));
      counted = known;
    } else
      ({ rows, counted } = await db.transaction(async (tx) => {
        const run = runner(tx, false);
        // The first request of these filters counts their matches. Few: read them through the
        // filter's index (bitmap) and sort them — walking the sort column's index could pass every
        // finding of the user before the page fills when the matches cluster at the far end of the
        // order (e-mail contains "user12" by add_ts: 70,085 rows). More: the walk finds a page soon
        // enough. The count statement itself sets the index scans for the page that follows (off
        // for few matches, on for many), saving a round trip.
        const few = sql`case when n <= ${CONTAINS_SORT_LIMIT} then 'off' else 'on' end`;
        const settings = {
          indexScan: sql`set_config('enable_indexscan', ${few}, true)`,
          ...(contains ? { indexOnlyScan: sql`set_config('enable_indexonlyscan', ${few}, true)` } : {}),
        };
        // Index (and index-only) scans off: the filter's own index, read as a bitmap, counts the matches.
        if (contains)
          await tx.execute(
            sql`select set_config('enable_indexscan', 'off', true), set_config('enable_indexonlyscan', 'off', true)`,
          );
        const [c] = await run('count+settings', (q) =>
          q.select({ n: counted_, ...settings }).from(sql`(${countQuery}) c`),
        );
        const n = c?.n ?? 0;
        if (n <= CONTAINS_SORT_LIMIT) return { rows: await page_(run, 'page'), counted: n };
        return { rows: (await walk(run)) ?? (await sorted(tx)), counted: n };
      }));
  }
  total.keep(counted);
  return {
    // Tagged in place (the rows are this request's own): a copy of each row's fields was ~1 kB per row.
    rows: rows.map((r) => Object.assign(r, { subclass: sub }) as FindingRow),
    total: Math.min(counted, cap),
    totalExact: counted <= cap,
  };
}
