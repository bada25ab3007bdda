import type { TReplaceTargetResponse, TTarget, TTargetInfo } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanScope } from '../src/db/schema/index.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { seedScan } from './support/findings-seed.ts';
import { type Api, labEnv, signUp } from './support/scan-lab.ts';

type Added = { data: { added: TTarget[] } };
type Err = { detail: string; code: string };

const ref = (t: TTarget) => ({ target_type: t.target_type, user_target_id: t.user_target_id });

async function addOne(api: Api, target: string): Promise<TTarget> {
  const res = await api.post<Added>('/main/user_target/add_targets', { targets: [target] });
  expect(res.status).toBe(201);
  return res.body.data.added[0] as TTarget;
}

async function infoOf(api: Api, t: TTarget): Promise<TTargetInfo> {
  const res = await api.get<{ data: TTargetInfo }>(
    `/main/user_target/get_info_by_id?target_type=${t.target_type}&user_target_id=${t.user_target_id}`,
  );
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('targets screen: replace a mistyped domain, enable again, history', () => {
  let t: TestApp;
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ subnet: '127.0.215', dnsPort: 0 });
    t = await createTestApp(labEnv(lab));
  });
  afterAll(async () => {
    await t?.close();
    await lab?.stop();
  });

  it('a one-domain plan replaces a mistyped domain in one step; the old one keeps its history', async () => {
    const { api } = await signUp(t);
    const typo = await addOne(api, 'acme.tset');
    const res = await api.post<{ data: TReplaceTargetResponse }>('/main/user_target/replace', {
      ...ref(typo),
      target: 'acme.test',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.replaced).toMatchObject({ user_target_id: typo.user_target_id, disabled: true });
    expect(res.body.data.added).toMatchObject({ target: 'acme.test', disabled: false, verified: false });

    const live = await api.get<{ data: { domain: TTarget[] } }>('/main/user_target/get_targets');
    expect(live.body.data.domain.map((d) => d.target)).toEqual(['acme.test']);
    const old = await infoOf(api, typo);
    expect(old.status).toBe('disabled');
    expect(old.history.map((h) => [h.kind, h.detail])).toEqual([
      ['replaced', 'acme.test'],
      ['added', null],
    ]);
    const added = await infoOf(api, res.body.data.added);
    expect(added.history.map((h) => [h.kind, h.detail])).toEqual([['added', 'acme.tset']]);

    // The old one cannot come back beside the new one: the plan holds one domain.
    const enable = await api.post<Err>('/main/user_target/enable', ref(typo));
    expect(enable.status).toBe(403);
    expect(enable.body.detail).toMatch(/Trial scan plan allows 1 domain/);
  });

  it('a replacement that fails (bad input, plan, duplicate) leaves the old target live', async () => {
    const { api } = await signUp(t);
    const a = await addOne(api, 'beta.test');
    const bad = await api.post<Err>('/main/user_target/replace', { ...ref(a), target: 'not a domain' });
    expect(bad.status).toBe(400);
    const same = await api.post<Err>('/main/user_target/replace', { ...ref(a), target: 'beta.test' });
    expect(same.status).toBe(409);
    const peer = await api.post<Err>('/main/user_target/replace', {
      target_type: 'peer',
      user_target_id: a.user_target_id,
      target: '127.0.215.10',
    });
    expect(peer.status).toBe(404);
    expect((await infoOf(api, a)).status).toBe('unverified');
  });

  it('disable, then enable again: unverified until checked; history records each step', async () => {
    const { api } = await signUp(t, 'business');
    const target = await addOne(api, 'acme.test');
    const txt = await api.post<{ data: { value: string } }>(
      '/main/user_target/get_verification_txt',
      ref(target),
    );
    lab.setTxt('_perimeter.acme.test', [txt.body.data.value]);
    try {
      const check = await api.post<{ data: { verified: boolean } }>(
        '/main/user_target/check_verification',
        ref(target),
      );
      expect(check.body.data.verified).toBe(true);
      expect((await api.post('/main/user_target/disable', ref(target))).status).toBe(200);
      const on = await api.post<{ data: TTarget }>('/main/user_target/enable', ref(target));
      expect(on.status).toBe(200);
      expect(on.body.data).toMatchObject({ disabled: false, verified: false });
      const info = await infoOf(api, target);
      expect(info.status).toBe('unverified');
      expect(info.last_check_detail).toMatch(/TXT/);
      expect(info.history.map((h) => h.kind)).toEqual(['enabled', 'disabled', 'verified', 'added']);

      // A target added again while the old one was disabled blocks enabling the old one.
      await api.post('/main/user_target/disable', ref(target));
      await addOne(api, 'acme.test');
      const dup = await api.post<Err>('/main/user_target/enable', ref(target));
      expect(dup.status).toBe(409);
    } finally {
      lab.removeTxt('_perimeter.acme.test');
    }
  });

  it("another user's target answers 404 to enable, replace and get_info_by_id", async () => {
    const owner = await signUp(t);
    const other = await signUp(t);
    const target = await addOne(owner.api, 'wild.test');
    await owner.api.post('/main/user_target/disable', ref(target));
    expect((await other.api.post('/main/user_target/enable', ref(target))).status).toBe(404);
    expect(
      (await other.api.post('/main/user_target/replace', { ...ref(target), target: 'beta.test' })).status,
    ).toBe(404);
    const info = await other.api.get(
      `/main/user_target/get_info_by_id?target_type=domain&user_target_id=${target.user_target_id}`,
    );
    expect(info.status).toBe(404);
    expect((await infoOf(owner.api, target)).status).toBe('disabled');
  });

  it("the list carries what the target's latest done scan found: hosts, subdomains, addresses, ports, technologies", async () => {
    const { api, userId } = await signUp(t, 'business');
    const target = await addOne(api, 'acme.test');
    const db = t.runtime.ctx.db;
    const old = await seedScan(db, userId, target.user_target_id, new Date('2026-01-01T00:00:00Z'));
    const scan = await seedScan(db, userId, target.user_target_id, new Date('2026-02-01T00:00:00Z'));
    await seedScan(db, userId, target.user_target_id, new Date('2026-03-01T00:00:00Z'), 'running');
    const row = (
      scanId: string,
      name: string,
      kind: string,
      ips: string[],
      ports: number[],
      techs: string[],
    ) => ({
      scanId,
      name,
      kind,
      mainDomain: kind === 'subdomain' ? 'acme.test' : null,
      ipAddresses: ips,
      openedPorts: ports,
      services: [],
      technologies: techs.map((n) => ({ name: n, version: null })),
      emails: [],
      cnames: [],
      urls: [],
    });
    await db
      .insert(scanScope)
      .values([
        row(old.id, 'old.acme.test', 'subdomain', ['127.0.215.99'], [8080], ['IIS']),
        row(scan.id, 'acme.test', 'subdomain', ['127.0.215.10'], [80], ['nginx', 'jQuery']),
        row(scan.id, 'www.acme.test', 'subdomain', ['127.0.215.10'], [80, 443], ['nginx']),
        row(scan.id, '127.0.215.18', 'ip', ['127.0.215.18'], [25, 110], []),
      ]);
    const res = await api.get<{ data: { domain: { user_target_id: string; assets: unknown }[] } }>(
      '/main/user_target/get_extend_targets_info?targets_type=domain',
    );
    expect(res.body.data.domain.find((d) => d.user_target_id === target.user_target_id)?.assets).toEqual({
      scan_id: scan.id,
      hosts: 3,
      subdomains: 2,
      ip_addresses: 2,
      opened_ports: [25, 80, 110, 443],
      technologies: ['jQuery', 'nginx'],
    });
    expect((await infoOf(api, target)).last_scan?.status).toBe('running');
  });

  it('an address outside the allow-list names the operator setting', async () => {
    const { api } = await signUp(t, 'business');
    const res = await api.post<Err>('/main/user_target/add_targets', { targets: ['10.1.2.3'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/PERIMETER_SCAN_ALLOW/);
  });
});

describe('targets: the refusal of a private target says how an operator allows it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it.each([
    ['127.0.215.10', /PERIMETER_ALLOW_PRIVATE_TARGETS=true/],
    ['10.0.0.0/28', /PERIMETER_ALLOW_PRIVATE_TARGETS=true/],
    ['acme.test', /PERIMETER_ALLOW_PRIVATE_TARGETS=true/],
  ])('%s', async (target, detail) => {
    const { api } = await signUp(t, 'business');
    const res = await api.post<Err>('/main/user_target/add_targets', { targets: [target] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });
});
