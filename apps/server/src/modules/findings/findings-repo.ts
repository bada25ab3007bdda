import { SEVERITY_RANK, SUBCLASS_OF_CLASS, type TAllEventsBody, type TSeverity } from '@perimeter/contracts';
import { type AnyColumn, and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { escapeLike } from '../../db/like.ts';
import {
  findingSightings,
  findingsExploitDb,
  findingsExploitScanner,
  findingsLeakcheck,
  scanScope,
  scans,
  scanTargets,
  targets,
} from '../../db/schema/index.ts';

/*
 * The finding tables (one per subclass) and their read side: a user's findings page by page, a
 * finding resolved or reopened, the technologies a scan saw without a CVE. The write side (upsert,
 * mark unseen as fixed) is findings-write-repo.ts; the events API serves both.
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

/**
 * Case-insensitive text filter. `contains` is an ILIKE '%…%' served by the trigram indexes
 * (migration 0006). Equality on host names (main_domain, subdomain: stored lower-case) compares
 * with `=` so the btree indexes serve it in order; other columns (e-mail) use an ILIKE without
 * wildcards, which is a case-insensitive equality the trigram index can serve.
 */
function textMatch(column: SQL | AnyColumn, value: string, contains: boolean, storedLowerCase = false): SQL {
  if (contains) return sql`${column} ilike ${`%${escapeLike(value)}%`}`;
  if (storedLowerCase) return sql`${column} = ${value.trim().toLowerCase()}`;
  return sql`${column} ilike ${escapeLike(value)}`;
}

/**
 * A severity filter on severity_ordering (one-to-one with severity). A contiguous set (e.g.
 * critical + high) is a range the (user_id, severity_ordering, id) index reads in order, so a page
 * sorted by severity starts at the first matching row on any PostgreSQL version instead of walking
 * past every finding of the severities left out (13.9 s for critical + high ascending on 600,000
 * findings, before).
 */
function severityMatch(column: AnyColumn, severities: readonly TSeverity[]): SQL {
  const ords = [...new Set(severities.map((s) => SEVERITY_RANK[s]))].sort((a, b) => a - b);
  const lo = ords[0] ?? 0;
  const hi = ords.at(-1) ?? 0;
  if (hi - lo + 1 === ords.length) return sql`${column} between ${lo} and ${hi}`;
  return inArray(column, ords);
}

export type FindingRow =
  | ({ subclass: 'exploit_scanner' } & typeof findingsExploitScanner.$inferSelect)
  | ({ subclass: 'exploit_db' } & typeof findingsExploitDb.$inferSelect)
  | ({ subclass: 'leakcheck' } & typeof findingsLeakcheck.$inferSelect);

/** Totals above this are reported as `COUNT_CAP` with `total_exact: false`. */
export const COUNT_CAP = 10_000;
/** A contains filter matching at most this many rows is read by the trigram index, then sorted. */
const CONTAINS_SORT_LIMIT = 2_000;

/** One page of a user's findings of one subclass, optionally only those one scan saw. */
export async function listFindings(
  db: DbOrTx,
  userId: string,
  body: TAllEventsBody,
  page: { limit: number; offset: number },
  scanId?: string,
): Promise<{ rows: FindingRow[]; total: number; totalExact: boolean }> {
  const sub = body.scan_subclass;
  if (body.scan_class && body.scan_class !== SUBCLASS_OF_CLASS[sub])
    return { rows: [], total: 0, totalExact: true };
  const t = FINDING_TABLES[sub];
  const conditions: (SQL | undefined)[] = [eq(t.userId, userId)];
  if (body.severity?.length) conditions.push(severityMatch(t.severityOrdering, body.severity));
  if (body.targets_type)
    conditions.push(
      sql`${t.targetId} in (select ${targets.id} from ${targets} where ${targets.userId} = ${userId} and ${targets.targetType} = ${body.targets_type})`,
    );
  if (body.main_domain_filter_opt)
    conditions.push(
      textMatch(
        t.mainDomain,
        body.main_domain_filter_opt.domain_filter,
        body.main_domain_filter_opt.is_contains,
        true,
      ),
    );
  if (body.hide_resolved) conditions.push(sql`not ${t.resolved} and ${t.status} <> 'fixed'`);
  if (body.scan_subclass === 'exploit_scanner' || body.scan_subclass === 'exploit_db') {
    const tt = body.scan_subclass === 'exploit_scanner' ? findingsExploitScanner : findingsExploitDb;
    if (body.subdomain_filter_opt)
      conditions.push(
        textMatch(
          tt.subdomain,
          body.subdomain_filter_opt.subdomain_filter,
          body.subdomain_filter_opt.is_contains,
          true,
        ),
      );
  }
  // exploit_db findings are CVE matches: `with` keeps those with a CVE; `without` is served by
  // listTechnologiesWithoutCve (detected technologies that matched none).
  if (body.scan_subclass === 'exploit_db' && body.vulnerabilities_existence === 'with')
    conditions.push(sql`${findingsExploitDb.cve} <> ''`);
  if (body.scan_subclass === 'exploit_db' && body.known_exploited === true)
    conditions.push(sql`${findingsExploitDb.kev}`);
  if (body.scan_subclass === 'leakcheck') {
    if (body.subdomain_filter_opt)
      conditions.push(
        textMatch(
          sql`split_part(${findingsLeakcheck.email}, '@', 2)`,
          body.subdomain_filter_opt.subdomain_filter,
          body.subdomain_filter_opt.is_contains,
        ),
      );
    if (body.leak_email_password === true)
      conditions.push(sql`${findingsLeakcheck.passwordEncrypted} is not null`);
    if (body.leak_email_password === false)
      conditions.push(sql`${findingsLeakcheck.passwordEncrypted} is null`);
    if (body.email_filter_opt)
      conditions.push(
        textMatch(
          findingsLeakcheck.email,
          body.email_filter_opt.email_filter,
          body.email_filter_opt.is_contains,
        ),
      );
  }
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
  // CVEs without an EPSS score go last whichever way EPSS is sorted.
  if (body.sort_key === 'epss_score')
    order[0] = direction === 'asc' ? sql`${sortColumn} asc nulls last` : sql`${sortColumn} desc nulls last`;
  // Only the owner filter: a one-scan total is counted on finding_sightings alone (index-only on
  // (scan_id, subclass)) rather than by probing the sightings for every finding of the user.
  const unfiltered = conditions.length === 1;
  if (scanId)
    conditions.push(
      sql`exists (select 1 from ${findingSightings} s where s.scan_id = ${scanId}::uuid and s.finding_id = ${t.id})`,
    );
  const where = and(...conditions);
  // The three tables share the lifecycle columns; Drizzle needs one concrete table per query.
  const table = t as typeof findingsExploitScanner;
  const page_ = (q: DbOrTx) =>
    q
      .select()
      .from(table)
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset);
  // Counting stops at COUNT_CAP + 1 rows: past that the total is a lower bound, not a scan of
  // every finding of the user on each page request.
  const counting = (q: DbOrTx) =>
    q.execute<{ n: number }>(
      scanId && unfiltered
        ? sql`select count(*)::int as n from (select 1 from ${findingSightings} s where s.scan_id = ${scanId}::uuid and s.subclass = ${sub} limit ${COUNT_CAP + 1}) capped`
        : sql`select count(*)::int as n from (select 1 from ${table} where ${where} limit ${COUNT_CAP + 1}) capped`,
    );
  const contains =
    [body.main_domain_filter_opt, body.subdomain_filter_opt].some((o) => o?.is_contains) ||
    (body.scan_subclass === 'leakcheck' && body.email_filter_opt?.is_contains === true);
  let rows: (typeof findingsExploitScanner.$inferSelect)[];
  let count: Awaited<ReturnType<typeof counting>>;
  if (!contains) [rows, count] = await Promise.all([page_(db), counting(db)]);
  else {
    // A contains filter (trigram index) that matches few rows: walking the sort column's index
    // and filtering can pass tens of thousands of rows before the page fills when the matches
    // cluster at the far end of the order (e-mail contains "user12" by add_ts ascending on
    // 100,000 leaks: 70,085 rows, 263 ms). The capped count, cheap when few match, says which
    // case this is: few matches → read them through the trigram index and sort them; more (5,545
    // of 120,000 measured slower sorted than walked) → the index walk finds a page soon enough.
    count = await counting(db);
    if (Number(count.rows[0]?.n ?? 0) > CONTAINS_SORT_LIMIT) rows = await page_(db);
    else
      rows = await db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_indexscan = off`);
        return page_(tx);
      });
  }
  const counted = Number(count.rows[0]?.n ?? 0);
  return {
    rows: rows.map((r) => ({ ...r, subclass: sub }) as FindingRow),
    total: Math.min(counted, COUNT_CAP),
    totalExact: counted <= COUNT_CAP,
  };
}

export async function setResolved(
  db: DbOrTx,
  userId: string,
  sub: Subclass,
  id: string,
  resolved: { reason: string } | null,
): Promise<FindingRow | undefined> {
  const t = FINDING_TABLES[sub] as typeof findingsExploitScanner;
  const [row] = await db
    .update(t)
    .set(
      resolved
        ? { resolved: true, resolvedReason: resolved.reason, resolvedAt: new Date() }
        : { resolved: false, resolvedReason: null, resolvedAt: null },
    )
    .where(and(eq(t.userId, userId), eq(t.id, id)))
    .returning();
  return row ? ({ ...row, subclass: sub } as FindingRow) : undefined;
}

/** A technology a scan detected on a host with no CVE finding for that version (exploit_db "without"). */
export interface TechnologyRow {
  id: string;
  fingerprint: string;
  targetId: string;
  host: string;
  mainDomain: string;
  subdomain: string;
  tech: string;
  version: string;
  firstSeen: Date;
  lastSeen: Date;
}

/** Sort keys of exploit_db mapped onto the derived technology rows (whitelisted column names). */
const TECH_SORT: Record<string, string> = {
  tech: 'lower(tech)',
  version: 'version',
  main_domain: 'main_domain',
  add_ts: 'first_seen',
  last_update_ts: 'last_seen',
  last_check_ts: 'last_seen',
  info_created_ts: 'first_seen',
  info_updated_ts: 'last_seen',
  cve: 'lower(tech)',
  severity: 'lower(tech)',
};

/**
 * exploit_db with `vulnerabilities_existence: without`: the technologies (name + version per host)
 * the user's finished scans detected (scan_scope.technologies) for which no exploit_db finding — a
 * CVE — exists on that host. Derived at query time, so nothing is stored twice and the CVE finding
 * lifecycle is untouched; each row's id is stable (md5 of user, host, technology and version).
 */
export async function listTechnologiesWithoutCve(
  db: DbOrTx,
  userId: string,
  body: TAllEventsBody,
  page: { limit: number; offset: number },
  scanId?: string,
): Promise<{ rows: TechnologyRow[]; total: number }> {
  if (body.scan_subclass !== 'exploit_db') return { rows: [], total: 0 };
  if (body.scan_class && body.scan_class !== SUBCLASS_OF_CLASS.exploit_db) return { rows: [], total: 0 };
  if (body.severity?.length && !body.severity.includes('informational')) return { rows: [], total: 0 };
  const filters: SQL[] = [sql`true`];
  if (body.main_domain_filter_opt)
    filters.push(
      textMatch(
        sql.raw('main_domain'),
        body.main_domain_filter_opt.domain_filter,
        body.main_domain_filter_opt.is_contains,
        true,
      ),
    );
  if (body.subdomain_filter_opt)
    filters.push(
      textMatch(
        sql.raw('subdomain'),
        body.subdomain_filter_opt.subdomain_filter,
        body.subdomain_filter_opt.is_contains,
        true,
      ),
    );
  const direction = body.sort_order === 'asc' ? 'asc' : 'desc';
  const sortExpr = TECH_SORT[body.sort_key ?? 'tech'] ?? 'lower(tech)';
  const orderBy = sql.raw(`${sortExpr} ${direction}, host ${direction}, id ${direction}`);
  const scanFilter = scanId ? sql`and s.id = ${scanId}::uuid` : sql``;
  const typeFilter = body.targets_type ? sql`and s.target_type = ${body.targets_type}` : sql``;
  const result = await db.execute<{
    id: string;
    fingerprint: string;
    target_id: string;
    host: string;
    main_domain: string;
    subdomain: string;
    tech: string;
    version: string;
    first_seen: Date | string;
    last_seen: Date | string;
    total: number;
  }>(sql`
    with seen as (
      select a.name as host, coalesce(a.main_domain, a.name) as main_domain, tt.name as tech,
        coalesce(tt.version, '') as version, s.id as scan_id, coalesce(s.finished_at, s.created_at) as at
      from ${scans} s
      join ${scanScope} a on a.scan_id = s.id
      cross join lateral jsonb_to_recordset(a.technologies) as tt(name text, version text)
      where s.user_id = ${userId}::uuid and s.status in ('done', 'canceled') and tt.name is not null
        ${scanFilter} ${typeFilter}
    ), techs as (
      select md5(${userId} || '|' || host || '|' || lower(tech) || '|' || version)::uuid as id,
        host, main_domain,
        case when host = main_domain or right(host, length(main_domain) + 1) <> '.' || main_domain then ''
          else left(host, length(host) - length(main_domain) - 1) end as subdomain,
        min(tech) as tech, version, min(at) as first_seen, max(at) as last_seen,
        (array_agg(scan_id order by at desc))[1] as last_scan_id
      from seen
      group by host, main_domain, lower(tech), version
    ), without as (
      select t.*, (select st.target_id from ${scanTargets} st where st.scan_id = t.last_scan_id
          order by st.target_id limit 1) as target_id
      from techs t
      where not exists (
        select 1 from ${findingsExploitDb} f
        where f.user_id = ${userId}::uuid and f.host = t.host and lower(f.tech) = lower(t.tech)
          and f.version = t.version and f.cve <> ''
      )
    )
    select id::text as id, md5(host || '|' || lower(tech) || '|' || version) as fingerprint, target_id::text,
      host, main_domain, subdomain, tech, version, first_seen, last_seen, count(*) over ()::int as total
    from without
    where ${and(...filters)}
    order by ${orderBy}
    limit ${page.limit} offset ${page.offset}`);
  const rows = result.rows.map((r) => ({
    id: r.id,
    fingerprint: r.fingerprint,
    targetId: r.target_id,
    host: r.host,
    mainDomain: r.main_domain,
    subdomain: r.subdomain,
    tech: r.tech,
    version: r.version,
    firstSeen: new Date(r.first_seen),
    lastSeen: new Date(r.last_seen),
  }));
  let total = result.rows[0]?.total ?? 0;
  if (rows.length === 0 && page.offset > 0) {
    // Past the last page: count without paging.
    const again = await listTechnologiesWithoutCve(db, userId, body, { limit: 1, offset: 0 }, scanId);
    total = again.total;
  }
  return { rows, total };
}
