import type { TAllEventsBody } from '@perimeter/contracts';
import { type AnyColumn, and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  findingSightings,
  findingsExploitDb,
  findingsExploitScanner,
  findingsLeakcheck,
  targets,
} from '../../db/schema/index.ts';
import { escapeLike } from '../scans/scans-repo.ts';

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
  },
  leakcheck: {
    email: findingsLeakcheck.email,
    password: findingsLeakcheck.password,
    leak_date: findingsLeakcheck.leakDate,
    main_domain: findingsLeakcheck.mainDomain,
    add_ts: findingsLeakcheck.addTs,
  },
} as const;

const SUBCLASS_CLASS = {
  exploit_scanner: 'class_exploitation',
  exploit_db: 'class_exploitation',
  leakcheck: 'class_information_gathering',
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

export type FindingRow =
  | ({ subclass: 'exploit_scanner' } & typeof findingsExploitScanner.$inferSelect)
  | ({ subclass: 'exploit_db' } & typeof findingsExploitDb.$inferSelect)
  | ({ subclass: 'leakcheck' } & typeof findingsLeakcheck.$inferSelect);

/** One page of a user's findings of one subclass, optionally only those one scan saw. */
/** Totals above this are reported as `COUNT_CAP` with `total_exact: false`. */
export const COUNT_CAP = 10_000;

export async function listFindings(
  db: DbOrTx,
  userId: string,
  body: TAllEventsBody,
  page: { limit: number; offset: number },
  scanId?: string,
): Promise<{ rows: FindingRow[]; total: number; totalExact: boolean }> {
  const sub = body.scan_subclass;
  if (body.scan_class && body.scan_class !== SUBCLASS_CLASS[sub])
    return { rows: [], total: 0, totalExact: true };
  const t = FINDING_TABLES[sub];
  const conditions: (SQL | undefined)[] = [eq(t.userId, userId)];
  if (body.severity?.length) conditions.push(inArray(t.severity, body.severity));
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
  if (body.scan_subclass === 'exploit_db' && body.vulnerabilities_existence)
    conditions.push(
      body.vulnerabilities_existence === 'with'
        ? sql`${findingsExploitDb.cve} <> ''`
        : sql`${findingsExploitDb.cve} = ''`,
    );
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
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(table)
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset),
    // Counting stops at COUNT_CAP + 1 rows: past that the total is a lower bound, not a scan of
    // every finding of the user on each page request.
    db.execute<{ n: number }>(
      scanId && unfiltered
        ? sql`select count(*)::int as n from (select 1 from ${findingSightings} s where s.scan_id = ${scanId}::uuid and s.subclass = ${sub} limit ${COUNT_CAP + 1}) capped`
        : sql`select count(*)::int as n from (select 1 from ${table} where ${where} limit ${COUNT_CAP + 1}) capped`,
    ),
  ]);
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
