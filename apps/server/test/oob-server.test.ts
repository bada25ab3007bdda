import https from 'node:https';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { HTTP_BODY } from '../src/modules/oob/oob-http.ts';
import { useOobServer, ZONE } from './support/oob-fixture.ts';

/**
 * The out-of-band interaction server (issue #17, docs/oob.md) on 127.0.250.1 with ephemeral ports:
 * DNS (UDP and TCP), HTTP, LDAP and SMTP call-backs are recorded for registered ids and read back
 * through the scan's provider; the DNS server refuses other zones and never recurses. What is
 * stored, for whom and for how long: oob-stored.test.ts.
 */
const HOST = '127.0.250.1';
const lab = useOobServer(HOST);

describe('ids', () => {
  it('are the correlation id plus a fresh 13-character nonce, [a-z0-9], never repeated', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => lab.alice.provider.newId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9]{33}$/);
      expect(id.startsWith(lab.alice.provider.correlationId)).toBe(true);
    }
    expect(lab.alice.provider.correlationId).not.toBe(lab.bob.provider.correlationId);
    expect(lab.alice.provider.domain).toBe(ZONE);
  });
});

describe('DNS', () => {
  it('answers A for any name under the zone, authoritatively, and records it (UDP and TCP)', async () => {
    const id = lab.alice.provider.newId();
    const udp = await lab.udpQuery(`${id}.${ZONE}`);
    expect(udp.rcode).toBe('NOERROR');
    expect(udp.flag_aa).toBe(true);
    expect(udp.flag_ra).toBe(false);
    expect(udp.answers).toEqual([expect.objectContaining({ type: 'A', data: HOST })]);
    // A Log4Shell payload puts labels before the id; the resolver may change the case.
    const tcp = await lab.tcpQuery(`x-123.${id.toUpperCase()}.${ZONE}`, 'TXT');
    expect(tcp.rcode).toBe('NOERROR');
    expect(tcp.answers).toEqual([]);
    expect(tcp.authorities?.[0]?.type).toBe('SOA');
    const got = await lab.polled(lab.alice.provider, id, 2);
    expect(got.map((i) => [i.protocol, i.id, i.qType])).toEqual([
      ['dns', id, 'A'],
      ['dns', id, 'TXT'],
    ]);
    expect(got[0]?.remoteAddress).toMatch(/^127\./);
    expect(got[0]?.rawRequest).toContain(`${id}.${ZONE}. IN A`);
    expect(got[0]?.rawResponse).toContain(HOST);
    expect(Date.parse(got[0]?.at ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('gives NS and SOA for the zone', async () => {
    const ns = await lab.udpQuery(ZONE, 'NS');
    expect(ns.answers).toEqual([expect.objectContaining({ type: 'NS', data: `ns1.${ZONE}` })]);
    const soa = await lab.tcpQuery(ZONE, 'SOA');
    expect(soa.answers?.[0]?.type).toBe('SOA');
  });

  it('is no open resolver: another zone, even asked recursively, is REFUSED with no answer', async () => {
    for (const name of ['example.com', `www.example.org`, `x${ZONE}`, 'perimeter.test']) {
      const r = await lab.udpQuery(name, 'A', true);
      expect(r.rcode, name).toBe('REFUSED');
      expect(r.flag_ra).toBe(false);
      expect(r.answers).toEqual([]);
    }
    const r = await lab.tcpQuery('example.com', 'A');
    expect(r.rcode).toBe('REFUSED');
  });
});

describe('HTTP, LDAP, SMTP', () => {
  it('HTTP: any Host under the zone gets the fixed body; the request is recorded', async () => {
    const id = lab.alice.provider.newId();
    const res = await lab.httpGet(`${id}.${ZONE}`, '/ssrf?u=1');
    expect(res).toEqual({ status: 200, text: HTTP_BODY });
    // An id in the path only (an SSRF fetching an address, not the name).
    const other = lab.alice.provider.newId();
    await lab.httpGet(`${HOST}:${lab.portOf('http')}`, `/cb/${other}`, 'x=1');
    const [got] = await lab.polled(lab.alice.provider, id);
    expect(got).toMatchObject({ protocol: 'http', id });
    expect(got?.rawRequest).toMatch(/^GET \/ssrf\?u=1 HTTP\/1\.1\r\n/);
    expect(got?.rawRequest).toContain(`${id}.${ZONE}`);
    expect(got?.rawResponse).toContain('200 OK');
    expect((await lab.polled(lab.alice.provider, other))[0]?.rawRequest).toContain('x=1');
  });

  it('HTTPS: the same over TLS when a certificate is configured', async () => {
    const id = lab.alice.provider.newId();
    const text = await new Promise<string>((resolve, reject) => {
      const req = https.request(
        {
          host: HOST,
          port: lab.portOf('https'),
          path: '/x',
          headers: { host: `${id}.${ZONE}` },
          servername: `${id}.${ZONE}`,
          rejectUnauthorized: false,
        },
        (res) => {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(text).toBe(HTTP_BODY);
    const [got] = await lab.polled(lab.alice.provider, id);
    expect(got?.protocol).toBe('http');
    expect(got?.rawRequest).toMatch(/^\[https\]\r\nGET \/x HTTP\/1\.1/);
  });

  it('LDAP: a bind is answered with success, the search base carries the id', async () => {
    const id = lab.alice.provider.newId();
    const bytes = await lab.ldapExchange('', `${id}/Exploit`);
    // BindResponse success (message 1), then SearchResultDone success (message 2).
    expect([...bytes]).toEqual([
      0x30, 0x0c, 0x02, 0x01, 0x01, 0x61, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00, 0x30, 0x0c, 0x02,
      0x01, 0x02, 0x65, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00,
    ]);
    const [got] = await lab.polled(lab.alice.provider, id);
    expect(got?.protocol).toBe('ldap');
    expect(got?.rawRequest).toContain('BindRequest');
    expect(got?.rawRequest).toContain(`SearchRequest base="${id}/Exploit"`);
  });

  it('SMTP: mail to an address under the zone is recorded; other recipients are refused (no relay)', async () => {
    const id = lab.alice.provider.newId();
    const transport = nodemailer.createTransport({
      host: HOST,
      port: lab.portOf('smtp'),
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({ from: 'a@target.test', to: `x@${id}.${ZONE}`, subject: 'hi', text: 'blind' });
    await expect(
      transport.sendMail({ from: 'a@target.test', to: 'someone@example.com', subject: 'relay', text: 'no' }),
    ).rejects.toThrow(/relay/);
    transport.close();
    const [got] = await lab.polled(lab.alice.provider, id);
    expect(got?.protocol).toBe('smtp');
    expect(got?.rawRequest).toContain(`RCPT TO:<x@${id}.${ZONE}>`);
    expect(got?.rawRequest).toContain('Subject: hi');
  });
});
