import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import dnsPacket, { type Packet } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_CVE_FEED_PATH, LAB_CVES, labCveFeed } from '../src/cve-feed.ts';
import { loadExpected } from '../src/expected.ts';
import { FALLBACK_PORTS, LAB_HOSTS } from '../src/lab-definition.ts';
import { PLANTED, PLANTED_IDS, REMOVABLE_PLANTED_IDS } from '../src/planted.ts';
import { type Lab, startLab } from '../src/start-lab.ts';
import { BANNERS } from '../src/tcp-services.ts';

let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ subnet: '127.0.60', dnsPort: 0 });
});
afterAll(async () => {
  await lab?.stop();
});

function dnsQuery(name: string, type: 'A' | 'TXT' | 'CNAME', id = 7): Promise<Packet> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      reject(new Error('timeout'));
    }, 2000);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      resolve(dnsPacket.decode(m));
    });
    s.send(dnsPacket.encode({ id, type: 'query', questions: [{ name, type }] }), lab.dns.port, lab.dns.host);
  });
}

function get(host: string, port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      http
        .get({ host, port, path, headers }, (res) => {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        })
        .on('error', reject);
    },
  );
}

function banner(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString('latin1').trim());
    });
    s.once('error', reject);
  });
}

const rcode = (p: Packet) => (p as Packet & { rcode?: string }).rcode;

describe('lab', () => {
  it('binds only loopback addresses on its own subnet', () => {
    expect(lab.services.length).toBeGreaterThan(15);
    for (const s of lab.services) expect(s.address.startsWith('127.0.60.')).toBe(true);
    expect(lab.dns.host.startsWith('127.')).toBe(true);
  });

  it('refuses a subnet outside 127.0.0.0/8', async () => {
    await expect(startLab({ subnet: '10.0.0', dnsPort: 0 })).rejects.toThrow(/127\.0\.0\.0\/8/);
  });

  it('answers DNS for its zones, NXDOMAIN elsewhere; hostile records only on request', async () => {
    const a = await dnsQuery('www.acme.test', 'A');
    expect(a.answers?.map((x) => (x as { data: string }).data)).toEqual(['127.0.60.10']);
    expect(rcode(await dnsQuery('nothing.acme.test', 'A'))).toBe('NXDOMAIN');
    expect(rcode(await dnsQuery('example.com', 'A'))).toBe('NXDOMAIN');
    expect(rcode(await dnsQuery('metadata.acme.test', 'A'))).toBe('NXDOMAIN');
    const wild = await dnsQuery('whatever.wild.test', 'A');
    expect(wild.answers?.map((x) => (x as { data: string }).data)).toEqual(['127.0.60.22']);
  });

  it('answers each query with its own id, a question asked again as the first time', async () => {
    const first = await dnsQuery('www.acme.test', 'A', 101);
    const again = await dnsQuery('www.acme.test', 'A', 202);
    const other = await dnsQuery('WWW.acme.test', 'A', 303);
    expect([first.id, again.id, other.id]).toEqual([101, 202, 303]);
    expect({ ...again, id: 101 }).toEqual(first);
    expect(other.questions?.[0]?.name).toBe('WWW.acme.test');
    expect(other.answers?.map((x) => (x as { data: string }).data)).toEqual(['127.0.60.10']);
  });

  it('publishes and removes TXT records at run time', async () => {
    // Asked before the change as well: an answer given earlier is not given again after it.
    expect((await dnsQuery('acme.test', 'TXT')).answers).toHaveLength(1);
    lab.setTxt('acme.test', ['perimeter-verification=xyz']);
    const txt = await dnsQuery('acme.test', 'TXT');
    const values = txt.answers?.map((x) => Buffer.concat((x as { data: Buffer[] }).data).toString());
    expect(values).toEqual(['v=spf1 mx -all', 'perimeter-verification=xyz']);
    lab.removeTxt('acme.test');
    const after = await dnsQuery('acme.test', 'TXT');
    expect(after.answers).toHaveLength(1);
  });

  it('serves the planted services with their banners', async () => {
    expect(await banner(lab.address(16), lab.portMap[22] ?? 22)).toBe(BANNERS.ssh);
    expect(await banner(lab.address(17), lab.portMap[21] ?? 21)).toBe(BANNERS.ftp);
    expect(await banner(lab.address(18), lab.portMap[25] ?? 25)).toBe(BANNERS.smtp);
    const www = await get(lab.address(10), lab.portMap[80] ?? 80, '/');
    expect(www.headers.server).toBe('nginx/1.14.0');
    expect(www.body).toContain('jquery-1.12.4.min.js');
  });

  it('turns planted issues off and on at run time', async () => {
    const port = lab.portMap[80] ?? 80;
    expect((await get(lab.address(11), port, '/.git/config')).status).toBe(200);
    lab.setPlanted('LAB-APP-GIT-CONFIG', false);
    expect((await get(lab.address(11), port, '/.git/config')).status).toBe(404);
    lab.setPlanted('LAB-APP-GIT-CONFIG', true);
    expect((await get(lab.address(11), port, '/.git/config')).status).toBe(200);

    const cors = await get(lab.address(13), port, '/', { Origin: 'https://evil.example' });
    expect(cors.headers['access-control-allow-origin']).toBe('https://evil.example');
    lab.setPlanted('LAB-API-CORS', false);
    expect(
      (await get(lab.address(13), port, '/', { Origin: 'https://evil.example' })).headers[
        'access-control-allow-origin'
      ],
    ).toBeUndefined();
    lab.setPlanted('LAB-API-CORS', true);

    expect(() => lab.setPlanted('LAB-NOPE', false)).toThrow(/unknown/);
    expect(() => lab.setPlanted('LAB-SSH-OPENSSH-OUTDATED', false)).toThrow(/cannot be toggled/);
  });

  it('answers the planted path traversals with a fake passwd', async () => {
    const port = lab.portMap[80] ?? 80;
    const r = await get(lab.address(11), port, '/icons/.%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd');
    expect(r.body).toMatch(/^root:x:0:0:/);
    const g = await get(
      lab.address(12),
      3000,
      '/public/plugins/alertlist/../../../../../../../../etc/passwd',
    );
    expect(g.body).toMatch(/^root:x:0:0:/);
  });

  it('serves a crt.sh-compatible API', async () => {
    const u = new URL(lab.ctUrl);
    const r = await get(u.hostname, Number(u.port || 80), '/?q=%25.acme.test&output=json');
    const rows = JSON.parse(r.body) as { name_value: string }[];
    expect(rows.map((x) => x.name_value)).toContain('legacy-vpn.acme.test');
  });
});

describe('expected.json', () => {
  const expected = loadExpected();

  it('lists every planted issue once, with a description', () => {
    expect(expected.findings.map((f) => f.id)).toEqual(PLANTED_IDS);
    expect(new Set(PLANTED_IDS).size).toBe(PLANTED_IDS.length);
    for (const f of expected.findings) expect(f.description.length).toBeGreaterThan(10);
    for (const id of REMOVABLE_PLANTED_IDS) expect(PLANTED.find((p) => p.id === id)?.removable).toBe(true);
  });

  it('uses only lab addresses and services that the lab runs', () => {
    const running = new Set(LAB_HOSTS.flatMap((h) => h.services.map((s) => `127.0.1.${h.octet}:${s.port}`)));
    for (const s of expected.assets.services) expect(running.has(`${s.ip}:${s.port}`)).toBe(true);
    for (const ip of expected.assets.ips) expect(ip.startsWith('127.0.1.')).toBe(true);
  });

  it('names the template of every planted exploit_scanner issue and the CVEs of every exploit_db one', () => {
    for (const f of expected.findings) {
      if (f.subclass === 'exploit_scanner') expect(f.templateId, f.id).toMatch(/^[\w.-]+$/);
      else expect(f.cves?.length ?? 0, f.id).toBeGreaterThan(0);
    }
  });

  it('lists every finding of a full scan: each planted issue, each CVE and each leak', () => {
    const keys = expected.scanFindings.map((f) => JSON.stringify(f));
    expect(new Set(keys).size).toBe(keys.length);
    const ids = new Set(PLANTED_IDS);
    for (const f of expected.scanFindings)
      if (f.subclass !== 'leakcheck' && f.planted) expect(ids).toContain(f.planted);
    for (const p of expected.findings) {
      const mine = expected.scanFindings.filter((f) => f.subclass !== 'leakcheck' && f.planted === p.id);
      if (p.subclass === 'exploit_scanner')
        expect(
          mine.map((f) => (f.subclass === 'exploit_scanner' ? `${f.templateId}@${f.host}` : '')),
        ).toEqual([`${p.templateId}@${p.host}`]);
      else
        expect(mine.map((f) => (f.subclass === 'exploit_db' ? f.cve : '')).sort()).toEqual(
          [...(p.cves ?? [])].sort(),
        );
    }
    const leaks = expected.scanFindings.flatMap((f) =>
      f.subclass === 'leakcheck' ? [`${f.email} ${f.leakDate}`] : [],
    );
    expect(leaks.sort()).toEqual(expected.leakCorpus.map((l) => `${l.email} ${l.leakDate}`).sort());
  });

  it('publishes a CVE feed (NVD 2.0) that covers every CVE the scan must report', () => {
    const feed = JSON.parse(readFileSync(LAB_CVE_FEED_PATH, 'utf8')) as {
      vulnerabilities: { cve: { id: string } }[];
    };
    const inFeed = feed.vulnerabilities.map((v) => v.cve.id).sort();
    expect(inFeed).toEqual(LAB_CVES.map((c) => c.id).sort());
    expect(feed).toEqual(labCveFeed());
    const wanted = new Set(
      expected.scanFindings.flatMap((f) => (f.subclass === 'exploit_db' ? [f.cve] : [])),
    );
    expect([...wanted].sort()).toEqual(inFeed);
  });

  it('has a synthetic leak corpus for the lab domains', () => {
    expect(expected.leakCorpus.length).toBeGreaterThanOrEqual(5);
    for (const l of expected.leakCorpus) {
      expect(l.email).toMatch(/@(acme|beta|wild)\.test$/);
      expect(l.sources.length).toBeGreaterThan(0);
      expect(l.leakDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('is rewritten for another subnet and for fallback ports', () => {
    expect(lab.expected().assets.ips).toContain('127.0.60.10');
    expect(lab.expected().assets.technologies).toContainEqual({
      target: 'www.acme.test:80',
      name: 'Nginx',
      version: '1.14.0',
    });
  });
});

describe('fallback ports', () => {
  it('binds the documented port map when asked', async () => {
    const fb = await startLab({ subnet: '127.0.61', dnsPort: 0, lowPorts: 'fallback' });
    try {
      expect(fb.portMap[80]).toBe(FALLBACK_PORTS[80]);
      expect(fb.portMap[22]).toBe(FALLBACK_PORTS[22]);
      expect(fb.portMap[6379]).toBe(6379);
      expect(await banner(fb.address(16), FALLBACK_PORTS[22] as number)).toBe(BANNERS.ssh);
      const e = fb.expected();
      expect(e.assets.urls).toContainEqual({
        url: 'http://www.acme.test:8000/',
        status: 200,
        title: 'Acme Corp',
      });
      expect(e.assets.services).toContainEqual(expect.objectContaining({ ip: '127.0.61.16', port: 2222 }));
    } finally {
      await fb.stop();
    }
  });
});

describe('a usual port taken by another program', () => {
  it('moves that port to its fallback and says so in portMap and expected()', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(3000, '127.0.62.12', () => r()));
    const moved = await startLab({ subnet: '127.0.62', dnsPort: 0 });
    try {
      expect(moved.portMap[3000]).toBe(FALLBACK_PORTS[3000]);
      expect(moved.expected().assets.urls).toContainEqual(
        expect.objectContaining({ url: 'http://grafana.acme.test:13000/' }),
      );
      const r = await get(moved.address(12), 13000, '/login');
      expect(r.body).toContain('grafanaBootData');
    } finally {
      await moved.stop();
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });
});
