import type { TEvent, TScopeItem } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  type Api,
  allEvents as allEventsOf,
  createScan,
  expectedOfDomain,
  findingKey,
  labEnv,
  labMap,
  loadIntel,
  type PgBoss,
  signUp,
  startWorkers,
  waitForScan,
} from './support/scan-lab.ts';

/**
 * The whole journey against the lab: add a domain, verify it through the lab's DNS, run full
 * scans with a pg-boss worker in this process, and compare events and scope with the lab's
 * expected scan findings — exactly, both ways. Only the lab's own CVE feed and leak corpus are loaded.
 */
const DOMAIN = 'acme.test';

let lab: Lab;
let t: TestApp;
let boss: PgBoss;
let api: Api;
let targetId: string;
const scanIds: string[] = [];

beforeAll(async () => {
  lab = await startLab({ subnet: '127.0.151', dnsPort: 0 });
  t = await createTestApp(labEnv(lab));
  boss = await startWorkers(t);
  const intel = await loadIntel(t.runtime.ctx, lab);
  expect(intel.cves).toBe(16);
  expect(intel.leaks).toBe(lab.expected().leakCorpus.length);
  ({ api } = await signUp(t, 'business'));
}, 120_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
  await lab?.stop();
});

const inDomain = (host: string | undefined) =>
  Boolean(host && (host === DOMAIN || host.endsWith(`.${DOMAIN}`)));

const allEvents = (sub: TEvent['scan_subclass'], scanId?: string) => allEventsOf(api, sub, scanId);

async function runFullScan(): Promise<string> {
  const scan = await createScan(api, targetId);
  expect(scan.status).toBe('created');
  const started = await api.post<{ data: { status: string } }>('/main/start_created_abstract_scan', {
    id: scan.id,
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body.data.status).toBe('pending');
  const stages = new Set<string>();
  const done = await waitForScan(api, scan.id, ['done', 'canceled'], 150_000, (p) => {
    if (p.stage) stages.add(p.stage);
  });
  expect(done.status, done.message ?? '').toBe('done');
  expect(done.percent).toBe(100);
  expect(stages.size).toBeGreaterThan(0);
  scanIds.push(scan.id);
  return scan.id;
}

describe('scans of the lab end to end', () => {
  it('verification fails without the TXT record and passes once the lab publishes it', async () => {
    const added = await api.post<{ data: { added: { user_target_id: string; target: string }[] } }>(
      '/main/user_target/add_targets',
      { targets: [DOMAIN] },
    );
    expect(added.status).toBe(201);
    targetId = added.body.data.added[0]?.user_target_id as string;
    const ref = { target_type: 'domain', user_target_id: targetId };
    const txt = await api.post<{ data: { value: string; record_names: string[] } }>(
      '/main/user_target/get_verification_txt',
      ref,
    );
    expect(txt.body.data.record_names).toEqual([DOMAIN, `_perimeter.${DOMAIN}`]);
    const before = await api.post<{ data: { verified: boolean } }>(
      '/main/user_target/check_verification',
      ref,
    );
    expect(before.status).toBe(200);
    expect(before.body.data.verified).toBe(false);

    // Scanning an unverified target is refused.
    const early = await createScan(api, targetId);
    const refused = await api.post<{ detail: string }>('/main/start_created_abstract_scan', { id: early.id });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/not verified/);

    lab.setTxt(`_perimeter.${DOMAIN}`, [txt.body.data.value]);
    const after = await api.post<{ data: { verified: boolean } }>(
      '/main/user_target/check_verification',
      ref,
    );
    expect(after.body.data.verified).toBe(true);
  });

  it('a full scan reports exactly the planted findings of the domain', async () => {
    const id = await runFullScan();

    // Every finding of the domain in expected.json, and nothing else, for each subclass.
    const want = expectedOfDomain(lab, DOMAIN);
    const templates = await allEvents('exploit_scanner', id);
    const cves = await allEvents('exploit_db', id);
    const leaks = await allEvents('leakcheck', id);
    for (const [sub, got] of [
      ['exploit_scanner', templates],
      ['exploit_db', cves],
      ['leakcheck', leaks],
    ] as const) {
      expect(
        got.every((e) => e.scan_subclass === sub),
        sub,
      ).toBe(true);
      const found = got.map(findingKey).sort();
      const expected = want
        .filter((f) => f.subclass === sub)
        .map(findingKey)
        .sort();
      expect(expected.length, sub).toBeGreaterThan(0);
      // A finding reported twice would hide behind a set comparison.
      expect(new Set(found).size, sub).toBe(found.length);
      expect(
        found.filter((k) => !expected.includes(k)),
        `${sub}: reported but not expected`,
      ).toEqual([]);
      expect(
        expected.filter((k) => !found.includes(k)),
        `${sub}: expected but not reported`,
      ).toEqual([]);
      expect(found, sub).toEqual(expected);
      for (const e of got) expect(e.status).toBe('new');
    }
    console.log(
      `lab scan of ${DOMAIN}: ${templates.length} exploit_scanner, ${cves.length} exploit_db, ${leaks.length} leakcheck`,
    );
    for (const e of templates) {
      // How to reproduce: a command line (curl, dig, nc, openssl…) and the evidence.
      if (e.scan_subclass === 'exploit_scanner')
        expect(e.evidence?.curl.length ?? 0, e.template_id).toBeGreaterThan(0);
    }
    for (const e of cves) {
      if (e.scan_subclass !== 'exploit_db') continue;
      expect(e.cvss_score ?? 0, e.cve).toBeGreaterThan(0);
      expect(e.info_created_ts, e.cve).toMatch(/^\d{4}-/);
    }
    const expected = lab.expected();
    for (const l of leaks) {
      if (l.scan_subclass !== 'leakcheck') continue;
      const clear =
        expected.leakCorpus.find((c) => c.email === l.email && c.leakDate === l.leak_date)?.password ?? '';
      expect(clear.length).toBeGreaterThan(0);
      expect(l.password).not.toBe(clear);
      expect(JSON.stringify(l)).not.toContain(clear);
    }

    // Scope: every planted subdomain of the domain, with its addresses and open ports.
    const scope = await api.post<{
      data: { items: TScopeItem[]; total: number; summary: Record<string, number> };
    }>('/main/get_one_user_abstract_scan_scope?limit=100', { id, targets_type: 'domain' });
    expect(scope.status).toBe(200);
    const names = scope.body.data.items
      .filter((s) => s.kind === 'subdomain')
      .map((s) => s.name)
      .sort();
    const wantNames = expected.assets.subdomains
      .map((s) => s.name)
      .filter(inDomain)
      .sort();
    expect(names).toEqual(wantNames);
    // The open-ports chip counts each host:port once, however many names the address carries.
    const hostPorts = new Set(
      scope.body.data.items.flatMap((r) =>
        (r.ip_addresses.length ? r.ip_addresses : [r.name]).flatMap((ip) =>
          r.opened_ports.map((p) => `${ip}:${p}`),
        ),
      ),
    );
    expect(scope.body.data.summary.opened_ports).toBe(hostPorts.size);
    // Most relevant first by default: never a host with a lower worst severity before a higher one.
    const order = ['informational', 'low', 'medium', 'high', 'critical'];
    const ranks = scope.body.data.items.map((r) => (r.risk ? order.indexOf(r.risk) + 1 : 0));
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(ranks[0]).toBeGreaterThan(0);
    const byName = await api.post<{ data: { items: TScopeItem[] } }>(
      '/main/get_one_user_abstract_scan_scope?limit=100',
      {
        id,
        targets_type: 'domain',
        sort_key: 'name',
        sort_order: 'asc',
      },
    );
    const listed = byName.body.data.items.map((r) => r.name);
    expect(listed).toEqual([...listed].sort());
    for (const s of expected.assets.subdomains.filter((x) => inDomain(x.name))) {
      const row = scope.body.data.items.find((i) => i.name === s.name);
      expect(row?.ip_addresses.slice().sort(), s.name).toEqual(s.ips.slice().sort());
    }
    for (const svc of expected.assets.services) {
      const rows = scope.body.data.items.filter((i) => i.ip_addresses.includes(svc.ip));
      for (const r of rows) expect(r.opened_ports, `${r.name} ${svc.ip}:${svc.port}`).toContain(svc.port);
    }
    const app = scope.body.data.items.find((i) => i.name === `app.${DOMAIN}`);
    expect(app?.risk).toMatch(/critical|high/);

    // Filters and paging of the events lists.
    const page = await api.post<{ data: { items: TEvent[]; total: number } }>(
      '/main/get_one_user_abstract_scan_events?limit=2&offset=1',
      { id, scan_subclass: 'exploit_scanner', sort_key: 'severity', sort_order: 'ascend' },
    );
    expect(page.body.data.items).toHaveLength(2);
    expect(page.body.data.total).toBe(templates.length);
    const ord = page.body.data.items.map((e) => e.severity_ordering);
    expect(ord[0]).toBeLessThanOrEqual(ord[1] as number);
    const sub = await api.post<{ data: { items: TEvent[]; total: number } }>(
      '/main/get_one_user_abstract_scan_events?limit=100',
      {
        id,
        scan_subclass: 'exploit_scanner',
        subdomain_filter_opt: { subdomain_filter: 'app', is_contains: false },
      },
    );
    expect(sub.body.data.total).toBe(
      templates.filter((e) => e.scan_subclass === 'exploit_scanner' && e.host === `app.${DOMAIN}`).length,
    );
    const withPassword = await api.post<{ data: { total: number } }>(
      '/main/get_all_user_abstract_scan_events',
      {
        scan_subclass: 'leakcheck',
        leak_email_password: true,
      },
    );
    expect(withPassword.body.data.total).toBe(leaks.length);

    const stats = await api.get<{
      data: { items: { id: string; severity_counts: Record<string, number> }[]; total: number };
    }>('/main/get_user_abstract_scans_stats?status=done&sort_key=finished_at&sort_order=descend');
    expect(stats.status).toBe(200);
    expect(stats.body.data.total).toBe(1);
    const counts = stats.body.data.items[0]?.severity_counts ?? {};
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(
      templates.length + cves.length + leaks.length,
    );
    const last = await api.get<{ data: { id: string; status: string } }>(
      '/main/get_last_user_abstract_scan_progress',
    );
    expect(last.body.data.id).toBe(id);
  }, 200_000);

  it('a second scan marks nothing new; a removed planted issue is marked fixed by the third', async () => {
    const firstTotals = {
      exploit_scanner: (await allEvents('exploit_scanner')).length,
      exploit_db: (await allEvents('exploit_db')).length,
      leakcheck: (await allEvents('leakcheck')).length,
    };
    const second = await runFullScan();
    for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck'] as const) {
      const all = await allEvents(sub);
      expect(all.length, sub).toBe(firstTotals[sub]);
      expect(
        all.filter((e) => e.status !== 'open').map((e) => `${e.id} ${e.status}`),
        sub,
      ).toEqual([]);
      expect((await allEvents(sub, second)).length, sub).toBe(firstTotals[sub]);
    }

    const removedId = 'LAB-APP-GIT-CONFIG';
    const templateId = labMap.templates[removedId] as string;
    const host = lab.expected().findings.find((f) => f.id === removedId)?.host;
    lab.setPlanted(removedId, false);
    try {
      await runFullScan();
    } finally {
      lab.setPlanted(removedId, true);
    }
    const all = (await allEvents('exploit_scanner')).filter((e) => e.scan_subclass === 'exploit_scanner');
    const fixed = all.filter((e) => e.status === 'fixed');
    expect(fixed.map((e) => `${e.template_id}@${e.host}`)).toEqual([`${templateId}@${host}`]);
    expect(all.filter((e) => e.status !== 'fixed' && e.status !== 'open')).toEqual([]);
    const hidden = await api.post<{ data: { total: number } }>('/main/get_all_user_abstract_scan_events', {
      scan_subclass: 'exploit_scanner',
      hide_resolved: true,
    });
    expect(hidden.body.data.total).toBe(all.length - 1);
  }, 400_000);
});
