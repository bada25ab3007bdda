import { SEVERITY_RANK, type TSeverity } from '@perimeter/contracts';
import { type AnyColumn, and, inArray, type SQL, sql } from 'drizzle-orm';
import { escapeLike } from '../../db/like.ts';

/* The events filters' SQL conditions, shared by the findings and technologies pages. */

/**
 * How a request's value enters a condition: as a parameter of a statement built for the request
 * (`asParam`), or as a placeholder of a statement prepared once per shape (src/db/prepared.ts).
 */
export type Bind = (value: unknown) => unknown;
export const asParam: Bind = (value) => value;

/**
 * Case-insensitive text filter. `contains` is an ILIKE '%…%' served by the trigram indexes
 * (migration 0006). Equality on host names (main_domain, subdomain: stored lower-case) compares
 * with `=` so the btree indexes serve it in order; other columns (e-mail) use an ILIKE without
 * wildcards, which is a case-insensitive equality the trigram index can serve.
 */
export function textMatch(
  column: SQL | AnyColumn,
  value: string,
  contains: boolean,
  storedLowerCase = false,
  bind: Bind = asParam,
): SQL {
  if (contains) return sql`${column} ilike ${bind(`%${escapeLike(value)}%`)}`;
  if (storedLowerCase) return sql`${column} = ${bind(value.trim().toLowerCase())}`;
  return sql`${column} ilike ${bind(escapeLike(value))}`;
}

/**
 * Case-insensitive equality, as `lower(column) = lower(value)`: what an ILIKE without wildcards
 * compares (in a multi-byte database PostgreSQL's ILIKE lowers both sides with lower() and matches
 * them), in a form a btree on lower(column) serves (the leaks' e-mail: migration 0022) instead of
 * a trigram index.
 */
export function equalsIgnoringCase(column: AnyColumn, value: string, bind: Bind = asParam): SQL {
  return sql`lower(${column}) = lower(${bind(value)})`;
}

/**
 * A severity filter on severity_ordering (one-to-one with severity). A contiguous set (e.g.
 * critical + high) is a range the (user_id, severity_ordering, id) index reads in order, so a page
 * sorted by severity starts at the first matching row on any PostgreSQL version instead of walking
 * past every finding of the severities left out (13.9 s for critical + high ascending on 600,000
 * findings, before).
 */
export function severityMatch(column: AnyColumn, severities: readonly TSeverity[]): SQL {
  const ords = [...new Set(severities.map((s) => SEVERITY_RANK[s]))].sort((a, b) => a - b);
  const lo = ords[0] ?? 0;
  const hi = ords.at(-1) ?? 0;
  if (hi - lo + 1 === ords.length) return sql`${column} between ${lo} and ${hi}`;
  // Not contiguous (critical + low): the range bounds the index read on every version (before
  // PostgreSQL 17 an ordered index scan tests `= ANY` row by row: 14,526 pages on PG 15 walking
  // past every informational finding), the list drops the severities in between.
  return and(sql`${column} between ${lo} and ${hi}`, inArray(column, ords)) as SQL;
}
