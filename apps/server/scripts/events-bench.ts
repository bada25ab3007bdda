/**
 * `npm run bench -w apps/server` — a script, not a test. Seeds 1,000,000 findings for one user on a
 * fresh database (embedded PostgreSQL, or DATABASE_URL's server), then prints:
 *   - p50/p95 of the events endpoints for every sort key and filter (server-side, via inject),
 *   - 200 concurrent clients over real HTTP on 127.0.0.1 (autocannon): throughput and errors,
 *   - the time of a PDF report of a 10,000-finding scan,
 * and appends the figures to docs/benchmarks.md. Options: BENCH_FINDINGS, BENCH_SAMPLES,
 * BENCH_LOAD_SECONDS, BENCH_APPEND=false (print only).
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/lib/config/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import { buildApp } from '../src/server/app.ts';
import { openRuntime } from '../src/server/runtime.ts';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Cannon = (opts: Record<string, unknown>) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 15);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const log = (msg: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-bench-'));
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'production',
  PERIMETER_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
  RATE_LIMIT_AUTH_PER_MINUTE: '10000',
});
log(
  `starting ${config.env.DATABASE_URL ? 'on DATABASE_URL' : 'the embedded PostgreSQL'} (load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
);
const runtime = await openRuntime(config, createLogger('silent'));
const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
const pool = runtime.ctx.database.pool;

try {
  const email = `bench-${Date.now()}@example.com`;
  const password = 'correct horse battery staple';
  await app.inject({
    method: 'POST',
    url: '/api/users/auth/registration/',
    payload: {
      first_name: 'Bench',
      last_name: 'Mark',
      company: 'Perf',
      email,
      password1: password,
      password2: password,
    },
  });
  const login = await app.inject({
    method: 'POST',
    url: '/api/users/auth/login/',
    payload: { email, password },
  });
  const token = (login.json() as { data: { access: string } }).data.access;
  const { rows: users } = await pool.query<{ id: string }>(
    `update users set plan = 'enterprise', tz = 'UTC' where email = $1 returning id`,
    [email],
  );
  const userId = users[0]!.id;

  log(`seeding ${FINDINGS.toLocaleString('en')} findings`);
  const seedStart = performance.now();
  const { rows: tg } = await pool.query<{ id: string; value: string }>(
    `insert into targets (user_id, target_type, value, display_name, main_domain, verified, verification_token)
     select $1, 'domain', 'site' || i || '.example', 'site' || i || '.example', 'site' || i || '.example', true, 'bench'
     from generate_series(1, 20) i returning id, value`,
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
  const es = Math.round(FINDINGS * 0.6);
  const ed = Math.round(FINDINGS * 0.3);
  const lc = FINDINGS - es - ed;
  const CHUNK = 100_000;
  const sev = `(array['critical','high','medium','low','informational'])[1 + (i * 7) % 5]`;
  const sevOrd = `5 - (i * 7) % 5`;
  for (let from = 1; from <= es; from += CHUNK) {
    const to = Math.min(es, from + CHUNK - 1);
    await pool.query(
      `insert into findings_exploit_scanner (user_id, target_id, fingerprint, severity, severity_ordering, main_domain,
         status, template_id, name, host, subdomain, matched_at, add_ts, first_seen, last_seen, first_scan_id, last_scan_id, detail)
       select $1, ($2::uuid[])[1 + i % 20], 'es' || i, ${sev}, ${sevOrd}, 'site' || (1 + i % 20) || '.example',
         (array['new','open','fixed','regressed'])[1 + i % 4], 'tpl-' || (i % 300), 'Template finding ' || (i % 5000),
         'h' || (i % 2000) || '.site' || (1 + i % 20) || '.example', 'h' || (i % 2000) || '.site' || (1 + i % 20) || '.example',
         'http://h' || (i % 2000) || '/', now() - (i % 10000) * interval '1 minute', now() - (i % 10000) * interval '1 minute', now(), $3, $3,
         jsonb_build_object('description', 'Bench finding ' || i, 'remediation', 'Fix it', 'references', jsonb_build_array('https://example.org/' || (i % 100)),
           'evidence', jsonb_build_object('curl', 'curl -sk http://h' || (i % 2000) || '/', 'request', 'GET /', 'response', 'HTTP/1.1 200 OK'))
       from generate_series($4::int, $5::int) i`,
      [userId, targetIds, scanId, from, to],
    );
    log(`  exploit_scanner ${to.toLocaleString('en')}/${es.toLocaleString('en')}`);
  }
  for (let from = 1; from <= ed; from += CHUNK) {
    const to = Math.min(ed, from + CHUNK - 1);
    await pool.query(
      `insert into findings_exploit_db (user_id, target_id, fingerprint, severity, severity_ordering, main_domain, status,
         tech, version, cve, host, subdomain, port, cvss_score, info_created_ts, info_updated_ts, last_update_ts, last_check_ts,
         add_ts, first_scan_id, last_scan_id, detail)
       select $1, ($2::uuid[])[1 + i % 20], 'ed' || i, ${sev}, ${sevOrd}, 'site' || (1 + i % 20) || '.example', 'open',
         (array['jquery','nginx','openssl','php','wordpress','apache'])[1 + i % 6], '1.' || (i % 40) || '.' || (i % 7),
         case when i % 10 = 0 then '' else 'CVE-20' || (10 + i % 15) || '-' || (1000 + i % 50000) end,
         'h' || (i % 2000) || '.site' || (1 + i % 20) || '.example', 'h' || (i % 2000) || '.site' || (1 + i % 20) || '.example',
         443, (i % 100) / 10.0, now() - (i % 3000) * interval '1 day', now() - (i % 300) * interval '1 day',
         now() - (i % 100) * interval '1 hour', now() - (i % 50) * interval '1 hour', now() - (i % 10000) * interval '1 minute', $3, $3,
         jsonb_build_object('description', 'CVE bench ' || i)
       from generate_series($4::int, $5::int) i`,
      [userId, targetIds, scanId, from, to],
    );
    log(`  exploit_db ${to.toLocaleString('en')}/${ed.toLocaleString('en')}`);
  }
  for (let from = 1; from <= lc; from += CHUNK) {
    const to = Math.min(lc, from + CHUNK - 1);
    await pool.query(
      `insert into findings_leakcheck (user_id, target_id, fingerprint, severity, severity_ordering, main_domain, status,
         email, password, password_encrypted, leak_date, sources, add_ts, first_scan_id, last_scan_id, detail)
       select $1, ($2::uuid[])[1 + i % 20], 'lc' || i, case when i % 3 = 0 then 'medium' else 'high' end,
         case when i % 3 = 0 then 3 else 4 end, 'site' || (1 + i % 20) || '.example', 'open',
         'user' || i || '@site' || (1 + i % 20) || '.example', 'pa******' || (i % 100),
         case when i % 3 = 0 then null else 'v1.x.y.z' end, '20' || (10 + i % 14) || '-0' || (1 + i % 9), '{BenchLeak}',
         now() - (i % 10000) * interval '1 minute', $3, $3, '{}'::jsonb
       from generate_series($4::int, $5::int) i`,
      [userId, targetIds, scanId, from, to],
    );
    log(`  leakcheck ${to.toLocaleString('en')}/${lc.toLocaleString('en')}`);
  }
  // The scan saw a fifth of the template findings (for get_one_user_abstract_scan_events).
  await pool.query(
    `insert into finding_sightings (scan_id, finding_id, subclass, user_id, host, change)
     select $1, id, 'exploit_scanner', $2, host, 'seen' from findings_exploit_scanner where user_id = $2 and fingerprint like 'es%5'`,
    [scanId, userId],
  );
  // Statistics and the visibility map, as autovacuum sets them soon after a bulk insert (PostgreSQL 13+
  // vacuums insert-only tables); without the map, index-only counts would visit the heap.
  await pool.query('vacuum analyze');
  const seedSeconds = (performance.now() - seedStart) / 1000;
  log(`seeded in ${seedSeconds.toFixed(0)} s`);

  // --- latency per sort key and filter --------------------------------------------------------
  const keys = {
    exploit_scanner: ['name', 'severity', 'severity_ordering', 'host', 'main_domain', 'subdomain', 'add_ts'],
    exploit_db: [
      'tech',
      'version',
      'info_created_ts',
      'info_updated_ts',
      'main_domain',
      'last_update_ts',
      'last_check_ts',
      'cve',
      'add_ts',
      'severity',
    ],
    leakcheck: ['email', 'password', 'leak_date', 'main_domain', 'add_ts'],
  } as const;
  const cases: Array<{ label: string; url: string; body: Record<string, unknown> }> = [];
  const all = '/api/main/get_all_user_abstract_scan_events';
  for (const [sub, list] of Object.entries(keys)) {
    for (const k of list)
      cases.push({
        label: `${sub} sort ${k}`,
        url: all,
        body: { scan_subclass: sub, sort_key: k, sort_order: 'desc' },
      });
  }
  cases.push(
    {
      label: 'exploit_scanner severity [critical,high]',
      url: all,
      body: { scan_subclass: 'exploit_scanner', severity: ['critical', 'high'] },
    },
    {
      label: 'exploit_scanner subdomain contains "h12"',
      url: all,
      body: {
        scan_subclass: 'exploit_scanner',
        subdomain_filter_opt: { subdomain_filter: 'h12', is_contains: true },
      },
    },
    {
      label: 'exploit_scanner main_domain = site7.example',
      url: all,
      body: {
        scan_subclass: 'exploit_scanner',
        main_domain_filter_opt: { domain_filter: 'site7.example', is_contains: false },
      },
    },
    {
      label: 'exploit_scanner hide_resolved',
      url: all,
      body: { scan_subclass: 'exploit_scanner', hide_resolved: true },
    },
    {
      label: 'exploit_scanner targets_type domain',
      url: all,
      body: { scan_subclass: 'exploit_scanner', targets_type: 'domain' },
    },
    {
      label: 'exploit_scanner offset 5000',
      url: `${all}?offset=5000`,
      body: { scan_subclass: 'exploit_scanner', sort_key: 'name' },
    },
    {
      label: 'exploit_db vulnerabilities_existence with',
      url: all,
      body: { scan_subclass: 'exploit_db', vulnerabilities_existence: 'with' },
    },
    {
      label: 'exploit_db vulnerabilities_existence without',
      url: all,
      body: { scan_subclass: 'exploit_db', vulnerabilities_existence: 'without' },
    },
    {
      label: 'leakcheck leak_email_password true',
      url: all,
      body: { scan_subclass: 'leakcheck', leak_email_password: true },
    },
    {
      label: 'leakcheck email contains "user12"',
      url: all,
      body: { scan_subclass: 'leakcheck', email_filter_opt: { email_filter: 'user12', is_contains: true } },
    },
    {
      label: 'one scan: exploit_scanner sort severity',
      url: '/api/main/get_one_user_abstract_scan_events',
      body: { id: scanId, scan_subclass: 'exploit_scanner', sort_key: 'severity' },
    },
    {
      label: 'one scan: exploit_scanner sort name',
      url: '/api/main/get_one_user_abstract_scan_events',
      body: { id: scanId, scan_subclass: 'exploit_scanner', sort_key: 'name' },
    },
  );
  const results: Array<{ label: string; p50: number; p95: number; total: number; status: number }> = [];
  for (const c of cases) {
    const times: number[] = [];
    let status = 0;
    let total = 0;
    for (let i = 0; i < SAMPLES + 2; i++) {
      const t0 = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: c.url,
        headers: { authorization: `Bearer ${token}` },
        payload: c.body,
      });
      const ms = performance.now() - t0;
      status = res.statusCode;
      if (i === 0) total = (res.json() as { data?: { total?: number } }).data?.total ?? -1;
      if (i >= 2) times.push(ms); // two warm-up requests
    }
    const r = { label: c.label, p50: pct(times, 50), p95: pct(times, 95), total, status };
    results.push(r);
    log(
      `${r.label.padEnd(48)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p95 ${r.p95.toFixed(1).padStart(7)} ms  (total ${total}, HTTP ${status})`,
    );
  }

  // --- 200 concurrent clients over HTTP --------------------------------------------------------
  log(`autocannon: 200 connections for ${LOAD_SECONDS} s on ${address}`);
  const load = await autocannon({
    url: `${address}${all}`,
    method: 'POST',
    connections: 200,
    duration: LOAD_SECONDS,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scan_subclass: 'exploit_scanner', sort_key: 'severity', sort_order: 'desc' }),
  });
  log(
    `  ${load.requests.total} requests, ${load.requests.average.toFixed(0)} req/s, latency p50 ${load.latency.p50} ms p99 ${load.latency.p99} ms, errors ${load.errors}, timeouts ${load.timeouts}, non-2xx ${load.non2xx}`,
  );

  // --- PDF of a 10,000-finding scan ------------------------------------------------------------
  const { rows: pdfScan } = await pool.query<{ id: string }>(
    `insert into scans (user_id, status, target_type, scan_type, subclasses, started_at, finished_at, percent)
     values ($1, 'done', 'domain', 'full', '{exploit_scanner}', now() - interval '1 hour', now(), 100) returning id`,
    [userId],
  );
  await pool.query('insert into scan_targets (scan_id, target_id) values ($1, $2)', [
    pdfScan[0]!.id,
    targetIds[0],
  ]);
  await pool.query(
    `insert into finding_sightings (scan_id, finding_id, subclass, user_id, host, change)
     select $1, id, 'exploit_scanner', $2, host, 'new' from findings_exploit_scanner where user_id = $2 order by id limit 10000`,
    [pdfScan[0]!.id, userId],
  );
  const pdfTimes: number[] = [];
  let pdfBytes = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: '/api/main/get_user_events_file_report',
      headers: { authorization: `Bearer ${token}` },
      payload: { id: pdfScan[0]!.id, format: 'pdf' },
    });
    pdfTimes.push(performance.now() - t0);
    pdfBytes = res.rawPayload.length;
    if (res.statusCode !== 200)
      throw new Error(`PDF report failed: ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  log(
    `PDF of a 10,000-finding scan: ${pdfTimes.map((t) => `${(t / 1000).toFixed(1)} s`).join(', ')} (${pdfBytes} bytes)`,
  );

  // --- docs/benchmarks.md ----------------------------------------------------------------------
  const worstP95 = Math.max(...results.map((r) => r.p95));
  const lines = [
    '',
    `## Events endpoints, load and PDF reports (apps/server bench, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `\`npm run bench -w apps/server\`: ${FINDINGS.toLocaleString('en')} findings for one user (${es.toLocaleString('en')} exploit_scanner, ${ed.toLocaleString('en')} exploit_db, ${lc.toLocaleString('en')} leakcheck; 20 targets), ${config.env.DATABASE_URL ? 'PostgreSQL from DATABASE_URL' : 'embedded PostgreSQL'}, seeded in ${seedSeconds.toFixed(0)} s. Machine: ${os.cpus().length} cores, load average at start ${os.loadavg()[0]!.toFixed(1)} (shared with other work — figures are pessimistic). Latency is server-side (Fastify inject, no network), ${SAMPLES} requests per row after 2 warm-ups; goal p95 < 30 ms.`,
    '',
    '| Request | p50 ms | p95 ms | total rows |',
    '|---|---:|---:|---:|',
    ...results.map(
      (r) => `| ${r.label} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.total.toLocaleString('en')} |`,
    ),
    '',
    `Worst p95: ${worstP95.toFixed(1)} ms (${worstP95 < 30 ? 'meets' : 'misses'} the 30 ms goal).`,
    '',
    `200 concurrent clients (autocannon 8, ${LOAD_SECONDS} s, real HTTP on 127.0.0.1, exploit_scanner events sorted by severity): ${load.requests.total} requests, ${load.requests.average.toFixed(0)} req/s, latency p50 ${load.latency.p50} ms / p99 ${load.latency.p99} ms, **errors ${load.errors}**, timeouts ${load.timeouts}, non-2xx ${load.non2xx}.`,
    '',
    `PDF report of a 10,000-finding scan (POST /main/get_user_events_file_report, rendered in a worker thread): ${pdfTimes.map((t) => `${(t / 1000).toFixed(1)} s`).join(', ')}; ${pdfBytes.toLocaleString('en')} bytes (goal < 10 s).`,
    '',
  ];
  if (process.env.BENCH_APPEND === 'false') console.log(lines.join('\n'));
  else {
    appendFileSync(path.join(repoRoot, 'docs/benchmarks.md'), lines.join('\n'));
    log('appended to docs/benchmarks.md');
  }
} finally {
  await app.close();
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
