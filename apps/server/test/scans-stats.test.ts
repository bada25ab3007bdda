import type { TScan } from '@perimeter/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, createScan, seedScan, signUp } from './support/scan-lab.ts';

/** get_user_abstract_scans_stats: every query parameter of the spec. */
let t: TestApp;
let api: Api;
let seeded: Awaited<ReturnType<typeof seedScan>>;
let custom: TScan;
let plain: TScan;

type Stats = { data: { items: TScan[]; total: number } };

beforeAll(async () => {
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
  const user = await signUp(t, 'business');
  api = user.api;
  seeded = await seedScan(t, api, user.userId, 'stats.example.com');
  plain = await createScan(api, seeded.targetId);
  custom = await createScan(api, seeded.targetId, {
    scan_type: 'custom',
    custom_scan_config: { classes: [], subclasses: ['leakcheck'] },
  });
});
afterAll(async () => t?.close());

const ids = (r: { body: Stats }) => r.body.data.items.map((s) => s.id);

describe('get_user_abstract_scans_stats', () => {
  it('lists every status by default, newest first, with per-scan severity counts and a total', async () => {
    const res = await api.get<Stats>('/main/get_user_abstract_scans_stats');
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(3);
    expect(ids(res)).toEqual([custom.id, plain.id, seeded.scanId]);
    const done = res.body.data.items.find((s) => s.id === seeded.scanId);
    expect(done?.severity_counts).toEqual({
      critical: 0,
      high: 3,
      medium: 0,
      low: 0,
      informational: 0,
      unknown: 0,
    });
    expect(done?.targets[0]).toMatchObject({ user_target_id: seeded.targetId, target: 'stats.example.com' });
  });

  it('filters by repeated status, target, target type and custom_scan_config', async () => {
    expect(ids(await api.get<Stats>('/main/get_user_abstract_scans_stats?status=done'))).toEqual([
      seeded.scanId,
    ]);
    expect(
      ids(await api.get<Stats>('/main/get_user_abstract_scans_stats?status=done&status=created')),
    ).toHaveLength(3);
    expect(ids(await api.get<Stats>('/main/get_user_abstract_scans_stats?status=running'))).toEqual([]);
    expect(ids(await api.get<Stats>('/main/get_user_abstract_scans_stats?custom_scan_config=true'))).toEqual([
      custom.id,
    ]);
    expect(
      ids(await api.get<Stats>('/main/get_user_abstract_scans_stats?custom_scan_config=false')),
    ).toHaveLength(2);
    expect(
      (await api.get<Stats>(`/main/get_user_abstract_scans_stats?filter_user_target_id=${seeded.targetId}`))
        .body.data.total,
    ).toBe(3);
    expect(
      (await api.get<Stats>('/main/get_user_abstract_scans_stats?targets_type=peer')).body.data.total,
    ).toBe(0);
    expect(
      (await api.get<Stats>('/main/get_user_abstract_scans_stats?filter_target_type=network')).body.data
        .total,
    ).toBe(0);
    expect((await api.get('/main/get_user_abstract_scans_stats?status=bogus')).status).toBe(400);
    expect((await api.get('/main/get_user_abstract_scans_stats?sort_key=password')).status).toBe(400);
  });

  it('sorts only when asked (ascend → asc) and pages with limit and offset', async () => {
    const asc = await api.get<Stats>(
      '/main/get_user_abstract_scans_stats?sort_key=created_at&sort_order=ascend',
    );
    expect(ids(asc)).toEqual([seeded.scanId, plain.id, custom.id]);
    const desc = await api.get<Stats>(
      '/main/get_user_abstract_scans_stats?sort_key=created_at&sort_order=desc',
    );
    expect(ids(desc)).toEqual([custom.id, plain.id, seeded.scanId]);
    const page = await api.get<Stats>(
      '/main/get_user_abstract_scans_stats?sort_key=created_at&sort_order=asc&limit=1&offset=1',
    );
    expect(ids(page)).toEqual([plain.id]);
    expect(page.body.data.total).toBe(3);
    const byStatus = await api.get<Stats>(
      '/main/get_user_abstract_scans_stats?sort_key=status&sort_order=asc',
    );
    expect(byStatus.body.data.items.map((s) => s.status)).toEqual(['created', 'created', 'done']);
  });
});
