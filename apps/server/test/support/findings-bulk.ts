import type pg from 'pg';

/**
 * Bulk findings for one user, written with SQL `generate_series` (1,000,000 in a few minutes): the
 * events bench (scripts/events-bench.ts) and the query-plan test (test/events-plans.test.ts) share
 * them so the test guards the plans the bench measures. Skewed like real scans: r.h picks the
 * severity (5 % critical, 10 % high, 20 % medium, 25 % low, 40 % informational), r.g the host (a few
 * of the 2,000 hosts carry most findings), r.k the template (a few of the 300 templates match most
 * often). hashint4 keeps the data identical run to run.
 */

export interface BulkFindings {
  scanId: string;
  targetIds: string[];
  counts: { exploit_scanner: number; exploit_db: number; leakcheck: number };
}

const skew = `lateral (select abs(hashint4(i)) % 1000 as h, (abs(hashint4(i + 1000003)) % 1000) ^ 2 / 500 as g,
    floor(300 * ((abs(hashint4(i + 2000003)) % 1000) / 1000.0) ^ 3)::int as k) r`;
const sev = `case when r.h < 50 then 'critical' when r.h < 150 then 'high' when r.h < 350 then 'medium' when r.h < 600 then 'low' else 'informational' end`;
const sevOrd = `case when r.h < 50 then 5 when r.h < 150 then 4 when r.h < 350 then 3 when r.h < 600 then 2 else 1 end`;
const host = `'h' || r.g::int || '.site' || (1 + r.g::int % 20) || '.example'`;
const site = `'site' || (1 + r.g::int % 20) || '.example'`;

const INSERT = {
  exploit_scanner: `insert into findings_exploit_scanner (user_id, target_id, fingerprint, severity, severity_ordering, main_domain,
       status, template_id, name, host, subdomain, matched_at, add_ts, first_seen, last_seen, first_scan_id, last_scan_id, detail)
     select $1, ($2::uuid[])[1 + r.g::int % 20], 'es' || i, ${sev}, ${sevOrd}, ${site},
       (array['new','open','open','open','open','fixed','regressed'])[1 + i % 7], 'tpl-' || r.k, 'Template finding ' || r.k || '.' || (i % 7),
       ${host}, 'h' || r.g::int, 'http://' || ${host} || '/' || (i % 50), now() - (i % 10000) * interval '1 minute', now() - (i % 10000) * interval '1 minute', now(), $3, $3,
       jsonb_build_object('description', 'Bench finding ' || i, 'remediation', 'Fix it', 'references', jsonb_build_array('https://example.org/' || (i % 100)),
         'evidence', jsonb_build_object('curl', 'curl -sk http://' || ${host} || '/', 'request', 'GET /', 'response', 'HTTP/1.1 200 OK'))
     from generate_series($4::int, $5::int) i, ${skew}`,
  exploit_db: `insert into findings_exploit_db (user_id, target_id, fingerprint, severity, severity_ordering, main_domain, status,
       tech, version, cve, host, subdomain, port, cvss_score, info_created_ts, info_updated_ts, last_update_ts, last_check_ts,
       add_ts, first_scan_id, last_scan_id, kev, epss_score, detail)
     select $1, ($2::uuid[])[1 + r.g::int % 20], 'ed' || i, ${sev}, ${sevOrd}, ${site}, 'open',
       (array['jquery','nginx','openssl','php','wordpress','apache'])[1 + i % 6], '1.' || (i % 40) || '.' || (i % 7),
       case when i % 10 = 0 then '' else 'CVE-20' || (10 + i % 15) || '-' || (1000 + i % 50000) end,
       ${host}, 'h' || r.g::int,
       443, (i % 100) / 10.0, now() - (i % 3000) * interval '1 day', now() - (i % 300) * interval '1 day',
       now() - (i % 100) * interval '1 hour', now() - (i % 50) * interval '1 hour', now() - (i % 10000) * interval '1 minute', $3, $3,
       i % 97 = 0, case when i % 4 = 0 then null else (i % 1000) / 1000.0 end,
       jsonb_build_object('description', 'CVE bench ' || i)
     from generate_series($4::int, $5::int) i, ${skew}`,
  leakcheck: `insert into findings_leakcheck (user_id, target_id, fingerprint, severity, severity_ordering, main_domain, status,
       email, password, password_encrypted, leak_date, sources, add_ts, first_scan_id, last_scan_id, detail)
     select $1, ($2::uuid[])[1 + r.g::int % 20], 'lc' || i, case when i % 3 = 0 then 'medium' else 'high' end,
       case when i % 3 = 0 then 3 else 4 end, ${site}, 'open',
       'user' || i || '@' || ${site}, 'pa******' || (i % 100),
       case when i % 3 = 0 then null else 'v1.x.y.z' end, '20' || (10 + i % 14) || '-0' || (1 + i % 9), '{BenchLeak}',
       now() - (i % 10000) * interval '1 minute', $3, $3, '{}'::jsonb
     from generate_series($4::int, $5::int) i, ${skew}`,
} as const;

/** The secondary indexes of the finding tables (not those behind constraints), as pg_indexes has them. */
export async function findingIndexes(pool: pg.Pool): Promise<{ name: string; def: string }[]> {
  const { rows } = await pool.query<{ name: string; def: string }>(
    `select indexname as name, indexdef as def from pg_indexes
     where tablename in ('findings_exploit_scanner', 'findings_exploit_db', 'findings_leakcheck')
       and not exists (select 1 from pg_constraint c where c.conname = indexname)`,
  );
  return rows;
}

/**
 * Seeds `total` findings (60 % exploit_scanner, 30 % exploit_db, 10 % leakcheck) over 20 domain
 * targets and one done scan that saw a fifth of the template findings. With `rebuildIndexes` the
 * finding tables' secondary indexes are dropped first and built again once the rows are in (as a
 * restore does: much faster for a million rows); ends with VACUUM ANALYZE, as autovacuum would soon
 * after a bulk insert (statistics, and the visibility map that index-only counts rely on).
 */
export async function seedBulkFindings(
  pool: pg.Pool,
  userId: string,
  total: number,
  { rebuildIndexes = false, log = (_m: string) => {} } = {},
): Promise<BulkFindings> {
  const indexes = rebuildIndexes ? await findingIndexes(pool) : [];
  for (const ix of indexes) await pool.query(`drop index "${ix.name}"`);
  const { rows: tg } = await pool.query<{ id: string }>(
    `insert into targets (user_id, target_type, value, display_name, main_domain, verified, verification_token)
     select $1, 'domain', 'site' || i || '.example', 'site' || i || '.example', 'site' || i || '.example', true, 'bench'
     from generate_series(1, 20) i returning id`,
    [userId],
  );
  const targetIds = tg.map((t) => t.id);
  const { rows: sc } = await pool.query<{ id: string }>(
    `insert into scans (user_id, status, target_type, scan_type, subclasses, started_at, finished_at, percent)
     values ($1, 'done', 'domain', 'full', '{exploit_scanner,exploit_db,leakcheck}', now() - interval '1 hour', now(), 100) returning id`,
    [userId],
  );
  const scanId = sc[0]!.id;
  await pool.query('insert into scan_targets (scan_id, target_id) select $1, unnest($2::uuid[])', [
    scanId,
    targetIds,
  ]);
  const es = Math.round(total * 0.6);
  const ed = Math.round(total * 0.3);
  const counts = { exploit_scanner: es, exploit_db: ed, leakcheck: total - es - ed };
  const CHUNK = 100_000;
  for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck'] as const)
    for (let from = 1; from <= counts[sub]; from += CHUNK) {
      const to = Math.min(counts[sub], from + CHUNK - 1);
      await pool.query(INSERT[sub], [userId, targetIds, scanId, from, to]);
      log(`  ${sub} ${to.toLocaleString('en')}/${counts[sub].toLocaleString('en')}`);
    }
  // The scan saw a fifth of the template findings (for get_one_user_abstract_scan_events).
  await pool.query(
    `insert into finding_sightings (scan_id, finding_id, subclass, user_id, host, change, severity_ordering)
     select $1, id, 'exploit_scanner', $2, host, 'seen', severity_ordering from findings_exploit_scanner where user_id = $2 and fingerprint like 'es%5'`,
    [scanId, userId],
  );
  if (indexes.length) log(`building ${indexes.length} indexes`);
  for (const ix of indexes) await pool.query(ix.def);
  await seedScanHistory(pool, userId, log);
  await pool.query(
    'vacuum analyze findings_exploit_scanner, findings_exploit_db, findings_leakcheck, finding_sightings, targets, scans',
  );
  return { scanId, targetIds, counts };
}

/** Days of scan history seedScanHistory writes: a month of daily scans. */
export const HISTORY_SCANS = 30;

/**
 * A month of earlier daily scans over every host of the user's CVE findings (finished after the
 * bulk scan was created, so that one stays the user's first), each seeing four technologies per
 * host: one the host has a CVE finding for, and nginx, jQuery and PHP whose versions change over the
 * month (about 7 rows a host in technology_sightings, folded in by migration 0025's triggers as
 * each scan is marked done). The exploit_db list of technologies without a CVE then has a history
 * to read, as a customer's has. Idempotent: a user who has sightings already is left alone.
 */
export async function seedScanHistory(pool: pg.Pool, userId: string, log = (_m: string) => {}) {
  const { rows: has } = await pool.query('select 1 from technology_sightings where user_id = $1 limit 1', [
    userId,
  ]);
  if (has.length) return;
  log(`seeding ${HISTORY_SCANS} scans of history`);
  const { rows: history } = await pool.query<{ id: string; day: number }>(
    `insert into scans (user_id, status, target_type, scan_type, subclasses, started_at, percent)
     select $1, 'running', 'domain', 'full', '{exploit_db}', now() - d * interval '1 day', 50
     from generate_series(1, $2::int) d returning id, extract(day from now() - started_at)::int as day`,
    [userId, HISTORY_SCANS],
  );
  for (const { id, day } of history) {
    await pool.query(
      `insert into scan_targets (scan_id, target_id) select $1, id from targets where user_id = $2`,
      [id, userId],
    );
    await pool.query(
      `insert into scan_scope (scan_id, name, kind, main_domain, ip_addresses, opened_ports, services, technologies, emails, cnames, urls)
       select $1, h.host, 'subdomain', h.main_domain, '{}', '{443}', '[]',
         jsonb_build_array(
           jsonb_build_object('name', h.tech, 'version', h.version),
           jsonb_build_object('name', 'nginx', 'version', '1.' || (20 + $3::int / 10) || '.0'),
           jsonb_build_object('name', 'jQuery', 'version', '3.' || (length(h.host) % 7) || '.1'),
           jsonb_build_object('name', 'PHP', 'version', '8.' || ($3::int / 15) || '.2')),
         '{}', '{}', '{}'
       from (select host, min(main_domain) as main_domain, min(tech) as tech, min(version) as version
             from findings_exploit_db where user_id = $2 and cve <> '' group by host) h`,
      [id, userId, day],
    );
    await pool.query(
      `update scans set status = 'done', percent = 100, finished_at = started_at + interval '1 hour' where id = $1`,
      [id],
    );
  }
  await pool.query('vacuum analyze scan_scope, scan_targets, technology_sightings');
}
