import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import dnsPacket, { type DecodedPacket } from 'dns-packet';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { PgOobProvider } from '../../src/modules/oob/oob-provider.ts';
import { type OobServer, startOobServer } from '../../src/modules/oob/oob-server.ts';
import { createTestApp, type TestApp } from './app.ts';
import { type Api, REPO_ROOT, seedScan, signUp } from './scan-lab.ts';

export const ZONE = 'oob.perimeter.test';

/** dns-packet decodes the response code too; its types leave it out. */
type Answered = DecodedPacket & { rcode?: string };

export type OobUser = { api: Api; userId: string; token: string; scanId: string; provider: PgOobProvider };

/**
 * The app with the out-of-band server listening on `host` (every protocol, ephemeral ports), and two
 * users, alice and bob, each with a scan and its registered correlation: started before the file's
 * tests, closed after them. Its clients send call-backs to that server.
 */
export function useOobServer(host: string) {
  const lab = {
    host,
  } as { host: string; t: TestApp; oob: OobServer; sql: pg.Client; alice: OobUser; bob: OobUser };

  beforeAll(async () => {
    lab.t = await createTestApp({
      PERIMETER_OOB_DOMAIN: ZONE,
      PERIMETER_OOB_IP: host,
      PERIMETER_OOB_HOST: host,
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
    const ctx = lab.t.runtime.ctx;
    lab.oob = await startOobServer({ db: ctx.db, logger: ctx.logger, env: ctx.config.env });
    lab.sql = new pg.Client({ connectionString: lab.t.databaseUrl });
    await lab.sql.connect();
    const user = async (domain: string): Promise<OobUser> => {
      const u = await signUp(lab.t);
      const { scanId } = await seedScan(lab.t, u.api, u.userId, domain);
      const provider = await PgOobProvider.register(ctx.db, {
        domain: ZONE,
        scanId,
        userId: u.userId,
        retentionHours: 24,
      });
      return { api: u.api, userId: u.userId, token: u.token, scanId, provider };
    };
    lab.alice = await user('alice-oob.example.com');
    lab.bob = await user('bob-oob.example.com');
  });

  afterAll(async () => {
    await lab.oob?.close();
    await lab.sql?.end();
    await lab.t?.close();
  });

  const portOf = (protocol: string) => {
    const l = lab.oob.listeners.find((x) => x.protocol === protocol);
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
        host,
      );
    });
  }

  function tcpQuery(name: string, type: dnsPacket.RecordType = 'A'): Promise<Answered> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(portOf('dns/tcp'), host, () =>
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
        Buffer.from([
          0x0a, 0x01, 0x00, 0x0a, 0x01, 0x03, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x01, 0x01, 0x00,
        ]),
        str(0x87, 'objectClass'),
        seq(0x30),
      ),
    );
    return new Promise((resolve, reject) => {
      const socket = net.connect(portOf('ldap'), host, () => socket.write(bind));
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
  function httpGet(name: string, path = '/', body?: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host, port: portOf('http'), path, method: body ? 'POST' : 'GET', headers: { host: name } },
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
      await lab.oob.recorder.flush();
      const got = await provider.poll([id]);
      if (got.length >= n) return got;
      await new Promise((r) => setTimeout(r, 50));
    }
    return provider.poll([id]);
  }

  const storedRows = async () =>
    Number((await lab.sql.query('select count(*)::int as n from oob_interactions')).rows[0].n);

  return Object.assign(lab, { portOf, udpQuery, tcpQuery, ldapExchange, httpGet, polled, storedRows });
}
