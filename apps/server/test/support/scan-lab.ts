import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TEvent, TScan, TScanProgress } from '@perimeter/contracts';
import { BUILTIN_TEMPLATES_DIR, LeakCipher } from '@perimeter/engine';
import { type ExpectedScanFinding, LAB_CVE_FEED_PATH, type Lab } from '@perimeter/lab';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { expect } from 'vitest';
import { scans, targets } from '../../src/db/schema/index.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../../src/lib/queue.ts';

export type { PgBoss };

import { upsertFindings } from '../../src/modules/findings/findings-write-repo.ts';
import { addLeaks } from '../../src/modules/scans/scans-intel-repo.ts';
import { importCveSources } from '../../src/modules/scans/scans-intel-service.ts';
import { registerScanWorkers } from '../../src/modules/scans/scans-jobs.ts';
import { saveScope } from '../../src/modules/scans/scans-repo.ts';
import type { AppContext } from '../../src/server/context.ts';
import { client, newUserInput, PASSWORD, type TestApp } from './app.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** A shared dataset folder, or undefined (skip with a message); absence fails when CI=true. */
export function datasetPath(...parts: string[]): string | undefined {
  const p = path.resolve(REPO_ROOT, '../shared/datasets', ...parts);
  if (existsSync(p)) return p;
  if (process.env.CI === 'true') throw new Error(`dataset missing in CI: ${p}`);
  console.warn(`dataset not found, skipping: ${p}`);
  return undefined;
}

/** Server settings that point scans and verification at a running lab. */
export function labEnv(lab: Lab, extra: Record<string, string> = {}): Record<string, string> {
  const ports = [...new Set([...Object.values(lab.portMap), 3306, 6379, 8080, 3000])].sort((a, b) => a - b);
  return {
    PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
    PERIMETER_DNS_SERVERS: `${lab.dns.host}:${lab.dns.port}`,
    PERIMETER_SCAN_ALLOW: `${lab.subnet}.0/24`,
    // The lab's domains point at the lab's own addresses: intrusive templates may run there.
    PERIMETER_INTRUSIVE_ALLOW: `${lab.subnet}.0/24`,
    PERIMETER_CT_URL: lab.ctUrl,
    PERIMETER_SCAN_PORTS: ports.join(','),
    // The lab is this machine's own: its templates run without the product's politeness.
    PERIMETER_TEMPLATE_RATE_LIMIT: '0',
    WORKER_CONCURRENCY: '1',
    ...extra,
  };
}

export type Api = ReturnType<typeof client>;

/** Registers and signs in a new user; returns an API client with its token and its id. */
export async function signUp(
  t: TestApp,
  plan?: string,
): Promise<{ api: Api; userId: string; email: string; token: string }> {
  const input = newUserInput();
  const reg = await client(t.app).post('/users/auth/registration/', input);
  expect(reg.status).toBe(201);
  const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
    email: input.email,
    password: PASSWORD,
  });
  expect(login.status).toBe(200);
  const sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
  try {
    // An onboarded user: the address is confirmed (the API refuses everything else before that).
    await sql.query('update users set email_verified = true where email = $1', [input.email]);
    if (plan) await sql.query('update users set plan = $1 where email = $2', [plan, input.email]);
    const { rows } = await sql.query<{ id: string }>('select id from users where email = $1', [input.email]);
    return {
      api: client(t.app, login.body.data.access),
      userId: rows[0]?.id as string,
      email: input.email,
      token: login.body.data.access,
    };
  } finally {
    await sql.end();
  }
}

/** pg-boss in the test process with the scan workers registered. */
export async function startWorkers(t: TestApp): Promise<PgBoss> {
  const boss = await startQueue(t.databaseUrl, createLogger('silent'));
  await registerScanWorkers(t.runtime.ctx, boss);
  return boss;
}

/**
 * The lab's own data into PostgreSQL, no shared datasets: its CVE feed (the NVD 2.0 file with the
 * planted CVEs, through the operator's `cve import` code path) and its leak corpus.
 */
export async function loadIntel(ctx: AppContext, lab: Lab): Promise<{ cves: number; leaks: number }> {
  const leaks = await addLeaks(
    ctx.db,
    new LeakCipher(ctx.config.secrets.encryptionKey),
    lab.expected().leakCorpus,
  );
  const cves = await importCveSources(ctx, [fileURLToPath(LAB_CVE_FEED_PATH)], () => {});
  return { cves: cves.total, leaks: leaks.imported };
}

/** Port and path of where a template matched: a URL, `host:port`, or a DNS name (neither). */
function locationOf(matchedAt: string): string {
  if (matchedAt.includes('://')) {
    const scheme = matchedAt.slice(0, matchedAt.indexOf(':'));
    const rest = matchedAt.slice(matchedAt.indexOf('://') + 3);
    const slash = rest.indexOf('/');
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    const port = /:(\d+)$/.exec(authority)?.[1] ?? (scheme === 'https' ? '443' : '80');
    // The path as sent (the URL class would resolve `/../`).
    return `:${port}${slash === -1 ? '/' : rest.slice(slash)}`;
  }
  const port = /:(\d+)$/.exec(matchedAt)?.[1];
  return port ? `:${port}` : '';
}

/** One line per finding, the same shape for an event of the API and for expected.json. */
export function findingKey(f: TEvent | ExpectedScanFinding): string {
  if ('scan_subclass' in f) {
    switch (f.scan_subclass) {
      case 'exploit_scanner':
        return `exploit_scanner ${f.template_id} ${f.host}${locationOf(f.matched_at)}`;
      case 'exploit_db':
        return `exploit_db ${f.cve} ${f.host}:${f.port ?? ''} ${f.tech} ${f.version}`;
      case 'leakcheck':
        return `leakcheck ${f.email} ${f.leak_date ?? ''} ${[...f.sources].sort().join('|')}`;
    }
  }
  switch (f.subclass) {
    case 'exploit_scanner':
      return `exploit_scanner ${f.templateId} ${f.host}${f.port ? `:${f.port}` : ''}${f.path ?? ''}`;
    case 'exploit_db':
      return `exploit_db ${f.cve} ${f.host}:${f.port} ${f.tech} ${f.version}`;
    case 'leakcheck':
      return `leakcheck ${f.email} ${f.leakDate} ${[...f.sources].sort().join('|')}`;
  }
}

/** What a full scan of one lab domain reports: lab.expected().scanFindings of its hosts and e-mails. */
export function expectedOfDomain(lab: Lab, domain: string): ExpectedScanFinding[] {
  const inDomain = (host: string) => host === domain || host.endsWith(`.${domain}`);
  return lab
    .expected()
    .scanFindings.filter((f) => (f.subclass === 'leakcheck' ? f.mainDomain === domain : inDomain(f.host)));
}

/** Every event of a scan (or of all scans) of one subclass, all pages. */
export async function allEvents(api: Api, sub: TEvent['scan_subclass'], scanId?: string): Promise<TEvent[]> {
  const out: TEvent[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await api.post<{ data: { items: TEvent[]; total: number } }>(
      `/main/${scanId ? 'get_one' : 'get_all'}_user_abstract_scan_events?limit=100&offset=${offset}`,
      { scan_subclass: sub, ...(scanId ? { id: scanId } : {}) },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.data.items);
    if (res.body.data.items.length === 0 || out.length >= res.body.data.total) return out;
  }
}

export interface LabMap {
  templates: Record<string, string>;
  cveMatching: string[];
  unlistedLabFindings: { templateId: string; hosts: string[] }[];
}
export const labMap = JSON.parse(
  readFileSync(path.join(BUILTIN_TEMPLATES_DIR, 'lab-map.json'), 'utf8'),
) as LabMap;

/** Adds a domain, publishes its TXT record in the lab and verifies it. */
export async function addVerifiedDomain(api: Api, lab: Lab, domain: string): Promise<string> {
  const added = await api.post<{ data: { added: { user_target_id: string }[] } }>(
    '/main/user_target/add_targets',
    {
      targets: [domain],
    },
  );
  expect(added.status).toBe(201);
  const id = added.body.data.added[0]?.user_target_id as string;
  const ref = { target_type: 'domain', user_target_id: id };
  const txt = await api.post<{ data: { value: string } }>('/main/user_target/get_verification_txt', ref);
  lab.setTxt(`_perimeter.${domain}`, [txt.body.data.value]);
  const check = await api.post<{ data: { verified: boolean } }>('/main/user_target/check_verification', ref);
  expect(check.body.data.verified).toBe(true);
  return id;
}

export async function createScan(
  api: Api,
  targetId: string,
  extra: Record<string, unknown> = {},
): Promise<TScan> {
  const res = await api.post<{ data: TScan }>('/main/create_abstract_scan', {
    targets: [{ target_type: 'domain', user_target_id: targetId }],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** Polls the progress endpoint until the scan reaches one of `statuses`. */
export async function waitForScan(
  api: Api,
  id: string,
  statuses: string[] = ['done'],
  timeoutMs = 120_000,
  onProgress?: (p: TScanProgress) => void,
): Promise<TScanProgress> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const res = await api.get<{ data: TScanProgress }>(`/main/get_user_abstract_scan_progress?id=${id}`);
    expect(res.status).toBe(200);
    onProgress?.(res.body.data);
    if (statuses.includes(res.body.data.status)) return res.body.data;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`scan ${id} did not reach ${statuses.join('/')} within ${timeoutMs} ms`);
}

/**
 * A done scan with one finding of each subclass and a scope row, written straight through the
 * repositories (no lab needed): for isolation and fuzz tests.
 */
export async function seedScan(t: TestApp, api: Api, userId: string, domain = 'seed.example.com') {
  const add = await api.post<{ data: { added: { user_target_id: string }[] } }>(
    '/main/user_target/add_targets',
    {
      targets: [domain],
    },
  );
  expect(add.status, JSON.stringify(add.body)).toBe(201);
  const targetId = add.body.data.added[0]?.user_target_id as string;
  const db = t.runtime.ctx.db;
  await db.update(targets).set({ verified: true }).where(eq(targets.id, targetId));
  const scan = await createScan(api, targetId);
  const base = { mainDomain: domain, subdomain: 'www', host: `www.${domain}` };
  await upsertFindings(db, scan.id, userId, {
    exploit_scanner: [
      {
        targetId,
        finding: {
          subclass: 'exploit_scanner',
          fingerprint: `fp-es-${scan.id}`,
          templateId: 'git-config',
          name: 'Git config exposed',
          severity: 'high',
          severityOrdering: 4,
          matchedAt: `http://www.${domain}/.git/config`,
          extracted: [],
          references: [],
          tags: ['exposure'],
          ...base,
        },
      },
    ],
    exploit_db: [
      {
        targetId,
        finding: {
          subclass: 'exploit_db',
          fingerprint: `fp-db-${scan.id}`,
          tech: 'Nginx',
          version: '1.14.0',
          cve: 'CVE-2019-9511',
          severity: 'high',
          severityOrdering: 4,
          lastCheckTs: new Date().toISOString(),
          references: [],
          ...base,
        },
      },
    ],
    leakcheck: [
      {
        targetId,
        finding: {
          subclass: 'leakcheck',
          fingerprint: `fp-lc-${scan.id}`,
          email: `info@${domain}`,
          password: 'Su******9!',
          sources: ['combo'],
          leakDate: '2019-07-14',
          mainDomain: domain,
        },
      },
    ],
  });
  await saveScope(db, scan.id, [
    {
      name: `www.${domain}`,
      kind: 'subdomain',
      mainDomain: domain,
      ipAddresses: ['203.0.113.10'],
      openedPorts: [80],
      services: [{ port: 80, service: 'http', product: 'nginx', version: '1.14.0' }],
      technologies: [{ name: 'Nginx', version: '1.14.0' }],
      emails: [],
      cnames: [],
      urls: [`http://www.${domain}/`],
    },
  ]);
  await db
    .update(scans)
    .set({ status: 'done', percent: 100, finishedAt: new Date() })
    .where(eq(scans.id, scan.id));
  const events: Record<string, string> = {};
  for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck']) {
    const res = await api.post<{ data: { items: { id: string }[] } }>(
      '/main/get_all_user_abstract_scan_events',
      {
        scan_subclass: sub,
      },
    );
    events[sub] = res.body.data.items[0]?.id as string;
  }
  return { targetId, scanId: scan.id, events };
}
