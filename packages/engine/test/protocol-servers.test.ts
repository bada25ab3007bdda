import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyService } from '../src/ports/service-probes.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';

// identifyService end to end against loopback servers on 127.0.49.x, each speaking one protocol
// the real-software lab has no Debian package for (or no free one), written from the protocol's
// documents: a server answers only the request its protocol expects and drops anything else, so
// a probe that sends the wrong bytes, or goes to the wrong port, fails here. The daemons of the
// real-software lab (test/real-software.test.ts) cover PostgreSQL, MySQL, Redis, memcached, MQTT,
// DNS, LDAP, the mail and web servers and the proxies.
const SUBNET = '127.0.49';
const policy = new ScopePolicy({ allowPrivate: true, allow: [`${SUBNET}.0/24`] });
// Ports below 1024 (SMB 445, telnet 23, SMTPS 465) need root, as the real-software lab does.
const isRoot = process.getuid?.() === 0;
const closers: (() => Promise<unknown>)[] = [];
let dir: string;
let pem: { key: string; cert: string };

function listen(server: net.Server, octet: number, port: number): Promise<void> {
  const open = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => open.add(s.once('close', () => open.delete(s))));
  closers.push(() => {
    for (const s of open) s.destroy();
    return new Promise((r) => server.close(r));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, `${SUBNET}.${octet}`, resolve);
  });
}

/** A TCP server that answers the first message that `valid` accepts, and drops any other. */
function answering(valid: (req: Buffer) => boolean, reply: (req: Buffer) => Buffer): net.Server {
  return net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (req) => (valid(req) ? socket.end(reply(req)) : socket.destroy()));
  });
}

/** A TCP server that speaks first (a greeting) and then waits. */
function greeting(text: Buffer): net.Server {
  return net.createServer((socket) => {
    socket.on('error', () => {});
    socket.write(text);
  });
}

/** An HTTP(S) server answering the paths of `routes`, 404 elsewhere. */
type Route = { status: number; headers?: Record<string, string>; body?: string };
function httpServer(routes: Record<string, Route>, fallback: Route, secure = false): net.Server {
  const handler: http.RequestListener = (req, res) => {
    const r = routes[req.url ?? '/'] ?? fallback;
    res.writeHead(r.status, r.headers ?? {});
    res.end(r.body ?? '');
  };
  return secure ? https.createServer(pem, handler) : http.createServer(handler);
}

const int32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
};
const int32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

// --- Microsoft SQL Server: [MS-TDS] 2.2.6.5 PRELOGIN, answered by a PRELOGIN response (type 4)
const mssql = answering(
  (req) => req[0] === 0x12 && req.readUInt16BE(2) === req.length,
  () => {
    // VERSION (token 0, offset 11, length 6), ENCRYPTION (1, offset 17, length 1), terminator.
    const options = Buffer.from([0x00, 0, 11, 0, 6, 0x01, 0, 17, 0, 1, 0xff]);
    const data = Buffer.from([16, 0, 0x10, 0x8a, 0, 0, 0x02]); // 16.0.4234, encryption not supported
    const body = Buffer.concat([options, data]);
    const header = Buffer.from([0x04, 0x01, 0, 8 + body.length, 0, 0, 1, 0]);
    return Buffer.concat([header, body]);
  },
);

// --- Oracle TNS listener: CONNECT (type 1) asking COMMAND=version, answered by a REFUSE (type 4)
const oracle = answering(
  (req) => req[4] === 1 && req.readUInt16BE(0) === req.length && req.includes('(COMMAND=version)'),
  () => {
    // VSNNUM 318767104 = 0x13000000: 19.0.0.0.0.
    const text = Buffer.from(
      '(DESCRIPTION=(TMP=)(VSNNUM=318767104)(ERR=1189)(ERROR_STACK=(ERROR=(CODE=1189))))',
    );
    const refuse = Buffer.concat([Buffer.from([0, 0, 0, text.length]), text]);
    const header = Buffer.from([0, 8 + refuse.length, 0, 0, 4, 0, 0, 0]);
    return Buffer.concat([header, refuse]);
  },
);

// --- MongoDB: OP_MSG (opCode 2013) {buildInfo: 1, $db: "admin"}, answered with an OP_MSG reply
function mongoReply(req: Buffer): Buffer {
  const version = Buffer.from('7.0.2\0');
  const ok = Buffer.alloc(8);
  ok.writeDoubleLE(1);
  const elements = Buffer.concat([
    Buffer.from('\x02version\0', 'latin1'),
    int32le(version.length),
    version,
    Buffer.from('\x01ok\0', 'latin1'),
    ok,
  ]);
  const doc = Buffer.concat([int32le(elements.length + 5), elements, Buffer.from([0])]);
  const msg = Buffer.concat([int32le(0), Buffer.from([0]), doc]);
  // messageLength, requestID, responseTo (the request's id), opCode.
  return Buffer.concat([int32le(16 + msg.length), int32le(77), req.subarray(4, 8), int32le(2013), msg]);
}
const isMongoBuildInfo = (req: Buffer) =>
  req.length >= 21 &&
  req.readInt32LE(0) === req.length &&
  req.readInt32LE(12) === 2013 &&
  req.includes('buildInfo');

// --- SMB2: NEGOTIATE (command 0) after the NetBIOS session header, answered by a NEGOTIATE response
const smb = answering(
  (req) =>
    req.readUInt32BE(0) === req.length - 4 && req.subarray(4, 8).equals(Buffer.from('\xfeSMB', 'latin1')),
  () => {
    const header = Buffer.alloc(64);
    Buffer.from('\xfeSMB', 'latin1').copy(header);
    header.writeUInt16LE(64, 4);
    header.writeUInt32LE(1, 16); // flags: server to redirector
    const body = Buffer.alloc(65);
    body.writeUInt16LE(65, 0);
    body.writeUInt16LE(0x0302, 4); // dialect SMB 3.0.2
    const smb2 = Buffer.concat([header, body]);
    return Buffer.concat([int32be(smb2.length), smb2]);
  },
);

// --- RDP: X.224 Connection Request (TPKT 3, CR 0xe0), answered by a Connection Confirm (0xd0)
const rdp = answering(
  (req) => req[0] === 3 && req.readUInt16BE(2) === req.length && req[5] === 0xe0,
  // RDP Negotiation Response: TLS selected.
  () => Buffer.from([3, 0, 0, 19, 14, 0xd0, 0, 0, 0x12, 0x34, 0, 2, 0, 8, 0, 1, 0, 0, 0]),
);

// --- AMQP 0-9-1: the protocol header, answered by Connection.Start with its server-properties
const amqp = answering(
  (req) => req.equals(Buffer.from('AMQP\x00\x00\x09\x01', 'latin1')),
  () => {
    const longstr = (s: string) => Buffer.concat([int32be(Buffer.byteLength(s)), Buffer.from(s)]);
    const entry = (k: string, v: string) =>
      Buffer.concat([Buffer.from([k.length]), Buffer.from(`${k}S`), longstr(v)]);
    const table = Buffer.concat([
      entry('product', 'RabbitMQ'),
      entry('version', '3.12.1'),
      entry('platform', 'Erlang/OTP 25.3'),
    ]);
    const args = Buffer.concat([
      Buffer.from([0, 9]),
      int32be(table.length),
      table,
      longstr('PLAIN'),
      longstr('en_US'),
    ]);
    const method = Buffer.concat([Buffer.from([0, 10, 0, 10]), args]);
    return Buffer.concat([Buffer.from([1, 0, 0]), int32be(method.length), method, Buffer.from([0xce])]);
  },
);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-protocol-servers-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=probe.test'].concat([
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
    ]),
    { cwd: dir, stdio: 'ignore' },
  );
  pem = {
    key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
    cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
  };

  const goNotFound: Route = {
    status: 404,
    headers: { 'content-type': 'text/plain' },
    body: '404 page not found\n',
  };
  const k8sForbidden: Route = {
    status: 403,
    headers: { 'content-type': 'application/json' },
    body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/\\"","reason":"Forbidden","details":{},"code":403}',
  };
  await Promise.all([
    listen(mssql, 10, 1433),
    listen(oracle, 11, 1521),
    listen(answering(isMongoBuildInfo, mongoReply), 12, 27017),
    listen(rdp, 14, 3389),
    listen(amqp, 15, 5672),
    listen(greeting(Buffer.from('RFB 003.008\n')), 16, 5900),
    // MongoDB on a port no table names: found by the fallback probes, after the others were dropped.
    listen(answering(isMongoBuildInfo, mongoReply), 17, 37017),
    listen(
      httpServer(
        {
          '/': {
            status: 200,
            headers: {
              'content-type': 'application/json; charset=UTF-8',
              'x-elastic-product': 'Elasticsearch',
            },
            body: JSON.stringify({
              name: 'node-1',
              cluster_name: 'lab',
              version: { number: '8.11.1', build_flavor: 'default' },
              tagline: 'You Know, for Search',
            }),
          },
        },
        { status: 404 },
      ),
      20,
      9200,
    ),
    listen(
      httpServer(
        {},
        {
          status: 404,
          headers: {
            'api-version': '1.43',
            server: 'Docker/24.0.7 (linux)',
            'content-type': 'application/json',
          },
          body: '{"message":"page not found"}\n',
        },
      ),
      21,
      2375,
    ),
    listen(
      httpServer(
        { '/version': { status: 200, body: '{"etcdserver":"3.5.9","etcdcluster":"3.5.0"}' } },
        goNotFound,
      ),
      22,
      2379,
    ),
    listen(
      httpServer(
        {
          '/': { status: 301, headers: { location: '/ui/' } },
          '/ui/': {
            status: 200,
            headers: { 'content-type': 'text/html' },
            body: '<!DOCTYPE html><html><head><meta name="consul-ui/config/environment" content="%7B%22CONSUL_VERSION%22%3A%221.16.1%22%7D"><title>Consul by HashiCorp</title></head></html>',
          },
        },
        { status: 404 },
      ),
      23,
      8500,
    ),
    listen(
      httpServer(
        {
          '/': { status: 302, headers: { location: '/graph' } },
          '/api/v1/status/buildinfo': {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: '{"status":"success","data":{"version":"2.48.0","revision":"x","branch":"HEAD","goVersion":"go1.21.4"}}',
          },
        },
        { status: 404 },
      ),
      24,
      9090,
    ),
    listen(
      httpServer(
        {
          '/version': {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: '{"major":"1","minor":"28","gitVersion":"v1.28.4","platform":"linux/amd64"}',
          },
        },
        k8sForbidden,
        true,
      ),
      25,
      6443,
    ),
  ]);
  if (isRoot) {
    await listen(smb, 13, 445);
    // RFC 854: the server opens with option negotiation (IAC DO TERMINAL-TYPE, IAC WILL ECHO).
    await listen(greeting(Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfb, 0x01])), 18, 23);
    await listen(
      tls.createServer(pem, (s) => s.write('220 mail.probe.test ESMTP Postfix (Debian/GNU)\r\n')),
      19,
      465,
    );
  }
});

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const identify = (octet: number, port: number) =>
  identifyService(policy, `${SUBNET}.${octet}`, port, { readTimeoutMs: 1000 });

describe('protocol probes against loopback servers speaking the protocol', () => {
  it.each([
    [10, 1433, { service: 'ms-sql-s', product: 'Microsoft SQL Server', version: '16.0.4234' }],
    [11, 1521, { service: 'oracle-tns', product: 'Oracle TNS listener', version: '19.0.0.0.0' }],
    [12, 27017, { service: 'mongodb', product: 'MongoDB', version: '7.0.2' }],
    [14, 3389, { service: 'ms-wbt-server', product: 'RDP' }],
    [15, 5672, { service: 'amqp', product: 'RabbitMQ', version: '3.12.1' }],
    [16, 5900, { service: 'vnc' }],
    [17, 37017, { service: 'mongodb', product: 'MongoDB', version: '7.0.2' }],
  ])('127.0.49.%i:%i', async (octet, port, expected) => {
    expect(await identify(octet, port)).toMatchObject({ ...expected, tls: false });
  });

  it.each([
    [20, 9200, { service: 'http', product: 'Elasticsearch REST API', version: '8.11.1' }],
    [21, 2375, { service: 'http', product: 'Docker', version: '24.0.7' }],
    [22, 2379, { service: 'http', product: 'etcd', version: '3.5.9' }],
    [23, 8500, { service: 'http', product: 'Consul', version: '1.16.1' }],
    [24, 9090, { service: 'http', product: 'Prometheus', version: '2.48.0' }],
    // Forbidden at /, its version at /version (readable without credentials).
    [25, 6443, { service: 'https', product: 'Kubernetes API', version: '1.28.4', tls: true }],
  ])('HTTP API 127.0.49.%i:%i', async (octet, port, expected) => {
    expect(await identify(octet, port)).toMatchObject(expected);
  });

  it.skipIf(!isRoot)(
    'SMB2 on 445, telnet on 23, SMTP on TLS on 465 (ports below 1024: root only)',
    async () => {
      expect(await identify(13, 445)).toMatchObject({ service: 'microsoft-ds', product: 'SMB' });
      expect(await identify(18, 23)).toMatchObject({ service: 'telnet', tls: false });
      expect(await identify(19, 465)).toMatchObject({
        service: 'ssl/smtp',
        product: 'Postfix smtpd',
        tls: true,
      });
    },
  );
});
