import type { CveFinding, LeakFinding, TemplateFinding } from '@perimeter/engine';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scans } from '../src/db/schema/index.ts';
import { upsertFindings } from '../src/modules/findings/findings-write-repo.ts';
import { saveScope } from '../src/modules/scans/scans-repo.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, createScan, seedScan, signUp } from './support/scan-lab.ts';

/**
 * The events filters after the index work of migrations 0005/0006: equality on host names served by
 * btree indexes (still case-insensitive for the caller), contains by trigram indexes, e-mail equality
 * by ILIKE, and one-scan totals counted on finding_sightings.
 */
let t: TestApp;
let api: Api;
let userId: string;
let targetId: string;
let scanA: string;
let scanB: string;

type Page = {
  items: Record<string, unknown>[];
  total: number;
  total_exact: boolean;
  details_hidden: boolean;
};

const es = (fp: string, sub: string, domain = 'filters.example.com'): TemplateFinding => ({
  subclass: 'exploit_scanner',
  fingerprint: fp,
  templateId: `tpl-${fp}`,
  name: `Finding ${fp}`,
  severity: 'medium',
  severityOrdering: 3,
  host: sub ? `${sub}.${domain}` : domain,
  mainDomain: domain,
  subdomain: sub,
  matchedAt: `http://${sub}.${domain}/`,
  extracted: [],
  references: [],
  tags: [],
});

const leak = (fp: string, email: string): LeakFinding => ({
  subclass: 'leakcheck',
  fingerprint: fp,
  email,
  password: 'pa******rd',
  sources: ['combo'],
  leakDate: '2020-01-01',
  mainDomain: 'filters.example.com',
});

const cve = (fp: string, cveId: string): CveFinding => ({
  subclass: 'exploit_db',
  fingerprint: fp,
  tech: 'nginx',
  version: '1.14.0',
  cve: cveId,
  severity: 'high',
  severityOrdering: 4,
  lastCheckTs: new Date().toISOString(),
  host: 'www.filters.example.com',
  mainDomain: 'filters.example.com',
  subdomain: 'www',
  references: [],
});

async function scanSeeing(findings: {
  exploit_scanner?: TemplateFinding[];
  exploit_db?: CveFinding[];
  leakcheck?: LeakFinding[];
}): Promise<string> {
  const db = t.runtime.ctx.db;
  const scan = await createScan(api, targetId);
  await upsertFindings(db, scan.id, userId, {
    exploit_scanner: (findings.exploit_scanner ?? []).map((finding) => ({ targetId, finding })),
    exploit_db: (findings.exploit_db ?? []).map((finding) => ({ targetId, finding })),
    leakcheck: (findings.leakcheck ?? []).map((finding) => ({ targetId, finding })),
  });
  await db.update(scans).set({ status: 'done' }).where(eq(scans.id, scan.id));
  return scan.id;
}

async function events(body: Record<string, unknown>, path = '/main/get_all_user_abstract_scan_events') {
  const res = await api.post<{ data: Page }>(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

beforeAll(async () => {
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
  ({ api, userId } = await signUp(t, 'business'));
  ({ targetId } = await seedScan(t, api, userId, 'filters.example.com'));
  scanA = await scanSeeing({
    exploit_scanner: [es('a1', 'app'), es('a2', 'api'), es('a3', 'www')],
    leakcheck: [leak('l1', 'Alice@Filters.example.com'), leak('l2', 'bob@filters.example.com')],
  });
  scanB = await scanSeeing({ exploit_scanner: [es('a1', 'app'), es('b1', 'mail')] });
});
afterAll(async () => t?.close());

describe('events filters', () => {
  it('has the filter indexes (btree for host-name equality, trigram for contains)', async () => {
    const { rows } = await t.runtime.ctx.database.pool.query<{ indexname: string }>(
      `select indexname from pg_indexes where tablename like 'findings_%'`,
    );
    const names = rows.map((r) => r.indexname);
    for (const name of [
      'fes_user_main_domain_sev_idx',
      'fdb_user_main_domain_sev_idx',
      'flc_user_main_domain_add_ts_idx',
      'fes_subdomain_trgm_idx',
      'fes_main_domain_trgm_idx',
      'fdb_subdomain_trgm_idx',
      'fdb_main_domain_trgm_idx',
      'flc_email_trgm_idx',
      'flc_main_domain_trgm_idx',
      'flc_email_domain_trgm_idx',
    ])
      expect(names).toContain(name);
  });

  it('has exactly the indexes the statements need (0024 dropped the two none read)', async () => {
    // Each index is planned for on every page of its table and written on every finding insert:
    // one more (or a redundant one back) must be a decision, one fewer is a lost sort key, filter,
    // uniqueness or lookup (docs/events-queries.md, "Sort keys").
    const { rows } = await t.runtime.ctx.database.pool.query<{ indexname: string }>(
      `select indexname from pg_indexes where tablename in
        ('findings_exploit_scanner', 'findings_exploit_db', 'findings_leakcheck') order by 1`,
    );
    const sortKeys = (prefix: string, keys: string[]) => keys.map((k) => `${prefix}_user_${k}_idx`);
    expect(rows.map((r) => r.indexname).sort()).toEqual(
      [
        // Primary keys and the writers' upsert key.
        'findings_exploit_scanner_pkey',
        'findings_exploit_db_pkey',
        'findings_leakcheck_pkey',
        'fes_target_fp_key',
        'fdb_target_fp_key',
        'flc_target_fp_key',
        // A (user_id, column, id) index per sort key.
        ...sortKeys('fes', ['name', 'sevord', 'host', 'main_domain', 'subdomain', 'add_ts']),
        ...sortKeys('fdb', [
          'tech',
          'version',
          'info_created',
          'info_updated',
          'main_domain',
          'last_update',
          'last_check',
          'cve',
          'add_ts',
          'severity',
          'epss',
          'epss_desc',
        ]),
        ...sortKeys('flc', ['email', 'password', 'leak_date', 'main_domain', 'add_ts', 'sevord']),
        // Filters in the default order, by equality, KEV; the intel sync's CVE lookup.
        'fes_user_main_domain_sev_idx',
        'fes_user_subdomain_sev_idx',
        'fdb_user_main_domain_sev_idx',
        'fdb_user_subdomain_sev_idx',
        'fdb_user_kev_sev_idx',
        'fdb_cve_idx',
        // The technologies-without-CVE list's probe of a host's CVE findings (0025).
        'fdb_user_host_tech_idx',
        'flc_user_main_domain_add_ts_idx',
        'flc_user_email_lower_idx',
        // Contains filters (trigram).
        'fes_subdomain_trgm_idx',
        'fes_main_domain_trgm_idx',
        'fdb_subdomain_trgm_idx',
        'fdb_main_domain_trgm_idx',
        'flc_email_trgm_idx',
        'flc_main_domain_trgm_idx',
        'flc_email_domain_trgm_idx',
      ].sort(),
    );
  });

  it('main_domain equality is case-insensitive and exact', async () => {
    const page = await events({
      scan_subclass: 'exploit_scanner',
      main_domain_filter_opt: { domain_filter: ' Filters.Example.COM ', is_contains: false },
    });
    // seedScan's finding + a1, a2, a3, b1.
    expect(page.total).toBe(5);
    const none = await events({
      scan_subclass: 'exploit_scanner',
      main_domain_filter_opt: { domain_filter: 'example.com', is_contains: false },
    });
    expect(none.total).toBe(0);
  });

  it('contains filters match substrings case-insensitively, with LIKE wildcards taken literally', async () => {
    const page = await events({
      scan_subclass: 'exploit_scanner',
      subdomain_filter_opt: { subdomain_filter: 'AP', is_contains: true },
    });
    expect(page.items.map((i) => i.subdomain).sort()).toEqual(['api', 'app']);
    const wildcard = await events({
      scan_subclass: 'exploit_scanner',
      subdomain_filter_opt: { subdomain_filter: 'a_p', is_contains: true },
    });
    expect(wildcard.total).toBe(0);
    const domain = await events({
      scan_subclass: 'exploit_scanner',
      main_domain_filter_opt: { domain_filter: 'ILTERS.exa', is_contains: true },
    });
    expect(domain.total).toBe(5);
  });

  it('e-mail equality is case-insensitive; e-mail contains works', async () => {
    const exact = await events({
      scan_subclass: 'leakcheck',
      email_filter_opt: { email_filter: 'alice@filters.EXAMPLE.com', is_contains: false },
    });
    expect(exact.items.map((i) => i.email)).toEqual(['Alice@Filters.example.com']);
    const partial = await events({
      scan_subclass: 'leakcheck',
      email_filter_opt: { email_filter: 'BOB@', is_contains: true },
    });
    expect(partial.items.map((i) => i.email)).toEqual(['bob@filters.example.com']);
  });

  it('one-scan views list and count only what that scan saw, with and without other filters', async () => {
    const path = '/main/get_one_user_abstract_scan_events';
    const a = await events({ id: scanA, scan_subclass: 'exploit_scanner' }, path);
    expect(a.total).toBe(3);
    expect(a.items.map((i) => i.subdomain).sort()).toEqual(['api', 'app', 'www']);
    const b = await events({ id: scanB, scan_subclass: 'exploit_scanner' }, path);
    expect(b.total).toBe(2);
    const bFiltered = await events(
      {
        id: scanB,
        scan_subclass: 'exploit_scanner',
        subdomain_filter_opt: { subdomain_filter: 'mail', is_contains: false },
      },
      path,
    );
    expect(bFiltered.total).toBe(1);
    expect(bFiltered.items[0]?.subdomain).toBe('mail');
    const leaks = await events({ id: scanA, scan_subclass: 'leakcheck' }, path);
    expect(leaks.total).toBe(2);
    const noLeaks = await events({ id: scanB, scan_subclass: 'leakcheck' }, path);
    expect(noLeaks.total).toBe(0);
    expect(noLeaks.items).toEqual([]);
  });

  it('one-scan severity filters follow a finding whose severity changes after the scan', async () => {
    const path = '/main/get_one_user_abstract_scan_events';
    const scanC = await scanSeeing({ exploit_scanner: [es('s1', 'sev1'), es('s2', 'sev2')] });
    const seen = async (scan: string, severity: string[]) => {
      const page = await events({ id: scan, scan_subclass: 'exploit_scanner', severity }, path);
      expect(page.items).toHaveLength(page.total);
      return page.items.map((i) => i.subdomain).sort();
    };
    expect(await seen(scanC, ['medium'])).toEqual(['sev1', 'sev2']);
    expect(await seen(scanC, ['critical'])).toEqual([]);
    // A later scan finds s1 critical: the finding and every scan's sighting of it say so.
    const scanD = await scanSeeing({
      exploit_scanner: [{ ...es('s1', 'sev1'), severity: 'critical', severityOrdering: 5 }],
    });
    expect(await seen(scanC, ['critical'])).toEqual(['sev1']);
    expect(await seen(scanC, ['medium'])).toEqual(['sev2']);
    expect(await seen(scanD, ['critical', 'high'])).toEqual(['sev1']);
    // Changed in place (as intelligence does): the sightings follow.
    const pool = t.runtime.ctx.database.pool;
    await pool.query(
      `update findings_exploit_scanner set severity = 'low', severity_ordering = 2 where user_id = $1 and fingerprint = 's2'`,
      [userId],
    );
    expect(await seen(scanC, ['low'])).toEqual(['sev2']);
    expect(await seen(scanC, ['medium'])).toEqual([]);
    // A sighting written without the severity takes its finding's.
    await pool.query(
      `insert into finding_sightings (scan_id, finding_id, subclass, user_id, change)
       select $1, id, 'exploit_scanner', user_id, 'seen' from findings_exploit_scanner where user_id = $2 and fingerprint = 's2'`,
      [scanD, userId],
    );
    expect(await seen(scanD, ['low'])).toEqual(['sev2']);
    // A finding deleted (with its target) leaves no sighting behind to be counted.
    const { rows } = await pool.query<{ n: number }>(
      `with gone as (delete from findings_exploit_scanner where user_id = $1 and fingerprint = 's2' returning id)
       select count(*)::int as n from gone`,
      [userId],
    );
    expect(rows[0]?.n).toBe(1);
    expect(await seen(scanC, ['low'])).toEqual([]);
    const left = await pool.query<{ n: number }>(
      `select count(*)::int as n from finding_sightings where scan_id = any($1::uuid[]) and severity_ordering = 2`,
      [[scanC, scanD]],
    );
    expect(left.rows[0]?.n).toBe(0);
  });

  it('vulnerabilities_existence: with = CVE findings; without = detected technologies with no CVE', async () => {
    const db = t.runtime.ctx.db;
    const scan = await createScan(api, targetId);
    await upsertFindings(db, scan.id, userId, {
      exploit_scanner: [],
      exploit_db: [{ targetId, finding: cve('c1', 'CVE-2021-23017') }],
      leakcheck: [],
    });
    const asset = (name: string, technologies: { name: string; version: string | null }[]) => ({
      name,
      kind: 'subdomain' as const,
      mainDomain: 'filters.example.com',
      ipAddresses: ['203.0.113.10'],
      openedPorts: [443],
      services: [],
      technologies,
      emails: [],
      cnames: [],
      urls: [],
    });
    await saveScope(db, scan.id, [
      asset('www.filters.example.com', [
        { name: 'nginx', version: '1.14.0' },
        { name: 'jQuery', version: '3.7.1' },
      ]),
      asset('api.filters.example.com', [{ name: 'PHP', version: '8.2.1' }]),
    ]);
    await db.update(scans).set({ status: 'done', finishedAt: new Date() }).where(eq(scans.id, scan.id));

    const withCve = await events({ scan_subclass: 'exploit_db', vulnerabilities_existence: 'with' });
    // seedScan's Nginx CVE and c1.
    expect(withCve.total).toBe(2);
    expect(withCve.items.every((i) => typeof i.cve === 'string' && i.cve !== '')).toBe(true);

    const without = await events({
      scan_subclass: 'exploit_db',
      vulnerabilities_existence: 'without',
      sort_key: 'tech',
      sort_order: 'asc',
    });
    expect(without.total).toBe(2);
    expect(without.items.map((i) => [i.tech, i.version, i.host, i.subdomain, i.cve, i.severity])).toEqual([
      ['jQuery', '3.7.1', 'www.filters.example.com', 'www', '', 'informational'],
      ['PHP', '8.2.1', 'api.filters.example.com', 'api', '', 'informational'],
    ]);
    expect(without.items[0]?.user_target_id).toBe(targetId);
    // Stable ids across requests.
    const again = await events({ scan_subclass: 'exploit_db', vulnerabilities_existence: 'without' });
    expect(again.items.map((i) => i.id).sort()).toEqual(without.items.map((i) => i.id).sort());

    const filtered = await events({
      scan_subclass: 'exploit_db',
      vulnerabilities_existence: 'without',
      subdomain_filter_opt: { subdomain_filter: 'AP', is_contains: true },
    });
    expect(filtered.items.map((i) => i.tech)).toEqual(['PHP']);
    const high = await events({
      scan_subclass: 'exploit_db',
      vulnerabilities_existence: 'without',
      severity: ['high'],
    });
    expect(high.total).toBe(0);
    const paged = await api.post<{ data: Page }>('/main/get_all_user_abstract_scan_events?limit=1&offset=1', {
      scan_subclass: 'exploit_db',
      vulnerabilities_existence: 'without',
      sort_key: 'tech',
      sort_order: 'asc',
    });
    expect(paged.body.data.items.map((i) => i.tech)).toEqual(['PHP']);
    expect(paged.body.data.total).toBe(2);

    const path = '/main/get_one_user_abstract_scan_events';
    const oneScan = await events(
      { id: scan.id, scan_subclass: 'exploit_db', vulnerabilities_existence: 'without' },
      path,
    );
    expect(oneScan.total).toBe(2);
    // The seeded scan saw only nginx 1.14.0, which has a CVE.
    const seeded = await events(
      { id: scanA, scan_subclass: 'exploit_db', vulnerabilities_existence: 'without' },
      path,
    );
    expect(seeded.total).toBe(0);
  });

  it('lists the technologies of the whole scan history without reading it again (technology_sightings)', async () => {
    const db = t.runtime.ctx.db;
    const { pool } = t.runtime.ctx.database;
    const hostOf = (name: string) => ({
      name: `${name}.tech.example.net`,
      kind: 'subdomain' as const,
      mainDomain: 'tech.example.net',
      ipAddresses: ['203.0.113.20'],
      openedPorts: [443],
      services: [],
      emails: [],
      cnames: [],
      urls: [],
    });
    const at = (day: number) => new Date(Date.UTC(2026, 10, day, 12));
    const finished = async (
      status: 'done' | 'canceled',
      day: number,
      scope: { host: string; technologies: { name: string; version: string | null }[] }[],
    ) => {
      const scan = await createScan(api, targetId);
      await saveScope(
        db,
        scan.id,
        scope.map((h) => ({ ...hostOf(h.host), technologies: h.technologies })),
      );
      await db
        .update(scans)
        .set({ status, finishedAt: at(day) })
        .where(eq(scans.id, scan.id));
      return scan.id;
    };
    await finished('done', 1, [
      {
        host: 'x',
        technologies: [
          { name: 'Apache', version: '2.4.1' },
          { name: 'nginx', version: '1.2' },
        ],
      },
    ]);
    await finished('done', 2, [
      { host: 'x', technologies: [{ name: 'apache', version: '2.4.1' }] },
      { host: 'y', technologies: [{ name: 'PHP', version: null }] },
    ]);
    const canceled = await finished('canceled', 3, [
      { host: 'z', technologies: [{ name: 'Redis', version: '7' }] },
    ]);
    // A canceled scan's worker writing its last batch after the cancel.
    await saveScope(db, canceled, [{ ...hostOf('w'), technologies: [{ name: 'Node.js', version: '20' }] }]);
    // A scan still running is not in the list.
    const running = await createScan(api, targetId);
    await saveScope(db, running.id, [{ ...hostOf('v'), technologies: [{ name: 'Go', version: '1.22' }] }]);

    const tech = { scan_subclass: 'exploit_db', vulnerabilities_existence: 'without' } as const;
    const onTech = { main_domain_filter_opt: { domain_filter: 'tech.example.net', is_contains: false } };
    const withoutCve = { ...tech, ...onTech, sort_key: 'tech', sort_order: 'asc' };
    const list = await events(withoutCve);
    expect(list.total).toBe(5);
    expect(
      list.items.map((i) => [
        i.tech,
        i.version,
        i.host,
        i.subdomain,
        i.first_seen,
        i.last_seen,
        i.user_target_id,
      ]),
    ).toEqual([
      ['Apache', '2.4.1', 'x.tech.example.net', 'x', at(1).toISOString(), at(2).toISOString(), targetId],
      ['nginx', '1.2', 'x.tech.example.net', 'x', at(1).toISOString(), at(1).toISOString(), targetId],
      ['Node.js', '20', 'w.tech.example.net', 'w', at(3).toISOString(), at(3).toISOString(), targetId],
      ['PHP', '', 'y.tech.example.net', 'y', at(2).toISOString(), at(2).toISOString(), targetId],
      ['Redis', '7', 'z.tech.example.net', 'z', at(3).toISOString(), at(3).toISOString(), targetId],
    ]);
    // The migration's backfill folds the same rows from the scopes as the triggers did.
    const folded = `select host, tech_key, version, tech, first_seen, last_seen, last_scan_id
      from technology_sightings where user_id = $1 order by 1, 2, 3`;
    const before = await pool.query(folded, [userId]);
    expect(before.rows.filter((r) => String(r.host).endsWith('.tech.example.net'))).toHaveLength(5);
    await pool.query('delete from technology_sightings where user_id = $1', [userId]);
    await pool.query(
      `select record_technology_sightings(array(select id from scans where user_id = $1 and status in ('done', 'canceled')))`,
      [userId],
    );
    expect((await pool.query(folded, [userId])).rows).toEqual(before.rows);
    // Read from the folded rows, not the scopes: with those scopes gone, the list is the same.
    await pool.query(`delete from scan_scope where name like '%.tech.example.net'`);
    const again = await events(withoutCve);
    expect(again).toEqual(list);

    // A CVE finding found later for PHP on y takes it off the list; deleted (its target's), back.
    const later = await createScan(api, targetId);
    await upsertFindings(db, later.id, userId, {
      exploit_scanner: [],
      exploit_db: [
        {
          targetId,
          finding: {
            ...cve('t-php', 'CVE-2024-4577'),
            tech: 'php',
            version: '',
            host: 'y.tech.example.net',
            mainDomain: 'tech.example.net',
            subdomain: 'y',
          },
        },
      ],
      leakcheck: [],
    });
    const hostsOf = async (body: Record<string, unknown>) =>
      (await events({ ...tech, ...onTech, ...body })).items.map((i) => `${i.tech}@${i.subdomain}`).sort();
    expect(await hostsOf({})).toEqual(['Apache@x', 'Node.js@w', 'Redis@z', 'nginx@x']);
    await pool.query(`delete from findings_exploit_db where fingerprint = 't-php' and user_id = $1`, [
      userId,
    ]);
    expect(await hostsOf({})).toEqual(['Apache@x', 'Node.js@w', 'PHP@y', 'Redis@z', 'nginx@x']);
    // Every sort key reads the same rows, in its order, both ways; a targets_type filter keeps the
    // rows a scan of that type saw.
    for (const sort_key of ['tech', 'version', 'main_domain', 'add_ts', 'last_update_ts'] as const)
      for (const sort_order of ['asc', 'desc'] as const) {
        const page = await events({ ...tech, ...onTech, sort_key, sort_order });
        expect(page.total, `${sort_key} ${sort_order}`).toBe(5);
        const key = (i: Record<string, unknown>) =>
          String(
            { tech: String(i.tech).toLowerCase(), version: i.version, main_domain: i.main_domain }[
              sort_key as string
            ] ?? (sort_key === 'add_ts' ? i.first_seen : i.last_seen),
          );
        const keys = page.items.map(key);
        expect(keys, `${sort_key} ${sort_order}`).toEqual(
          [...keys].sort((a, b) => (sort_order === 'asc' ? a.localeCompare(b) : b.localeCompare(a))),
        );
      }
    expect((await events({ ...tech, ...onTech, targets_type: 'domain' })).total).toBe(5);
    expect((await events({ ...tech, ...onTech, targets_type: 'peer' })).total).toBe(0);
  });

  it('filters by severity sets, contiguous (a range of the ordering) or not, in both orders', async () => {
    for (const subclass of ['exploit_scanner', 'exploit_db', 'leakcheck'] as const) {
      const all = await api.post<{ data: Page }>('/main/get_all_user_abstract_scan_events?limit=100', {
        scan_subclass: subclass,
      });
      expect(all.body.data.total).toBeLessThan(100);
      let matched = 0;
      for (const severity of [['critical', 'high'], ['high', 'medium'], ['critical', 'low'], ['medium']]) {
        const wanted = all.body.data.items
          .filter((i) => severity.includes(String(i.severity)))
          .map((i) => i.id);
        for (const sort_order of ['asc', 'desc'] as const) {
          const page = await events({ scan_subclass: subclass, severity, sort_key: 'severity', sort_order });
          expect(page.items.map((i) => i.id).sort(), `${subclass} ${severity} ${sort_order}`).toEqual(
            [...wanted].sort(),
          );
          expect(page.total).toBe(wanted.length);
          matched += wanted.length;
        }
      }
      expect(matched, subclass).toBeGreaterThan(0);
    }
  });

  it('accepts severity and severity_ordering as sort_key on every subclass, both sorting by the ordering', async () => {
    for (const subclass of ['exploit_scanner', 'exploit_db', 'leakcheck'] as const) {
      const orders: string[][] = [];
      for (const sort_key of ['severity', 'severity_ordering'] as const) {
        const page = await events({ scan_subclass: subclass, sort_key, sort_order: 'desc' });
        expect(page.total, subclass).toBeGreaterThan(0);
        expect(page.details_hidden).toBe(false);
        orders.push(page.items.map((i) => String(i.id)));
        const ordering = page.items.map((i) => Number(i.severity_ordering));
        expect(ordering).toEqual([...ordering].sort((a, b) => b - a));
      }
      expect(orders[0]).toEqual(orders[1]);
    }
  });
});
