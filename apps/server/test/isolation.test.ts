import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../src/lib/queue.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, seedScan, signUp } from './support/scan-lab.ts';

/** A second user using the first user's ids gets 404 everywhere and sees nothing of theirs. */
let t: TestApp;
let boss: PgBoss;
let alice: Api;
let bob: Api;
let seeded: Awaited<ReturnType<typeof seedScan>>;
let created: string;

beforeAll(async () => {
  // No DNS server answers here: no ownership check can reach the network.
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
  boss = await startQueue(t.databaseUrl, createLogger('silent'));
  const a = await signUp(t, 'business');
  alice = a.api;
  ({ api: bob } = await signUp(t, 'business'));
  seeded = await seedScan(t, alice, a.userId);
  const scan = await alice.post<{ data: { id: string } }>('/main/create_abstract_scan', {
    targets: [{ target_type: 'domain', user_target_id: seeded.targetId }],
  });
  created = scan.body.data.id;
});

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
});

type Call = { name: string; run: (api: Api) => Promise<{ status: number; body: unknown }> };

const calls = (): Call[] => {
  const ref = { target_type: 'domain', user_target_id: seeded.targetId };
  const id = seeded.scanId;
  const list: Call[] = [
    {
      name: 'get_info_by_id',
      run: (api) =>
        api.get(`/main/user_target/get_info_by_id?target_type=domain&user_target_id=${seeded.targetId}`),
    },
    { name: 'get_verification_txt', run: (api) => api.post('/main/user_target/get_verification_txt', ref) },
    { name: 'check_verification', run: (api) => api.post('/main/user_target/check_verification', ref) },
    { name: 'disable_verification', run: (api) => api.post('/main/user_target/disable_verification', ref) },
    { name: 'disable', run: (api) => api.post('/main/user_target/disable', ref) },
    { name: 'enable', run: (api) => api.post('/main/user_target/enable', ref) },
    {
      name: 'replace',
      run: (api) => api.post('/main/user_target/replace', { ...ref, target: 'other.example.com' }),
    },
    {
      name: 'create_abstract_scan',
      run: (api) => api.post('/main/create_abstract_scan', { targets: [ref] }),
    },
    {
      name: 'start_created_abstract_scan',
      run: (api) => api.post('/main/start_created_abstract_scan', { id: created }),
    },
    {
      name: 'cancel_running_abstract_scan',
      run: (api) => api.post('/main/cancel_running_abstract_scan', { id }),
    },
    { name: 'get_abstract_scan', run: (api) => api.get(`/main/get_abstract_scan?id=${id}`) },
    {
      name: 'get_user_abstract_scan_progress',
      run: (api) => api.get(`/main/get_user_abstract_scan_progress?id=${id}`),
    },
    {
      name: 'get_one_user_abstract_scan_scope',
      run: (api) => api.post('/main/get_one_user_abstract_scan_scope', { id }),
    },
  ];
  for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck']) {
    list.push({
      name: `get_one_user_abstract_scan_events ${sub}`,
      run: (api) => api.post('/main/get_one_user_abstract_scan_events', { id, scan_subclass: sub }),
    });
    list.push({
      name: `resolve_abstract_scan_event ${sub}`,
      run: (api) =>
        api.post('/main/resolve_abstract_scan_event', {
          scan_subclass: sub,
          event_id: seeded.events[sub],
          reason: 'accepted_risk',
        }),
    });
    list.push({
      name: `unresolve_abstract_scan_event ${sub}`,
      run: (api) =>
        api.post('/main/unresolve_abstract_scan_event', { scan_subclass: sub, event_id: seeded.events[sub] }),
    });
  }
  return list;
};

describe('isolation between users', () => {
  it('every endpoint answers 404 to another user using the owner’s ids', async () => {
    const wrong: string[] = [];
    for (const call of calls()) {
      const res = await call.run(bob);
      if (res.status !== 404) wrong.push(`${call.name}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the other user sees none of the owner’s targets, scans, events or progress', async () => {
    const targets = await bob.get<{ data: Record<string, unknown[]> }>('/main/user_target/get_targets');
    expect(Object.values(targets.body.data).flat()).toEqual([]);
    const ext = await bob.get<{ data: Record<string, unknown[]> }>(
      '/main/user_target/get_extend_targets_info',
    );
    expect(Object.values(ext.body.data).flat()).toEqual([]);
    const stats = await bob.get<{ data: { total: number } }>(
      `/main/get_user_abstract_scans_stats?filter_user_target_id=${seeded.targetId}`,
    );
    expect(stats.body.data.total).toBe(0);
    const all = await bob.get<{ data: { total: number } }>('/main/get_user_abstract_scans_stats');
    expect(all.body.data.total).toBe(0);
    for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck']) {
      const ev = await bob.post<{ data: { total: number } }>('/main/get_all_user_abstract_scan_events', {
        scan_subclass: sub,
      });
      expect(ev.body.data.total, sub).toBe(0);
    }
    const last = await bob.get<{ data: unknown }>('/main/get_last_user_abstract_scan_progress');
    expect(last.body.data).toBeNull();
  });

  it('the owner still has everything, unchanged by the other user’s attempts', async () => {
    const stats = await alice.get<{ data: { total: number; items: { id: string; status: string }[] } }>(
      '/main/get_user_abstract_scans_stats',
    );
    expect(stats.body.data.total).toBe(2);
    expect(stats.body.data.items.find((s) => s.id === seeded.scanId)?.status).toBe('done');
    for (const sub of ['exploit_scanner', 'exploit_db', 'leakcheck']) {
      const ev = await alice.post<{ data: { total: number; items: { resolved: boolean }[] } }>(
        '/main/get_one_user_abstract_scan_events',
        { id: seeded.scanId, scan_subclass: sub },
      );
      expect(ev.body.data.total, sub).toBe(1);
      expect(ev.body.data.items[0]?.resolved).toBe(false);
    }
    const info = await alice.get<{
      data: { verified: boolean; disabled: boolean; counts: { high: number } };
    }>(`/main/user_target/get_info_by_id?target_type=domain&user_target_id=${seeded.targetId}`);
    expect(info.body.data).toMatchObject({ verified: true, disabled: false });
    expect(info.body.data.counts.high).toBe(3);
    const resolved = await alice.post<{ data: { resolved: boolean; resolved_reason: string } }>(
      '/main/resolve_abstract_scan_event',
      { scan_subclass: 'exploit_db', event_id: seeded.events.exploit_db, reason: 'false_positive' },
    );
    expect(resolved.body.data).toMatchObject({ resolved: true, resolved_reason: 'false_positive' });
    const hidden = await alice.post<{ data: { total: number } }>('/main/get_all_user_abstract_scan_events', {
      scan_subclass: 'exploit_db',
      hide_resolved: true,
    });
    expect(hidden.body.data.total).toBe(0);
    const back = await alice.post<{ data: { resolved: boolean } }>('/main/unresolve_abstract_scan_event', {
      scan_subclass: 'exploit_db',
      event_id: seeded.events.exploit_db,
    });
    expect(back.body.data.resolved).toBe(false);
  });
});
