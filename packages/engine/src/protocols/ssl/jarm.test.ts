import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers.ts';
import { compileOrThrow, scanAll, tpl } from '../../../test/template-helpers.ts';
import { clientHello, jarmFingerprint, jarmHash, mungOrder, readServerHello } from './jarm.ts';

describe('JARM building blocks (salesforce/jarm semantics)', () => {
  it.each([
    ['FORWARD', [1, 2, 3, 4, 5]],
    ['REVERSE', [5, 4, 3, 2, 1]],
    ['BOTTOM_HALF', [4, 5]],
    ['TOP_HALF', [3, 2, 1]],
    ['MIDDLE_OUT', [3, 4, 2, 5, 1]],
  ] as const)('%s of an odd list', (order, expected) => {
    expect(mungOrder([1, 2, 3, 4, 5], order)).toEqual(expected);
  });

  it('orders an even list middle-out second half first', () => {
    expect(mungOrder([1, 2, 3, 4], 'MIDDLE_OUT')).toEqual([3, 2, 4, 1]);
    expect(mungOrder([1, 2, 3, 4], 'TOP_HALF')).toEqual([2, 1]);
  });

  it('hashes ten silent probes to 62 zeros and numbers ciphers and versions', () => {
    expect(jarmHash(Array(10).fill('|||'))).toBe('0'.repeat(62));
    const h = jarmHash(['c02f|0303|h2|ff01-0000', ...Array(9).fill('|||')]);
    expect(h.slice(0, 3)).toBe('29d'); // c02f is the 41st cipher (0x29), TLS 1.2 → 'd'
    expect(h.slice(3, 30)).toBe('000'.repeat(9));
    expect(h).toHaveLength(62);
  });

  it('reads cipher, version, ALPN and extension types from a ServerHello', () => {
    const ext = Buffer.from('ff010001000010000500030268320017 0000'.replace(/ /g, ''), 'hex');
    const hello = Buffer.concat([
      Buffer.from('0303', 'hex'),
      Buffer.alloc(32, 1),
      Buffer.from([0]),
      Buffer.from('c02f00', 'hex'),
      Buffer.from([ext.length >> 8, ext.length & 0xff]),
      ext,
    ]);
    const handshake = Buffer.concat([Buffer.from([2, 0, hello.length >> 8, hello.length & 0xff]), hello]);
    const record = Buffer.concat([
      Buffer.from('160303', 'hex'),
      Buffer.from([handshake.length >> 8, handshake.length & 0xff]),
      handshake,
    ]);
    expect(readServerHello(record)).toBe('c02f|0303|h2|ff01-0010-0017');
    expect(readServerHello(Buffer.from('15030300020228', 'hex'))).toBe('|||');
    expect(readServerHello(undefined)).toBe('|||');
  });

  it('writes ClientHello records whose lengths add up', () => {
    const hello = clientHello(
      {
        version: 'TLS_1.3',
        ciphers: 'ALL',
        order: 'MIDDLE_OUT',
        grease: true,
        rareAlpn: false,
        support: '1.3_SUPPORT',
        extensionOrder: 'REVERSE',
      },
      'example.test',
    );
    expect(hello.subarray(0, 3).toString('hex')).toBe('160301');
    expect(hello.readUInt16BE(3)).toBe(hello.length - 5);
    expect(hello[5]).toBe(1);
    expect(hello.includes(Buffer.from('example.test'))).toBe(true);
  });
});

describe('JARM against loopback services (127.0.200.2)', () => {
  let tlsServer: tls.Server;
  let plain: net.Server;
  let tlsPort = 0;
  let plainPort = 0;
  const sockets = new Set<net.Socket>();
  const track = (server: net.Server) =>
    server.on('connection', (s: net.Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
  beforeAll(async () => {
    const certs = path.join(REPO_ROOT, 'packages/lab/certs');
    tlsServer = tls.createServer(
      {
        cert: readFileSync(path.join(certs, 'expired-selfsigned.crt')),
        key: readFileSync(path.join(certs, 'expired-selfsigned.key')),
      },
      (s) => {
        s.on('error', () => {});
        s.end();
      },
    );
    tlsServer.on('tlsClientError', () => {});
    track(tlsServer);
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.200.2', resolve));
    tlsPort = (tlsServer.address() as AddressInfo).port;
    plain = net.createServer((s) => {
      s.on('error', () => {});
      s.end();
    });
    track(plain);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.200.2', resolve));
    plainPort = (plain.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => tlsServer.close(r));
    await new Promise((r) => plain.close(r));
  });

  it('fingerprints a TLS service the same way twice and a non-TLS service as zeros', async () => {
    const a = await jarmFingerprint('127.0.200.2', tlsPort, 'localhost', { timeoutMs: 10_000 });
    const b = await jarmFingerprint('127.0.200.2', tlsPort, 'localhost', { timeoutMs: 10_000 });
    expect(a).toMatch(/^[0-9a-f]{62}$/);
    expect(a).not.toBe('0'.repeat(62));
    expect(b).toBe(a);
    expect(await jarmFingerprint('127.0.200.2', plainPort, 'localhost', { timeoutMs: 10_000 })).toBe(
      '0'.repeat(62),
    );
  });

  it('fires a jarm template on the service with that fingerprint and not on another', async () => {
    const hash = await jarmFingerprint('127.0.200.2', tlsPort, 'localhost', { timeoutMs: 10_000 });
    const template = (id: string, h: string) =>
      compileOrThrow(
        tpl(
          id,
          `tcp:\n  - inputs:\n      - data: 2E\n        type: hex\n    host:\n      - "{{Hostname}}"\n    matchers:\n      - type: dsl\n        dsl:\n          - "jarm(Hostname) == '${h}'"\n`,
        ),
      );
    const { findings } = await scanAll(
      [template('jarm-match', hash), template('jarm-other', '1'.repeat(62))],
      [`127.0.200.2:${tlsPort}`, `127.0.200.2:${plainPort}`],
      { timeoutMs: 10_000 },
    );
    expect(findings.map((f) => `${f.templateId} ${f.matchedAt}`)).toEqual([
      `jarm-match 127.0.200.2:${tlsPort}`,
    ]);
  }, 60_000);
});
