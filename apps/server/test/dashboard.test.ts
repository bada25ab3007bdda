import type { TDashboardInfo, TTargetMetrics } from '@perimeter/contracts';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, newUserInput, type TestApp } from './support/app.ts';
import {
  seedCveFinding,
  seedLeakFinding,
  seedScan,
  seedTarget,
  seedTemplateFinding,
} from './support/findings-seed.ts';

let t: TestApp;
let sql: pg.Client;

beforeAll(async () => {
  t = await createTestApp();
  sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await t?.close();
});

async function signUp() {
  const input = newUserInput();
  await client(t.app).post('/users/auth/registration/', input);
  const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
    email: input.email,
    password: input.password1,
  });
  const { rows } = await sql.query<{ id: string }>(
    `update users set tz = 'UTC', email_verified = true where email = $1 returning id`,
    [input.email],
  );
  return { token: login.body.data.access, userId: rows[0]!.id };
}

/** Target 1: scan 1 finds A (critical), B (medium CVE), C (leak), D (low); scan 2 sees A, B, C (regressed), finds E (high), D fixed. Target 2: one medium. */
async function seed(userId: string) {
  const db = t.runtime.ctx.db;
  const t1 = await seedTarget(db, userId, 'one.example');
  const t2 = await seedTarget(db, userId, 'two.example');
  const s1 = await seedScan(db, userId, t1.id, new Date(Date.now() - 10 * 86_400_000));
  const ids1 = { userId, targetId: t1.id, scanId: s1.id };
  const a = await seedTemplateFinding(db, ids1, {
    key: 'a',
    name: 'A',
    severity: 'critical',
    host: 'app.one.example',
  });
  const b = await seedCveFinding(db, ids1, {
    key: 'b',
    cve: 'CVE-1',
    tech: 'jquery',
    version: '1',
    severity: 'medium',
    host: 'www.one.example',
  });
  const c = await seedLeakFinding(db, ids1, { key: 'c', email: 'x@one.example', password: 'pa**rd' });
  const d = await seedTemplateFinding(db, ids1, {
    key: 'd',
    name: 'D',
    severity: 'low',
    host: 'app.one.example',
  });
  const s2 = await seedScan(db, userId, t1.id, new Date(Date.now() - 3 * 86_400_000));
  for (const [id, sub, change] of [
    [a.id, 'exploit_scanner', 'seen'],
    [b.id, 'exploit_db', 'seen'],
    [c.id, 'leakcheck', 'regressed'],
  ] as const) {
    await sql.query(
      'insert into finding_sightings (scan_id, finding_id, subclass, user_id, change) values ($1, $2, $3, $4, $5)',
      [s2.id, id, sub, userId, change],
    );
  }
  await sql.query(
    `update findings_exploit_scanner set status = 'fixed', fixed_scan_id = $2, fixed_at = now() where id = $1`,
    [d.id, s2.id],
  );
  await seedTemplateFinding(
    db,
    { ...ids1, scanId: s2.id },
    { key: 'e', name: 'E', severity: 'high', host: 'api.one.example' },
  );
  const s3 = await seedScan(db, userId, t2.id, new Date(Date.now() - 2 * 86_400_000));
  await seedTemplateFinding(
    db,
    { userId, targetId: t2.id, scanId: s3.id },
    { key: 'f', name: 'F', severity: 'medium', host: 'two.example' },
  );
  await seedScan(db, userId, t2.id, new Date(), 'running');
  return { t1, t2, s1, s2 };
}

describe('dashboard', () => {
  it('counts targets, scans by status, open findings, new vs fixed, top hosts and risk per target', async () => {
    const { token, userId } = await signUp();
    const { t1, t2 } = await seed(userId);
    const res = await client(t.app, token).get<{ data: TDashboardInfo }>('/main/get_dashboard_info');
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.targets).toMatchObject({ total: 2, by_type: { domain: 2, peer: 0, network: 0 }, verified: 2 });
    expect(d.scans.by_status).toEqual({ running: 1, pending: 0, done: 3, created: 0, canceled: 0 });
    expect(d.open_findings).toEqual({
      critical: 1,
      high: 2,
      medium: 2,
      low: 0,
      informational: 0,
      unknown: 0,
    });
    expect(d.open_total).toBe(5);
    expect(d.new_vs_fixed).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(d.new_vs_fixed.at(-1)).toEqual({ date: today, new: 6, fixed: 1 });
    // one.example: critical + high×2 + medium = 10+10+2 = 22 → 67, raised to the critical floor 70.
    expect(d.targets_risk.map((x) => [x.user_target_id, x.risk_score, x.grade])).toEqual([
      [t1.id, 70, 'D'],
      [t2.id, 10, 'B'],
    ]);
    expect(d.risk_score).toBe(70);
    expect(d.top_risky_hosts[0]).toMatchObject({ host: 'app.one.example', risk_score: 70 });
    expect(d.top_risky_hosts.map((h) => h.host)).not.toContain('nowhere');
  });

  it('target metrics: a per-scan series with findings, new, fixed and score', async () => {
    const { token, userId } = await signUp();
    const { t1, s1, s2 } = await seed(userId);
    const res = await client(t.app, token).get<{ data: TTargetMetrics }>(
      `/main/get_target_metrics?user_target_id=${t1.id}&days=30`,
    );
    expect(res.status).toBe(200);
    const [m] = res.body.data.targets;
    expect(m!.series.map((p) => [p.scan_id, p.total, p.new, p.fixed])).toEqual([
      [s1.id, 4, 4, 0],
      [s2.id, 4, 2, 1],
    ]);
    expect(m!.series[1]!.findings).toMatchObject({ critical: 1, high: 2, medium: 1 });
    const all = await client(t.app, token).get<{ data: TTargetMetrics }>('/main/get_target_metrics');
    expect(all.body.data.targets).toHaveLength(2);
    expect(all.body.data.days).toBe(90);
  });

  it('target metrics: period breakdown by class, technologies, ports, leak sources and timelines', async () => {
    const { token, userId } = await signUp();
    const { t1, t2, s1, s2 } = await seed(userId);
    const scope = (scanId: string, name: string, ports: number[], techs: string[], ips: string[] = []) =>
      sql.query(
        `insert into scan_scope (scan_id, name, kind, main_domain, ip_addresses, opened_ports, services, technologies, emails, cnames, urls)
         values ($1, $2, 'subdomain', 'one.example', $5, $3, '[]', $4, '{}', '{}', '{}')`,
        [scanId, name, ports, JSON.stringify(techs.map((n) => ({ name: n, version: null }))), ips],
      );
    // Only the latest scan of a target counts for technologies and ports.
    await scope(s1.id, 'old.one.example', [21], ['ftpd']);
    await scope(s2.id, 'www.one.example', [80, 443], ['nginx', 'jquery']);
    await scope(s2.id, 'api.one.example', [443, 8080], ['nginx']);
    // One mail host under two names and its own address row: port 25 is one host:port.
    await scope(s2.id, 'mail.one.example', [25], [], ['192.0.2.25']);
    await scope(s2.id, 'smtp.one.example', [25], [], ['192.0.2.25']);
    await scope(s2.id, '192.0.2.25', [25], [], ['192.0.2.25']);
    await sql.query(`update findings_leakcheck set sources = $2 where user_id = $1`, [
      userId,
      ['Combo 2021', 'ExampleBreach 2023'],
    ]);
    const get = (q: string) =>
      client(t.app, token).get<{ data: TTargetMetrics }>(`/main/get_target_metrics?${q}`);

    const one = (await get(`user_target_id=${t1.id}&days=30`)).body.data;
    expect(one.top_technologies).toEqual([
      { name: 'nginx', hosts: 2 },
      { name: 'jquery', hosts: 1 },
    ]);
    expect(one.open_ports).toEqual([
      { port: 443, hosts: 2 },
      { port: 25, hosts: 1 },
      { port: 80, hosts: 1 },
      { port: 8080, hosts: 1 },
    ]);
    expect(one.leak_sources).toEqual([
      { source: 'Combo 2021', leaks: 1 },
      { source: 'ExampleBreach 2023', leaks: 1 },
    ]);
    // A, D (fixed in the period), E are template findings; B is a CVE match; C a leak.
    expect(one.by_class.map((c) => [c.subclass, c.total])).toEqual([
      ['exploit_scanner', 3],
      ['exploit_db', 1],
      ['leakcheck', 1],
    ]);
    expect(one.by_class[0]!.findings).toMatchObject({ critical: 1, high: 1, low: 1 });
    expect(one.new_vs_fixed).toHaveLength(31);
    expect(one.new_vs_fixed.at(0)!.date).toBe(one.from);
    expect(one.new_vs_fixed.at(-1)).toEqual({ date: one.to, new: 5, fixed: 1 });
    expect(one.severity_timeline.map((p) => p.findings.critical)).toEqual([1, 1]);
    expect(one.severity_timeline.at(-1)!.findings).toMatchObject({ high: 2, medium: 1 });

    // Every enabled target: target 2's medium joins; its scan added no scope.
    const all = (await get('days=30')).body.data;
    expect(all.by_class[0]!.total).toBe(4);
    expect(all.severity_timeline).toHaveLength(3);
    expect(all.severity_timeline.at(-1)!.findings).toMatchObject({ critical: 1, high: 2, medium: 2 });
    expect(all.top_technologies[0]).toEqual({ name: 'nginx', hosts: 2 });

    // A short period leaves out the older scans and what they alone saw.
    const week = (await get(`user_target_id=${t1.id}&days=1`)).body.data;
    expect(week.severity_timeline).toEqual([]);
    expect(week.top_technologies).toEqual([]);
    expect(week.new_vs_fixed).toHaveLength(2);

    // Another user's target never leaks into the breakdown.
    const other = await signUp();
    const foreign = await client(t.app, other.token).get<{ data: TTargetMetrics }>(
      '/main/get_target_metrics',
    );
    expect(foreign.body.data).toMatchObject({
      targets: [],
      top_technologies: [],
      leak_sources: [],
      open_ports: [],
    });
    expect(foreign.body.data.by_class.every((c) => c.total === 0)).toBe(true);
    expect(t2.id).toBeTruthy();
  });

  it('a known exploited CVE counts as critical, an EPSS of 0.5 or more at least as high (docs/risk-score.md)', async () => {
    const { token, userId } = await signUp();
    const db = t.runtime.ctx.db;
    const target = await seedTarget(db, userId, 'cve.example');
    const scan = await seedScan(db, userId, target.id, new Date());
    const cve = await seedCveFinding(
      db,
      { userId, targetId: target.id, scanId: scan.id },
      { key: 'k', cve: 'CVE-2', tech: 'jquery', version: '1', severity: 'medium', host: 'www.cve.example' },
    );
    const risk = async () =>
      (await client(t.app, token).get<{ data: TDashboardInfo }>('/main/get_dashboard_info')).body.data
        .targets_risk[0];
    expect(await risk()).toMatchObject({ risk_score: 10, grade: 'B' });
    await sql.query('update findings_exploit_db set epss_score = 0.6 where id = $1', [cve.id]);
    expect(await risk()).toMatchObject({ risk_score: 22, grade: 'B' });
    await sql.query('update findings_exploit_db set kev = true where id = $1', [cve.id]);
    expect(await risk()).toMatchObject({ risk_score: 70, grade: 'D' });
  });

  it('isolation and malformed queries', async () => {
    const owner = await signUp();
    const other = await signUp();
    const { t1 } = await seed(owner.userId);
    const foreign = await client(t.app, other.token).get(`/main/get_target_metrics?user_target_id=${t1.id}`);
    expect(foreign.status).toBe(404);
    const dash = await client(t.app, other.token).get<{ data: TDashboardInfo }>('/main/get_dashboard_info');
    expect(dash.body.data.targets.total).toBe(0);
    expect(dash.body.data.open_total).toBe(0);
    expect((await client(t.app).get('/main/get_dashboard_info')).status).toBe(401);
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('user_target_id', 'days', 'x'),
          fc.oneof(fc.string(), fc.constantFrom(t1.id, '0', '731', '-5', '1e3', 'NaN', '')),
        ),
        async (q) => {
          const qs = new URLSearchParams(q).toString();
          for (const u of ['/main/get_target_metrics', '/main/get_dashboard_info']) {
            const res = await client(t.app, other.token).get(`${u}?${qs}`);
            expect(res.status, `${u}?${qs}`).toBeLessThan(500);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
