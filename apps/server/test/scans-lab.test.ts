import type { TEvent, TScopeItem } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgVulnStore } from '../src/modules/scans/scans-intel-repo.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  type Api,
  createScan,
  datasetPath,
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
 * scans with a pg-boss worker in this process, and compare events and scope with expected.json.
 */
const DOMAIN = 'acme.test';
const datasets = Boolean(datasetPath('cve') && datasetPath('retirejs'));

let lab: Lab;
let t: TestApp;
let boss: PgBoss;
let store: PgVulnStore | undefined;
let api: Api;
let targetId: string;
const scanIds: string[] = [];

beforeAll(async () => {
  lab = await startLab({ subnet: '127.0.151', dnsPort: 0 });
  t = await createTestApp(labEnv(lab));
  boss = await startWorkers(t);
  store = await loadIntel(t.runtime.ctx, lab);
  ({ api } = await signUp(t, 'business'));
}, 120_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
  await lab?.stop();
});

const inDomain = (host: string | undefined) =>
  Boolean(host && (host === DOMAIN || host.endsWith(`.${DOMAIN}`)));

async function allEvents(sub: TEvent['scan_subclass'], scanId?: string): Promise<TEvent[]> {
  const out: TEvent[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await api.post<{ data: { items: TEvent[]; total: number } }>(
      `/main/${scanId ? 'get_one' : 'get_all'}_user_abstract_scan_events?limit=100&offset=${offset}`,
      { scan_subclass: sub, ...(scanId ? { id: scanId } : {}) },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.data.items);
    if (out.length >= res.body.data.total) return out;
  }
}

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

  it.skipIf(!datasets)(
    'a full scan reports exactly the planted findings of the domain',
    async () => {
      const id = await runFullScan();
      const expected = lab.expected();

      // exploit_scanner: every planted issue on the domain's hosts, and only planted or listed ones.
      const templates = (await allEvents('exploit_scanner', id)).filter(
        (e) => e.scan_subclass === 'exploit_scanner',
      );
      const found = [...new Set(templates.map((e) => `${e.template_id}@${e.host}`))].sort();
      const planted = Object.entries(labMap.templates)
        .map(([pid, tid]) => ({ tid, host: expected.findings.find((f) => f.id === pid)?.host }))
        .filter((p) => inDomain(p.host))
        .map((p) => `${p.tid}@${p.host}`);
      const unlisted = labMap.unlistedLabFindings.flatMap((u) => u.hosts.map((h) => `${u.templateId}@${h}`));
      expect(planted.length).toBeGreaterThan(5);
      expect(planted.filter((p) => !found.includes(p))).toEqual([]);
      expect(found.filter((f) => !planted.includes(f) && !unlisted.includes(f))).toEqual([]);
      for (const e of templates) {
        expect(e.status).toBe('new');
        // How to reproduce: a command line (curl, dig, nc, openssl…) and the evidence.
        expect(e.evidence?.curl.length ?? 0, e.template_id).toBeGreaterThan(0);
      }

      // exploit_db: every planted CVE the loaded feeds know, on its host and version.
      const cves = (await allEvents('exploit_db', id)).filter((e) => e.scan_subclass === 'exploit_db');
      const missing: string[] = [];
      let checked = 0;
      for (const pid of labMap.cveMatching) {
        const issue = expected.findings.find((f) => f.id === pid);
        if (!inDomain(issue?.host)) continue;
        for (const cve of issue?.cves ?? []) {
          if (!(await store?.get(cve))) continue;
          checked++;
          if (!cves.some((f) => f.cve === cve && f.host === issue?.host && f.version === issue?.version))
            missing.push(`${pid}: ${cve} on ${issue?.host}`);
        }
      }
      expect(checked).toBeGreaterThan(0);
      expect(missing).toEqual([]);
      expect(cves.every((c) => inDomain(c.host))).toBe(true);

      // leakcheck: exactly the corpus entries of the domain, masked.
      const leaks = (await allEvents('leakcheck', id)).filter((e) => e.scan_subclass === 'leakcheck');
      const want = expected.leakCorpus
        .filter((l) => l.email.endsWith(`@${DOMAIN}`) || l.email.endsWith(`.${DOMAIN}`))
        .map((l) => `${l.email} ${l.leakDate} ${[...l.sources].sort().join('|')}`)
        .sort();
      expect(leaks.map((l) => `${l.email} ${l.leak_date} ${l.sources.join('|')}`).sort()).toEqual(want);
      for (const l of leaks) {
        const clear =
          expected.leakCorpus.find((c) => c.email === l.email && c.leakDate === l.leak_date)?.password ?? '';
        expect(l.password).not.toBe(clear);
        expect(JSON.stringify(l)).not.toContain(clear);
      }

      // Scope: every planted subdomain of the domain, with its addresses and open ports.
      const scope = await api.post<{ data: { items: TScopeItem[]; total: number } }>(
        '/main/get_one_user_abstract_scan_scope?limit=100',
        { id, targets_type: 'domain' },
      );
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
      expect(sub.body.data.total).toBe(templates.filter((e) => e.host === `app.${DOMAIN}`).length);
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
    },
    200_000,
  );

  it.skipIf(!datasets)(
    'a second scan marks nothing new; a removed planted issue is marked fixed by the third',
    async () => {
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
    },
    400_000,
  );
});
