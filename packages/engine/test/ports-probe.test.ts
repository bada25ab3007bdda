import net from 'node:net';
import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanTcpPorts } from '../src/ports/connect-scanner.ts';
import { isNmapAvailable, parseNmapXml, runNmap } from '../src/ports/nmap-adapter.ts';
import { identifyService } from '../src/ports/service-probes.ts';
import { HttpProber } from '../src/probe/http-probe.ts';
import { fetchTlsInfo } from '../src/probe/tls-info.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';
import { startTestLab } from './helpers.ts';

let lab: Lab;
const policy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.0.0/8'] });
const ip = (o: number) => lab.address(o);
const port = (p: number) => lab.portMap[p] ?? p;

beforeAll(async () => {
  lab = await startTestLab(42);
});
afterAll(async () => {
  await lab?.stop();
});

async function collect(it: AsyncIterable<number>): Promise<number[]> {
  const out: number[] = [];
  for await (const p of it) out.push(p);
  return out.sort((a, b) => a - b);
}

describe('connect scanner', () => {
  it('finds the open ports of a host', async () => {
    const open = await collect(
      scanTcpPorts(policy, ip(18), [1, 21, 22, port(25), port(110), port(143), 993, 3306], {
        concurrency: 4,
      }),
    );
    expect(open).toEqual([port(25), port(110), port(143)]);
  });

  it('honours a per-host rate', async () => {
    const started = Date.now();
    await collect(scanTcpPorts(policy, ip(2), [1, 2, 3, 4, 5, 6], { ratePerSecond: 20 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('refuses an out-of-scope address before any connect', () => {
    expect(() => scanTcpPorts(policy, '10.0.0.1', [80])).toThrow(/outside the allow-list/);
  });

  it('stops on abort', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(collect(scanTcpPorts(policy, ip(2), [1, 2], { signal: ac.signal }))).rejects.toThrow(
      /abort/i,
    );
  });
});

describe('service identification on the lab', () => {
  it.each([
    [16, 22, { service: 'ssh', product: 'OpenSSH', version: '7.2p2' }],
    [17, 21, { service: 'ftp', product: 'vsftpd', version: '2.3.4' }],
    [18, 25, { service: 'smtp', product: 'Exim smtpd', version: '4.87' }],
    [18, 110, { service: 'pop3', product: 'Dovecot pop3d' }],
    [18, 143, { service: 'imap', product: 'Dovecot imapd' }],
    [15, 6379, { service: 'redis', product: 'Redis', version: '4.0.9' }],
    [19, 3306, { service: 'mysql', product: 'MySQL', version: '5.5.62' }],
    [10, 80, { service: 'http', product: 'nginx', version: '1.14.0' }],
    [14, 443, { service: 'https', product: 'lighttpd', version: '1.4.45', tls: true }],
    [12, 3000, { service: 'http' }],
  ])('127.0.42.%i:%i', async (octet, usual, expected) => {
    const info = await identifyService(policy, ip(octet), port(usual), { readTimeoutMs: 800 });
    expect(info).toMatchObject(expected);
  });
});

describe('HTTP probe', () => {
  const resolveHost = async (h: string) => {
    const map: Record<string, string> = {
      'www.acme.test': ip(10),
      'api.acme.test': ip(13),
      'secure.acme.test': ip(14),
    };
    return map[h] ? [map[h]] : [];
  };

  it('reads status, title, hashes and favicon', async () => {
    const prober = new HttpProber(policy, resolveHost);
    const r = await prober.probe(`http://www.acme.test:${port(80)}/`, () => true);
    expect(r.final.status).toBe(200);
    expect(r.final.title).toBe('Acme Corp');
    expect(r.final.headers.server).toEqual(['nginx/1.14.0']);
    expect(r.final.bodySha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.final.bodySize).toBe(r.final.body.length);
    expect(typeof r.faviconHash).toBe('number');
    await prober.close();
  });

  it('follows in-target redirects and stops at ones leaving the target', async () => {
    const prober = new HttpProber(policy, resolveHost);
    const inside = await prober.probe(`http://api.acme.test:${port(80)}/redirect?url=/`, () => true);
    expect(inside.redirects).toHaveLength(1);
    expect(inside.final.status).toBe(200);
    const outside = await prober.probe(
      `http://api.acme.test:${port(80)}/redirect?url=http://www.acme.test:${port(80)}/`,
      (h) => h === 'api.acme.test',
    );
    expect(outside.refused).toMatchObject({ kind: 'out_of_target' });
    expect(outside.final.status).toBe(302);
    await prober.close();
  });

  it('refuses a redirect to a name that resolves outside the allowed set', async () => {
    const prober = new HttpProber(policy, async (h) =>
      h === 'internal.acme.test' ? ['10.0.0.1'] : resolveHost(h),
    );
    const r = await prober.probe(
      `http://api.acme.test:${port(80)}/redirect?url=http://internal.acme.test/admin`,
      () => true,
    );
    expect(r.refused).toEqual({
      url: 'http://internal.acme.test/admin',
      address: '10.0.0.1',
      reason: 'outside the allow-list',
      kind: 'scope_refused',
    });
    expect(r.final.status).toBe(302);
    await prober.close();
  });

  it('reads TLS certificate details (expired, self-signed, SANs)', async () => {
    const tls = await fetchTlsInfo(policy, ip(14), port(443), 'secure.acme.test', 2000);
    expect(tls).toMatchObject({ expired: true, selfSigned: true, trusted: false });
    expect(tls.sans).toEqual(['secure.acme.test', 'intranet-portal.acme.test']);
    expect(tls.subject).toContain('CN=secure.acme.test');
    expect(tls.validTo).toBe('2021-01-01T00:00:00.000Z');
    expect(tls.protocol).toMatch(/^TLSv1\.[23]$/);
    expect(tls.cipher).toBeTruthy();
  });
});

describe('nmap adapter', () => {
  it('parses nmap XML into the scanner result type', () => {
    const xml = `<?xml version="1.0"?><nmaprun><host><status state="up"/><address addr="192.0.2.5" addrtype="ipv4"/>
      <ports><port protocol="tcp" portid="22"><state state="open"/><service name="ssh" product="OpenSSH" version="7.2p2 Ubuntu 4ubuntu2.10"><cpe>cpe:/a:openbsd:openssh:7.2p2</cpe><cpe>cpe:/o:linux:linux_kernel</cpe></service></port>
      <port protocol="tcp" portid="443"><state state="open"/><service name="http" product="nginx" version="1.14.0" tunnel="ssl"/></port>
      <port protocol="tcp" portid="25"><state state="closed"/><service name="smtp"/></port></ports></host></nmaprun>`;
    expect(parseNmapXml(xml)).toEqual([
      {
        ip: '192.0.2.5',
        port: 22,
        transport: 'tcp',
        source: 'nmap',
        service: 'ssh',
        tls: false,
        product: 'OpenSSH',
        version: '7.2p2',
        tech: 'OpenSSH',
        cpe: 'cpe:2.3:a:openbsd:openssh:7.2p2:*:*:*:*:*:*:*',
      },
      {
        ip: '192.0.2.5',
        port: 443,
        transport: 'tcp',
        source: 'nmap',
        service: 'https',
        tls: true,
        product: 'nginx',
        version: '1.14.0',
        tech: 'Nginx',
      },
    ]);
  });

  it.runIf(isNmapAvailable())(
    'runs nmap -sT -sV against a lab host (skipped when nmap is not installed)',
    async () => {
      const result = await runNmap(policy, ip(16), [port(22), 23]);
      expect(result).toHaveLength(1);
      expect(result[0]).toMatchObject({
        port: port(22),
        service: 'ssh',
        product: 'OpenSSH',
        version: '7.2p2',
        tech: 'OpenSSH',
        source: 'nmap',
      });
    },
    60_000,
  );

  it('refuses out-of-scope addresses', async () => {
    await expect(runNmap(policy, '10.0.0.1', [80])).rejects.toThrow(/outside the allow-list/);
  });
});

it('the lab listens only on loopback', () => {
  for (const s of lab.services) expect(net.isIPv4(s.address) && s.address.startsWith('127.')).toBe(true);
});
