import { SUBCLASS_OF_CLASS, type TAllEventsBody } from '@perimeter/contracts';
import { and, type SQL, sql } from 'drizzle-orm';
import { NO_MEMO } from '../../db/changes.ts';
import type { DbOrTx } from '../../db/client.ts';
import {
  findingsExploitDb,
  scanScope,
  scans,
  scanTargets,
  technologySightings,
} from '../../db/schema/index.ts';
import { type FindingsMemo, RememberedTotal } from './findings-counts.ts';
import { textMatch } from './findings-sql.ts';

/*
 * exploit_db with `vulnerabilities_existence: without`: detected technologies that matched no CVE,
 * derived at query time from the scans' scope (split from findings-repo.ts, which lists the findings).
 */

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

/**
 * exploit_db with `vulnerabilities_existence: without`: the technologies (name + version per host)
 * the user's finished scans detected (scan_scope.technologies) for which no exploit_db finding — a
 * CVE — exists on that host; each row's id is stable (md5 of user, host, technology and version).
 * The user's whole list reads technology_sightings (migration 0025: folded in as each scan finishes,
 * the CVE flag kept by triggers), an ordered walk of a partial index per sort key and an
 * index-only count, at a cost that does not grow with the scan history, its total remembered with
 * the user's other totals (`memo`); one scan's view derives them from that scan's scope.
 */
export async function listTechnologiesWithoutCve(
  db: DbOrTx,
  userId: string,
  body: TAllEventsBody,
  page: { limit: number; offset: number },
  scanId?: string,
  memo: FindingsMemo = NO_MEMO,
): Promise<{ rows: TechnologyRow[]; total: number }> {
  if (body.scan_subclass !== 'exploit_db') return { rows: [], total: 0 };
  if (body.scan_class && body.scan_class !== SUBCLASS_OF_CLASS.exploit_db) return { rows: [], total: 0 };
  if (body.severity?.length && !body.severity.includes('informational')) return { rows: [], total: 0 };
  const direction = body.sort_order === 'asc' ? 'asc' : 'desc';
  if (!scanId) return listSightingsWithoutCve(db, userId, body, page, direction, memo);
  const filters = [sql`true`, ...hostFilters(body, sql.raw('subdomain'))];
  const sortColumn = TECH_SORT[body.sort_key ?? 'tech'] ?? 'tech_key';
  const orderBy = sql.raw(`${sortColumn} ${direction}, host ${direction}, id ${direction}`);
  const typeFilter = body.targets_type ? sql`and s.target_type = ${body.targets_type}` : sql``;
  const result = await db.execute<RawTechnology & { total: number }>(sql`
    with seen as (
      select a.name as host, coalesce(a.main_domain, a.name) as main_domain, tt.name as tech,
        coalesce(tt.version, '') as version, s.id as scan_id, coalesce(s.finished_at, s.created_at) as at
      from ${scans} s
      join ${scanScope} a on a.scan_id = s.id
      cross join lateral jsonb_to_recordset(a.technologies) as tt(name text, version text)
      where s.user_id = ${userId}::uuid and s.status in ('done', 'canceled') and tt.name is not null
        and s.id = ${scanId}::uuid ${typeFilter}
    ), techs as (
      select md5(${userId} || '|' || host || '|' || lower(tech) || '|' || version)::uuid as id,
        host, main_domain, lower(tech) as tech_key,
        ${sql.raw(SUBDOMAIN)} as subdomain,
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
  const rows = result.rows.map(technologyRow);
  let total = result.rows[0]?.total ?? 0;
  if (rows.length === 0 && page.offset > 0) {
    // Past the last page: count without paging.
    const again = await listTechnologiesWithoutCve(db, userId, body, { limit: 1, offset: 0 }, scanId);
    total = again.total;
  }
  return { rows, total };
}

/** A technology row as the statements select it. */
type RawTechnology = {
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
};

const technologyRow = (r: RawTechnology): TechnologyRow => ({
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
});

/**
 * The column of each exploit_db sort key in a technologies list (whitelisted names): in
 * technology_sightings each has a partial index (migration 0025); the one-scan list's rows have the
 * same columns.
 */
const TECH_SORT: Record<string, string> = {
  tech: 'tech_key',
  version: 'version',
  main_domain: 'main_domain',
  add_ts: 'first_seen',
  last_update_ts: 'last_seen',
  last_check_ts: 'last_seen',
  info_created_ts: 'first_seen',
  info_updated_ts: 'last_seen',
  cve: 'tech_key',
  severity: 'tech_key',
};

/** A host's name below its main domain ('' for the domain itself or a name outside it). */
const SUBDOMAIN = `case when host = main_domain or right(host, length(main_domain) + 1) <> '.' || main_domain then ''
  else left(host, length(host) - length(main_domain) - 1) end`;

/**
 * The user's whole list: the page read in the order of the sort key's index (ties by host and id,
 * as the derived list ordered them), its total an index-only count of the same rows — counted once
 * per filter set and then remembered (`memo`: technology_sightings notifies findings_changed,
 * migration 0026), as listFindings remembers the findings' totals. The count tests each of the
 * user's rows against the filters: with a contains filter on the subdomain, 6,900 rows of the
 * bench's user each matched ILIKE against an expression, ~5 ms of PostgreSQL's CPU on every page
 * (the page itself, a walk of the sort index, ~2 ms).
 */
async function listSightingsWithoutCve(
  db: DbOrTx,
  userId: string,
  body: TAllEventsBody,
  page: { limit: number; offset: number },
  direction: 'asc' | 'desc',
  memo: FindingsMemo,
): Promise<{ rows: TechnologyRow[]; total: number }> {
  const where: SQL[] = [sql`user_id = ${userId}::uuid`, sql`not has_cve`];
  if (body.targets_type) where.push(sql`${body.targets_type} = any(target_types)`);
  where.push(...hostFilters(body, sql.raw(`(${SUBDOMAIN})`)));
  const sortColumn = TECH_SORT[body.sort_key ?? 'tech'] ?? 'tech_key';
  // Qualified: a bare `id` would be the selected id::text, sorted apart from the index's uuid.
  const orderBy = sql.raw(`t.${sortColumn} ${direction}, t.host ${direction}, t.id ${direction}`);
  const remembered = await RememberedTotal.read(memo, 'technologies', body);
  const known = remembered.known;
  const result = await db.execute<RawTechnology & { total: number }>(sql`
    select id::text as id, md5(host || '|' || tech_key || '|' || version) as fingerprint,
      (select st.target_id from ${scanTargets} st where st.scan_id = t.last_scan_id
        order by st.target_id limit 1)::text as target_id,
      host, main_domain, ${sql.raw(SUBDOMAIN)} as subdomain, tech, version, first_seen, last_seen${
        known === undefined
          ? sql`, (select count(*) from ${technologySightings} where ${and(...where)})::int as total`
          : sql``
      }
    from ${technologySightings} t
    where ${and(...where)}
    order by ${orderBy}
    limit ${page.limit} offset ${page.offset}`);
  let total = known ?? result.rows[0]?.total;
  if (total === undefined) {
    // Past the last page (or none): the count alone.
    const counted = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from ${technologySightings} where ${and(...where)}`,
    );
    total = counted.rows[0]?.n ?? 0;
  }
  remembered.keep(total);
  return { rows: result.rows.map(technologyRow), total };
}

/** The main domain and subdomain filters of a technologies list (`subdomain`: its column or expression). */
function hostFilters(body: TAllEventsBody, subdomain: SQL): SQL[] {
  const out: SQL[] = [];
  if (body.main_domain_filter_opt) {
    const f = body.main_domain_filter_opt;
    out.push(textMatch(sql.raw('main_domain'), f.domain_filter, f.is_contains, true));
  }
  if (body.subdomain_filter_opt) {
    const f = body.subdomain_filter_opt;
    out.push(textMatch(subdomain, f.subdomain_filter, f.is_contains, true));
  }
  return out;
}
