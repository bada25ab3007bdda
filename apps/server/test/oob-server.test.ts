import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import dnsPacket, { type DecodedPacket } from 'dns-packet';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertFindings } from '../src/modules/findings/findings-write-repo.ts';
import { randomToken } from '../src/modules/oob/oob-fns.ts';
import { HTTP_BODY } from '../src/modules/oob/oob-http.ts';
import { expireOob } from '../src/modules/oob/oob-jobs.ts';
import { PgOobProvider } from '../src/modules/oob/oob-provider.ts';
import { type OobServer, startOobServer } from '../src/modules/oob/oob-server.ts';
import { oobNotices, oobScanConfig } from '../src/modules/oob/oob-service.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, REPO_ROOT, seedScan, signUp } from './support/scan-lab.ts';

/**
 * The out-of-band interaction server (issue #17, docs/oob.md) on 127.0.250.1 with ephemeral ports:
 * DNS (UDP and TCP), HTTP, LDAP and SMTP call-backs are recorded for registered ids and read back
 * through the scan's provider; strangers' ids are dropped; the DNS server refuses other zones and
 * never recurses; one tenant never sees another's interactions; expired correlations stop
 * accepting and are deleted; late call-backs are listed on the scan for its owner only.
 */
const ZONE = 'oob.perimeter.test';
const HOST = '127.0.250.1';

/** dns-packet decodes the response code too; its types leave it out. */
type Answered = DecodedPacket & { rcode?: string };

let t: TestApp;
let oob: OobServer;
let sql: pg.Client;
type User = { api: Api; userId: string; token: string; scanId: string; provider: PgOobProvider };
let alice: User;
let bob: User;

const portOf = (protocol: string) => {
  const l = oob.listeners.find((x) => x.protocol === protocol);
  if (!l) throw new Error(`no ${protocol} listener`);
  return l.address.port;
};

function udpQuery(name: string, type: dnsPacket.RecordType = 'A', recursive = false): Promise<Answered> {
  const socket = dgram.createSocket('udp4');
  return new Promise<Answered>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no DNS answer')), 5000);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(dnsPacket.decode(msg));
    });
    socket.send(
      dnsPacket.encode({
        type: 'query',
        id: 4242,
        flags: recursive ? dnsPacket.RECURSION_DESIRED : 0,
        questions: [{ type, name }],
      }),
      portOf('dns/udp'),
      HOST,
    );
  });
}

function tcpQuery(name: string, type: dnsPacket.RecordType = 'A'): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(portOf('dns/tcp'), HOST, () =>
      socket.write(dnsPacket.streamEncode({ type: 'query', id: 7, questions: [{ type, name }] })),
    );
    let buf = Buffer.alloc(0);
    socket.on('data', (c) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        socket.end();
        resolve(dnsPacket.streamDecode(buf) as Answered);
      }
    });
    socket.on('error', reject);
  });
}

/** An LDAP bind (DN `name`) then a search (base `base`), as a JNDI client sends them; resolves to the bytes received. */
function ldapExchange(name: string, base: string): Promise<Buffer> {
  const str = (tag: number, s: string) => Buffer.concat([Buffer.from([tag, s.length]), Buffer.from(s)]);
  const seq = (tag: number, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([Buffer.from([tag, body.length]), body]);
  };
  const bind = seq(
    0x30,
    Buffer.from([0x02, 0x01, 0x01]),
    seq(0x60, Buffer.from([0x02, 0x01, 0x03]), str(0x04, name), str(0x80, '')),
  );
  const search = seq(
    0x30,
    Buffer.from([0x02, 0x01, 0x02]),
    seq(
      0x63,
      str(0x04, base),
      Buffer.from([0x0a, 0x01, 0x00, 0x0a, 0x01, 0x03, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x01, 0x01, 0x00]),
      str(0x87, 'objectClass'),
      seq(0x30),
    ),
  );
  return new Promise((resolve, reject) => {
    const socket = net.connect(portOf('ldap'), HOST, () => socket.write(bind));
    let got = Buffer.alloc(0);
    let searched = false;
    socket.on('data', (c) => {
      got = Buffer.concat([got, c]);
      if (!searched && got.includes(0x61)) {
        searched = true;
        socket.write(search);
      } else if (got.includes(0x65)) socket.end();
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

/** An HTTP request to the listener with any Host header (fetch forbids setting it). */
function httpGet(host: string, path = '/', body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: HOST, port: portOf('http'), path, method: body ? 'POST' : 'GET', headers: { host } },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits until the provider sees `id` (the recorder writes in small batches). */
async function polled(provider: PgOobProvider, id: string, n = 1) {
  for (let i = 0; i < 100; i++) {
    await oob.recorder.flush();
    const got = await provider.poll([id]);
    if (got.length >= n) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  return provider.poll([id]);
}

const storedRows = async () =>
  Number((await sql.query('select count(*)::int as n from oob_interactions')).rows[0].n);

beforeAll(async () => {
  t = await createTestApp({
    PERIMETER_OOB_DOMAIN: ZONE,
    PERIMETER_OOB_IP: HOST,
    PERIMETER_OOB_HOST: HOST,
    PERIMETER_OOB_LISTENERS: 'dns,http,https,ldap,smtp',
    PERIMETER_OOB_DNS_PORT: '0',
    PERIMETER_OOB_HTTP_PORT: '0',
    PERIMETER_OOB_HTTPS_PORT: '0',
    // Any certificate will do here (the lab's self-signed one); an operator's covers *.<zone>.
    PERIMETER_OOB_TLS_CERT: path.join(REPO_ROOT, 'packages/lab/certs/expired-selfsigned.crt'),
    PERIMETER_OOB_TLS_KEY: path.join(REPO_ROOT, 'packages/lab/certs/expired-selfsigned.key'),
    PERIMETER_OOB_LDAP_PORT: '0',
    PERIMETER_OOB_SMTP_PORT: '0',
  });
  const ctx = t.runtime.ctx;
  oob = await startOobServer({ db: ctx.db, logger: ctx.logger, env: ctx.config.env });
  sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
  const user = async (domain: string) => {
    const u = await signUp(t);
    const { scanId } = await seedScan(t, u.api, u.userId, domain);
    const provider = await PgOobProvider.register(ctx.db, {
      domain: ZONE,
      scanId,
      userId: u.userId,
      retentionHours: 24,
    });
    return { api: u.api, userId: u.userId, token: u.token, scanId, provider };
  };
  alice = await user('alice-oob.example.com');
  bob = await user('bob-oob.example.com');
});

afterAll(async () => {
  await oob?.close();
  await sql?.end();
  await t?.close();
});

describe('ids', () => {
  it('are the correlation id plus a fresh 13-character nonce, [a-z0-9], never repeated', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => alice.provider.newId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9]{33}$/);
      expect(id.startsWith(alice.provider.correlationId)).toBe(true);
    }
    expect(alice.provider.correlationId).not.toBe(bob.provider.correlationId);
    expect(alice.provider.domain).toBe(ZONE);
  });
});

describe('DNS', () => {
  it('answers A for any name under the zone, authoritatively, and records it (UDP and TCP)', async () => {
    const id = alice.provider.newId();
    const udp = await udpQuery(`${id}.${ZONE}`);
    expect(udp.rcode).toBe('NOERROR');
    expect(udp.flag_aa).toBe(true);
    expect(udp.flag_ra).toBe(false);
    expect(udp.answers).toEqual([expect.objectContaining({ type: 'A', data: HOST })]);
    // A Log4Shell payload puts labels before the id; the resolver may change the case.
    const tcp = await tcpQuery(`x-123.${id.toUpperCase()}.${ZONE}`, 'TXT');
    expect(tcp.rcode).toBe('NOERROR');
    expect(tcp.answers).toEqual([]);
    expect(tcp.authorities?.[0]?.type).toBe('SOA');
    const got = await polled(alice.provider, id, 2);
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
    const ns = await udpQuery(ZONE, 'NS');
    expect(ns.answers).toEqual([expect.objectContaining({ type: 'NS', data: `ns1.${ZONE}` })]);
    const soa = await tcpQuery(ZONE, 'SOA');
    expect(soa.answers?.[0]?.type).toBe('SOA');
  });

  it('is no open resolver: another zone, even asked recursively, is REFUSED with no answer', async () => {
    for (const name of ['example.com', `www.example.org`, `x${ZONE}`, 'perimeter.test']) {
      const r = await udpQuery(name, 'A', true);
      expect(r.rcode, name).toBe('REFUSED');
      expect(r.flag_ra).toBe(false);
      expect(r.answers).toEqual([]);
    }
    const r = await tcpQuery('example.com', 'A');
    expect(r.rcode).toBe('REFUSED');
  });
});

describe('HTTP, LDAP, SMTP', () => {
  it('HTTP: any Host under the zone gets the fixed body; the request is recorded', async () => {
    const id = alice.provider.newId();
    const res = await httpGet(`${id}.${ZONE}`, '/ssrf?u=1');
    expect(res).toEqual({ status: 200, text: HTTP_BODY });
    // An id in the path only (an SSRF fetching an address, not the name).
    const other = alice.provider.newId();
    await httpGet(`${HOST}:${portOf('http')}`, `/cb/${other}`, 'x=1');
    const [got] = await polled(alice.provider, id);
    expect(got).toMatchObject({ protocol: 'http', id });
    expect(got?.rawRequest).toMatch(/^GET \/ssrf\?u=1 HTTP\/1\.1\r\n/);
    expect(got?.rawRequest).toContain(`${id}.${ZONE}`);
    expect(got?.rawResponse).toContain('200 OK');
    expect((await polled(alice.provider, other))[0]?.rawRequest).toContain('x=1');
  });

  it('HTTPS: the same over TLS when a certificate is configured', async () => {
    const id = alice.provider.newId();
    const text = await new Promise<string>((resolve, reject) => {
      const req = https.request(
        {
          host: HOST,
          port: portOf('https'),
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
    const [got] = await polled(alice.provider, id);
    expect(got?.protocol).toBe('http');
    expect(got?.rawRequest).toMatch(/^\[https\]\r\nGET \/x HTTP\/1\.1/);
  });

  it('LDAP: a bind is answered with success, the search base carries the id', async () => {
    const id = alice.provider.newId();
    const bytes = await ldapExchange('', `${id}/Exploit`);
    // BindResponse success (message 1), then SearchResultDone success (message 2).
    expect([...bytes]).toEqual([
      0x30, 0x0c, 0x02, 0x01, 0x01, 0x61, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00, 0x30, 0x0c, 0x02,
      0x01, 0x02, 0x65, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00,
    ]);
    const [got] = await polled(alice.provider, id);
    expect(got?.protocol).toBe('ldap');
    expect(got?.rawRequest).toContain('BindRequest');
    expect(got?.rawRequest).toContain(`SearchRequest base="${id}/Exploit"`);
  });

  it('SMTP: mail to an address under the zone is recorded; other recipients are refused (no relay)', async () => {
    const id = alice.provider.newId();
    const transport = nodemailer.createTransport({
      host: HOST,
      port: portOf('smtp'),
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({ from: 'a@target.test', to: `x@${id}.${ZONE}`, subject: 'hi', text: 'blind' });
    await expect(
      transport.sendMail({ from: 'a@target.test', to: 'someone@example.com', subject: 'relay', text: 'no' }),
    ).rejects.toThrow(/relay/);
    transport.close();
    const [got] = await polled(alice.provider, id);
    expect(got?.protocol).toBe('smtp');
    expect(got?.rawRequest).toContain(`RCPT TO:<x@${id}.${ZONE}>`);
    expect(got?.rawRequest).toContain('Subject: hi');
  });
});

describe('what is stored', () => {
  it('drops call-backs whose id starts with no registered correlation, and counts them', async () => {
    const before = await storedRows();
    const dropped = oob.recorder.counts.unregistered;
    const stranger = randomToken(33);
    await udpQuery(`${stranger}.${ZONE}`);
    await udpQuery(`not-an-id.${ZONE}`);
    await httpGet(`${randomToken(33)}.${ZONE}`);
    // The HTTP listener records after answering: wait for the count.
    for (let i = 0; i < 100 && oob.recorder.counts.unregistered < dropped + 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    await oob.recorder.flush();
    expect(await storedRows()).toBe(before);
    expect(oob.recorder.counts.unregistered).toBe(dropped + 2);
    // A known correlation with an unknown nonce is stored: the correlation is what gates storage.
    expect(await alice.provider.poll([stranger])).toEqual([]);
  });

  it('one tenant never sees another: polls are scoped to the correlation, the late list to the owner', async () => {
    const id = alice.provider.newId();
    await udpQuery(`${id}.${ZONE}`);
    expect(await polled(alice.provider, id)).toHaveLength(1);
    expect(await bob.provider.poll([id])).toEqual([]);
    expect(
      await bob.provider.poll([id.toUpperCase(), `${bob.provider.correlationId}${id.slice(20)}`]),
    ).toEqual([]);
    const late = await bob.api.get(`/main/get_abstract_scan_late_interactions?id=${alice.scanId}`);
    expect(late.status).toBe(404);
  });

  it('lists call-backs that arrived after the scan ended on the scan, for its owner', async () => {
    // Bob's scan ended a minute ago; one call-back came before the end, two after.
    await sql.query(`update scans set finished_at = now() - interval '1 minute' where id = $1`, [bob.scanId]);
    const before = bob.provider.newId();
    await udpQuery(`${before}.${ZONE}`);
    await polled(bob.provider, before);
    await sql.query(`update oob_interactions set at = now() - interval '2 minutes' where full_id = $1`, [
      before,
    ]);
    const after = bob.provider.newId();
    await udpQuery(`${after}.${ZONE}`, 'AAAA');
    await httpGet(`${after}.${ZONE}`);
    await polled(bob.provider, after, 2);
    const res = await bob.api.get<{ data: { count: number; items: { id: string; protocol: string }[] } }>(
      `/main/get_abstract_scan_late_interactions?id=${bob.scanId}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.count).toBe(2);
    expect(res.body.data.items.map((i) => [i.id, i.protocol]).sort()).toEqual([
      [after, 'dns'],
      [after, 'http'],
    ]);
    const bad = await bob.api.get('/main/get_abstract_scan_late_interactions?id=not-a-uuid');
    expect(bad.status).toBe(400);
  });

  it('expired correlations stop accepting call-backs and are deleted with their interactions', async () => {
    const ctx = t.runtime.ctx;
    const scanId = alice.scanId;
    const old = await PgOobProvider.register(ctx.db, {
      domain: ZONE,
      scanId,
      userId: alice.userId,
      retentionHours: 1,
    });
    const kept = old.newId();
    await udpQuery(`${kept}.${ZONE}`);
    expect(await polled(old, kept)).toHaveLength(1);
    // Registered already expired (so no look-up or refresh ever caches it live): accepts nothing.
    const expired = randomToken(20);
    await sql.query(
      `insert into oob_correlations (id, scan_id, user_id, expires_at) values ($1, $2, $3, now() - interval '1 second')`,
      [expired, scanId, alice.userId],
    );
    await sql.query(`update oob_correlations set expires_at = now() - interval '1 second' where id = $1`, [
      old.correlationId,
    ]);
    const late = expired + randomToken(13);
    await udpQuery(`${late}.${ZONE}`);
    await oob.recorder.flush();
    const rows = await sql.query('select count(*)::int as n from oob_interactions where full_id = $1', [
      late,
    ]);
    expect(rows.rows[0].n).toBe(0);
    expect(await expireOob(ctx)).toBe(2);
    expect(await old.poll([kept])).toEqual([]);
    const left = await sql.query('select count(*)::int as n from oob_correlations where id = any($1)', [
      [old.correlationId, expired],
    ]);
    expect(left.rows[0].n).toBe(0);
    // Alice's live correlation keeps its rows.
    expect((await sql.query('select count(*)::int as n from oob_correlations')).rows[0].n).toBe(2);
  });
});

describe('evidence', () => {
  it('a finding proved by call-backs shows them in the events API and the report data (the PDF reads the same)', async () => {
    // Evidence is shown on paid plans (the Trial plan hides finding details).
    await sql.query(`update users set plan = 'business' where id = $1`, [alice.userId]);
    const id = alice.provider.newId();
    await udpQuery(`${id}.${ZONE}`);
    const interactions = await polled(alice.provider, id);
    const target = await sql.query('select target_id from scan_targets where scan_id = $1', [alice.scanId]);
    const domain = 'alice-oob.example.com';
    await upsertFindings(t.runtime.ctx.db, alice.scanId, alice.userId, {
      exploit_scanner: [
        {
          targetId: target.rows[0].target_id,
          finding: {
            subclass: 'exploit_scanner',
            fingerprint: `fp-oob-${alice.scanId}`,
            templateId: 'blind-ssrf',
            name: 'Blind SSRF',
            severity: 'high',
            severityOrdering: 4,
            matchedAt: `http://www.${domain}/?u=${id}.${ZONE}`,
            extracted: [],
            references: [],
            tags: ['ssrf', 'oast'],
            mainDomain: domain,
            subdomain: 'www',
            host: `www.${domain}`,
            evidence: { request: 'GET /', response: '200', curl: 'curl', interactions, late: true } as never,
          },
        },
      ],
      exploit_db: [],
      leakcheck: [],
    });
    const events = await alice.api.post<{
      data: {
        items: { template_id: string; evidence: { interactions?: unknown[]; late?: boolean } | null }[];
      };
    }>('/main/get_all_user_abstract_scan_events', { scan_subclass: 'exploit_scanner' });
    expect(events.status).toBe(200);
    const ssrf = events.body.data.items.find((e) => e.template_id === 'blind-ssrf');
    expect(ssrf?.evidence?.late).toBe(true);
    expect(ssrf?.evidence?.interactions).toEqual([
      {
        id,
        protocol: 'dns',
        remote_address: interactions[0]?.remoteAddress,
        at: interactions[0]?.at,
        raw_request: interactions[0]?.rawRequest,
        raw_response: interactions[0]?.rawResponse,
        q_type: 'A',
      },
    ]);
    const report = await alice.api.get<{
      data: { findings: { name: string; how_to_reproduce: { interactions?: { id: string }[] } | null }[] };
    }>(`/main/get_user_events_data_report?id=${alice.scanId}`);
    expect(report.status).toBe(200);
    const inReport = report.body.data.findings.find((f) => f.name === 'Blind SSRF');
    expect(inReport?.how_to_reproduce?.interactions?.map((i) => i.id)).toEqual([id]);
    const pdf = await t.app.inject({
      method: 'POST',
      url: '/api/main/get_user_events_file_report',
      headers: { authorization: `Bearer ${alice.token}` },
      payload: { id: alice.scanId, format: 'pdf' },
    });
    expect(pdf.statusCode).toBe(200);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-oob-pdf-'));
    try {
      writeFileSync(path.join(dir, 'r.pdf'), pdf.rawPayload);
      const text = execFileSync('pdftotext', [path.join(dir, 'r.pdf'), '-'], { encoding: 'utf8' });
      expect(text).toContain('Out-of-band interactions');
      expect(text).toContain(`DNS A · ${interactions[0]?.remoteAddress}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('scan wiring', () => {
  it('registers a correlation for a scan running templates and passes the provider; nothing otherwise', async () => {
    const ctx = t.runtime.ctx;
    const cfg = await oobScanConfig(ctx, {
      id: alice.scanId,
      userId: alice.userId,
      subclasses: ['exploit_scanner'],
    });
    const id = cfg.oob?.provider.newId() ?? '';
    const row = await sql.query('select scan_id, user_id from oob_correlations where id = $1', [
      id.slice(0, 20),
    ]);
    expect(row.rows).toEqual([{ scan_id: alice.scanId, user_id: alice.userId }]);
    expect(
      await oobScanConfig(ctx, { id: alice.scanId, userId: alice.userId, subclasses: ['leakcheck'] }),
    ).toEqual({});
    expect(oobNotices(ctx, ['exploit_scanner'])).toEqual([]);
    const unset = {
      ...ctx,
      config: { ...ctx.config, env: { ...ctx.config.env, PERIMETER_OOB_DOMAIN: undefined } },
    };
    expect(oobNotices(unset, ['exploit_scanner'])).toEqual(['oob_not_configured']);
    expect(
      await oobScanConfig(unset, { id: alice.scanId, userId: alice.userId, subclasses: ['exploit_scanner'] }),
    ).toEqual({});
  });
});
