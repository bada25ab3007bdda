import dgram from 'node:dgram';
import http from 'node:http';
import type { TExtendedTarget, TTarget } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../src/lib/queue.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, addVerifiedDomain, createScan, labEnv, signUp } from './support/scan-lab.ts';

type Added = { data: { added: TTarget[] } };
type ByType = { data: Record<'domain' | 'peer' | 'network', TTarget[]> };

describe('targets: validation, normalisation, duplicates (public scope)', () => {
  let t: TestApp;
  let api: Api;
  beforeAll(async () => {
    t = await createTestApp();
    ({ api } = await signUp(t, 'enterprise'));
  });
  afterAll(async () => t?.close());

  it('normalises domains (IDN to punycode, registrable domain), addresses and networks', async () => {
    const res = await api.post<Added>('/main/user_target/add_targets', {
      targets: [
        'BÜCHER.de',
        'www.Example.co.uk.',
        { target_type: 'peer', target: '8.8.8.8' },
        '2606:4700:4700:0:0:0:0:1111',
        '8.8.4.7/24',
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const got = res.body.data.added.map((a) => [
      a.target_type,
      a.target,
      a.main_domain,
      a.ip_count,
      a.display_name,
    ]);
    expect(got).toEqual([
      ['domain', 'xn--bcher-kva.de', 'xn--bcher-kva.de', 0, 'bücher.de'],
      ['domain', 'www.example.co.uk', 'example.co.uk', 0, 'www.example.co.uk'],
      ['peer', '8.8.8.8', null, 1, '8.8.8.8'],
      ['peer', '2606:4700:4700::1111', null, 1, '2606:4700:4700::1111'],
      ['network', '8.8.4.0/24', null, 256, '8.8.4.0/24'],
    ]);
    expect(res.body.data.added.every((a) => !a.verified && !a.disabled)).toBe(true);
  });

  it('refuses duplicates with 409, in the body and against existing targets', async () => {
    const inBody = await api.post<{ detail: string }>('/main/user_target/add_targets', {
      targets: ['a.example.org', 'A.EXAMPLE.ORG'],
    });
    expect(inBody.status).toBe(409);
    const existing = await api.post<{ detail: string }>('/main/user_target/add_targets', {
      targets: ['bücher.de'],
    });
    expect(existing.status).toBe(409);
    expect(existing.body.detail).toMatch(/already one of your targets/);
    const net = await api.post('/main/user_target/add_targets', { targets: ['8.8.4.200/24'] });
    expect(net.status).toBe(409);
  });

  it.each([
    ['10.0.0.1', /private/],
    ['127.0.0.1', /loopback/],
    ['192.168.10.0/24', /private/],
    ['169.254.169.254', /linkLocal|denied/],
    ['acme.test', /not a public domain/],
    ['printer.local', /not a public domain/],
    ['8.0.0.0/8', /more than the limit/],
    ['exa mple.com', /not a valid domain/],
    ['', /./],
    ['-bad-.com', /not a valid domain/],
    ['2001:db8::1', /reserved/],
  ])('refuses %s with 400', async (target, detail) => {
    const res = await api.post<{ detail: string; code: string }>('/main/user_target/add_targets', {
      targets: [target],
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });

  it('lists targets grouped by type, filtered by repeated targets_type and disabled=false', async () => {
    const all = await api.get<ByType>(
      '/main/user_target/get_targets?targets_type=domain&targets_type=peer&targets_type=network&disabled=false',
    );
    expect(all.status).toBe(200);
    expect(all.body.data.domain.map((d) => d.target)).toEqual(['www.example.co.uk', 'xn--bcher-kva.de']);
    expect(all.body.data.peer).toHaveLength(2);
    expect(all.body.data.network).toHaveLength(1);
    const peersOnly = await api.get<ByType>('/main/user_target/get_targets?targets_type=peer');
    expect(peersOnly.body.data.domain).toEqual([]);
    expect(peersOnly.body.data.peer).toHaveLength(2);

    const peer = all.body.data.peer[0] as TTarget;
    const off = await api.post<{ data: TTarget }>('/main/user_target/disable', {
      target_type: 'peer',
      user_target_id: peer.user_target_id,
    });
    expect(off.body.data.disabled).toBe(true);
    const live = await api.get<ByType>('/main/user_target/get_targets?targets_type=peer&disabled=false');
    expect(live.body.data.peer.map((p) => p.user_target_id)).not.toContain(peer.user_target_id);
    const disabled = await api.get<ByType>('/main/user_target/get_targets?targets_type=peer&disabled=true');
    expect(disabled.body.data.peer.map((p) => p.user_target_id)).toEqual([peer.user_target_id]);
    // A disabled target may be added again.
    expect((await api.post('/main/user_target/add_targets', { targets: [peer.target] })).status).toBe(201);

    const ext = await api.get<{ data: Record<string, TExtendedTarget[]> }>(
      '/main/user_target/get_extend_targets_info?targets_type=domain',
    );
    expect(ext.body.data.domain?.[0]).toMatchObject({
      status: 'unverified',
      score: 100,
      last_scan: null,
      periodicity: null,
    });
    const wrongType = await api.get(
      `/main/user_target/get_info_by_id?target_type=network&user_target_id=${all.body.data.domain[0]?.user_target_id}`,
    );
    expect(wrongType.status).toBe(404);
  });

  it('returns verification instructions per type', async () => {
    const all = await api.get<ByType>('/main/user_target/get_targets');
    const net = all.body.data.network[0] as TTarget;
    const res = await api.post<{ data: { record_names: string[]; value: string; instructions: string } }>(
      '/main/user_target/get_verification_txt',
      { target_type: 'network', user_target_id: net.user_target_id },
    );
    expect(res.body.data.record_names).toEqual(['4.8.8.in-addr.arpa', '_perimeter.4.8.8.in-addr.arpa']);
    expect(res.body.data.value).toMatch(/^perimeter-verification=[A-Za-z0-9_-]{20,}$/);
    const peer = all.body.data.peer[0] as TTarget;
    const p = await api.post<{ data: { file_urls: string[] } }>('/main/user_target/get_verification_txt', {
      target_type: 'peer',
      user_target_id: peer.user_target_id,
    });
    expect(p.body.data.file_urls[1]).toBe(
      `http://${peer.target.includes(':') ? `[${peer.target}]` : peer.target}/.well-known/perimeter-verification.txt`,
    );
  });
});

describe('plan limits', () => {
  let t: TestApp;
  let lab: Lab;
  let boss: PgBoss;
  beforeAll(async () => {
    lab = await startLab({ subnet: '127.0.89', dnsPort: 0 });
    t = await createTestApp(labEnv(lab));
    boss = await startQueue(t.databaseUrl, createLogger('silent'));
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
    await t?.close();
    await lab?.stop();
  });

  it('trial: one domain, 100 external IPs, no custom scans, templates only', async () => {
    const { api } = await signUp(t);
    expect((await api.post('/main/user_target/add_targets', { targets: ['acme.test'] })).status).toBe(201);
    const second = await api.post<{ detail: string; code: string }>('/main/user_target/add_targets', {
      targets: ['beta.test'],
    });
    expect(second.status).toBe(403);
    expect(second.body.detail).toMatch(/Trial scan plan allows 1 domain/);
    const ips = await api.post<{ detail: string }>('/main/user_target/add_targets', {
      targets: ['127.0.89.0/24'],
    });
    expect(ips.status).toBe(403);
    expect(ips.body.detail).toMatch(/100 external IP addresses/);
    expect((await api.post('/main/user_target/add_targets', { targets: ['127.0.89.0/26'] })).status).toBe(
      201,
    );
    const targets = await api.get<ByType>('/main/user_target/get_targets');
    const id = targets.body.data.domain[0]?.user_target_id as string;
    const custom = await api.post<{ detail: string }>('/main/create_abstract_scan', {
      targets: [{ target_type: 'domain', user_target_id: id }],
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: ['leakcheck'] },
    });
    expect(custom.status).toBe(403);
    expect(custom.body.detail).toMatch(/custom scans/);
    const full = await createScan(api, id);
    expect(full.config.subclasses).toEqual(['exploit_scanner']);
  });

  it('starter: 4 scans a month, the fifth start is refused', async () => {
    const { api } = await signUp(t, 'starter');
    const id = await addVerifiedDomain(api, lab, 'acme.test');
    for (let i = 0; i < 4; i++) {
      const scan = await createScan(api, id);
      const res = await api.post('/main/start_created_abstract_scan', { id: scan.id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const fifth = await createScan(api, id);
    const res = await api.post<{ detail: string }>('/main/start_created_abstract_scan', { id: fifth.id });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/allows 4 scans per month/);
  });

  it('business: custom scans of chosen classes and subclasses', async () => {
    const { api } = await signUp(t, 'business');
    const add = await api.post<Added>('/main/user_target/add_targets', { targets: ['beta.test'] });
    const id = add.body.data.added[0]?.user_target_id as string;
    const scan = await createScan(api, id, {
      scan_type: 'custom',
      custom_scan_config: { classes: ['class_information_gathering'], subclasses: ['exploit_db'] },
    });
    expect(scan.custom_scan_config).toBe(true);
    expect(scan.config.subclasses).toEqual(['exploit_db', 'leakcheck']);
    expect(scan.config.classes).toEqual([
      'class_resources',
      'class_exploitation',
      'class_information_gathering',
    ]);
    const empty = await api.post('/main/create_abstract_scan', {
      targets: [{ target_type: 'domain', user_target_id: id }],
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: [] },
    });
    expect(empty.status).toBe(400);
  });
});

/** A DNS server answering TXT for a few names (the lab is authoritative only for its zones). */
async function startTxtServer(
  records: Map<string, string[]>,
): Promise<{ port: number; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    const q = dnsPacket.decode(msg);
    const question = q.questions?.[0];
    const values = question ? records.get(question.name.toLowerCase()) : undefined;
    const reply = dnsPacket.encode({
      type: 'response',
      id: q.id ?? 0,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (values ? 0 : 3),
      questions: q.questions ?? [],
      answers: (values ?? []).map((v) => ({
        type: 'TXT' as const,
        name: question?.name ?? '',
        ttl: 1,
        data: v,
      })),
    });
    socket.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return { port: socket.address().port, close: () => new Promise((r) => socket.close(() => r())) };
}

describe('verification of networks (reverse zone TXT) and peers (/.well-known file)', () => {
  let t: TestApp;
  let dns: Awaited<ReturnType<typeof startTxtServer>>;
  const records = new Map<string, string[]>();
  let web: http.Server;
  let file: string | null = null;
  const PEER = '127.0.154.9';
  beforeAll(async () => {
    dns = await startTxtServer(records);
    web = http.createServer((req, res) => {
      if (req.url === '/.well-known/perimeter-verification.txt' && file) res.end(`${file}\n`);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => web.listen(80, PEER, () => r()));
    t = await createTestApp({
      PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
      PERIMETER_DNS_SERVERS: `127.0.0.1:${dns.port}`,
    });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await new Promise((r) => web?.close(r));
  });

  it('a network is verified by a TXT record on its reverse zone', async () => {
    const { api } = await signUp(t, 'business');
    const add = await api.post<Added>('/main/user_target/add_targets', { targets: ['127.0.154.0/25'] });
    const ref = { target_type: 'network', user_target_id: add.body.data.added[0]?.user_target_id };
    const txt = await api.post<{ data: { value: string; record_names: string[] } }>(
      '/main/user_target/get_verification_txt',
      ref,
    );
    expect(txt.body.data.record_names[0]).toBe('154.0.127.in-addr.arpa');
    const before = await api.post<{ data: { verified: boolean; detail: string } }>(
      '/main/user_target/check_verification',
      ref,
    );
    expect(before.body.data.verified).toBe(false);
    records.set('_perimeter.154.0.127.in-addr.arpa', ['unrelated', txt.body.data.value]);
    const after = await api.post<{ data: { verified: boolean } }>(
      '/main/user_target/check_verification',
      ref,
    );
    expect(after.body.data.verified).toBe(true);
    const off = await api.post<{ data: TTarget }>('/main/user_target/disable_verification', ref);
    expect(off.body.data.verified).toBe(false);
  });

  it('a peer is verified by a file under /.well-known served over HTTP', async () => {
    const { api } = await signUp(t, 'business');
    const add = await api.post<Added>('/main/user_target/add_targets', { targets: [PEER] });
    const ref = { target_type: 'peer', user_target_id: add.body.data.added[0]?.user_target_id };
    const txt = await api.post<{ data: { value: string } }>('/main/user_target/get_verification_txt', ref);
    const before = await api.post<{ data: { verified: boolean; detail: string } }>(
      '/main/user_target/check_verification',
      ref,
    );
    expect(before.body.data.verified).toBe(false);
    expect(before.body.data.detail).toMatch(/HTTP 404/);
    file = txt.body.data.value;
    const after = await api.post<{ data: { verified: boolean } }>(
      '/main/user_target/check_verification',
      ref,
    );
    expect(after.body.data.verified).toBe(true);
  });
});
