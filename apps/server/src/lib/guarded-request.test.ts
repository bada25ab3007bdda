import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { ScopePolicy } from '@perimeter/engine';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { postWebhook } from '../modules/notifications/notifications-send.ts';
import { checkOwnershipProof } from '../modules/targets/targets-verify.ts';
import { loadEnv } from './config/env.ts';
import { guardedRequest, type HostResolver, RefusedAddressError } from './guarded-request.ts';

// Names used below resolve only through this table: no real DNS, no traffic off the machine.
const NAMES: Record<string, string[]> = {
  'inner.test': ['10.0.0.5'],
  'loop.test': ['127.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'nat64.test': ['64:ff9b::7f00:1'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
};
const tableResolver: HostResolver = async (name) => {
  const found = NAMES[name];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

// Every form an outside review tried, and the ranges around them: all refused by the default
// policy (private targets off) before any socket exists.
const REFUSED = [
  'http://127.0.0.1/hook',
  'http://2130706433/hook', // decimal
  'http://0x7f000001/hook', // hex
  'http://0x7f.1/hook', // mixed hex
  'http://0177.0.0.1/hook', // octal
  'http://127.1/hook', // short form
  'http://0/hook',
  'http://0.0.0.0/hook',
  'http://[::1]/hook',
  'http://[::]/hook',
  'http://[::7f00:1]/hook', // IPv4-compatible
  'http://[::ffff:127.0.0.1]/hook', // IPv4-mapped
  'http://[::ffff:7f00:1]/hook',
  'http://[64:ff9b::7f00:1]/hook', // NAT64
  'http://[2002:7f00:1::1]/hook', // 6to4
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', // Teredo
  'http://[fec0::1]/hook', // site-local
  'http://[fe80::1]/hook',
  'http://[fc00::1]/hook',
  'http://[fd00:ec2::254]/hook',
  'http://[2001:db8::1]/hook',
  'http://[ff02::1]/hook',
  'http://192.0.2.2/hook', // TEST-NET-1, the reviewer's own address
  'http://198.51.100.7/hook',
  'http://203.0.113.9/hook',
  'http://192.0.0.8/hook',
  'http://10.1.2.3/hook',
  'http://172.16.0.1/hook',
  'http://192.168.1.1/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/hook',
  'http://198.18.0.1/hook',
  'http://224.0.0.1/hook',
  'http://240.0.0.1/hook',
  'http://255.255.255.255/hook',
  'https://10.0.0.1:8443/hook',
  'http://inner.test/hook',
  'http://loop.test/hook',
  'http://mapped.test/hook',
  'http://nat64.test/hook',
  'http://mixed.test/hook', // one good address does not excuse a bad one
  'http://metadata.test/hook',
  'http://user:pass@example.test/hook',
  'ftp://example.test/hook',
  'file:///etc/passwd',
  'gopher://127.0.0.1:25/',
];

let connects: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  connects = vi.spyOn(net.Socket.prototype, 'connect');
});
afterEach(() => connects.mockClear());
afterAll(() => connects.mockRestore());

describe('user-steerable requests: every address form', () => {
  const policy = new ScopePolicy();
  it.each(REFUSED)('%s is refused before any connection', async (url) => {
    const lookups = vi.fn(tableResolver);
    await expect(
      guardedRequest(url, { method: 'POST', timeoutMs: 1000, maxBytes: 10 }, policy, lookups),
    ).rejects.toThrow(RefusedAddressError);
    expect(connects).not.toHaveBeenCalled();
    const result = await postWebhook(url, 'whsec_x', '{}', {}, { policy, resolve: lookups, timeoutMs: 1000 });
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(connects).not.toHaveBeenCalled();
  });

  it.each([
    '192.0.2.2',
    '::7f00:1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    'fec0::1',
    '10.0.0.1',
    '::ffff:127.0.0.1',
  ])('the verification file of peer %s is not fetched', async (value) => {
    const env = loadEnv({ PERIMETER_ALLOW_PRIVATE_TARGETS: 'false' });
    const proof = await checkOwnershipProof(env, { targetType: 'peer', value, verificationToken: 'tok' });
    expect(proof.verified).toBe(false);
    expect(proof.detail).toMatch(/refusing to call/);
    expect(connects).not.toHaveBeenCalled();
  });
});

describe('user-steerable requests: what is allowed', () => {
  let server: http.Server;
  let port = 0;
  const hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(`${req.socket.localAddress} ${req.method} ${req.url} host=${req.headers.host}`);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://127.0.240.2/elsewhere' }).end();
        return;
      }
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.240.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    hits.length = 0;
  });

  // Private targets allowed by the operator, and only this lab range.
  const labPolicy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.240.0/24'] });

  it('resolves once and connects to the checked address, whatever the name resolves to later', async () => {
    let calls = 0;
    // A rebinding DNS server: the allowed address first, a refused one on every later query.
    const rebinding: HostResolver = async () => (++calls === 1 ? ['127.0.240.1'] : ['127.0.0.1']);
    const res = await guardedRequest(
      `http://rebind.test:${port}/pinned`,
      { method: 'GET', timeoutMs: 5000, maxBytes: 100 },
      labPolicy,
      rebinding,
    );
    expect(res).toEqual({ statusCode: 200, body: 'ok' });
    expect(calls).toBe(1);
    expect(hits).toEqual([`127.0.240.1 GET /pinned host=rebind.test:${port}`]);
  });

  it('does not follow redirects', async () => {
    const result = await postWebhook(
      `http://127.0.240.1:${port}/redirect`,
      's',
      '{}',
      {},
      { policy: labPolicy },
    );
    expect(result).toMatchObject({ ok: false, statusCode: 302 });
    expect(result.error).toMatch(/redirects are not followed/);
    expect(hits).toHaveLength(1);
  });

  it('refuses an address outside the allowed range even with private targets on', async () => {
    const res = postWebhook('http://127.0.241.1/x', 's', '{}', {}, { policy: labPolicy });
    expect((await res).error).toMatch(/outside the allow-list/);
    expect(connects).not.toHaveBeenCalled();
  });

  it('stops reading an answer over the size limit', async () => {
    await expect(
      guardedRequest(
        `http://127.0.240.1:${port}/`,
        { method: 'GET', timeoutMs: 5000, maxBytes: 1 },
        labPolicy,
      ),
    ).rejects.toThrow(/too large/);
  });
});

describe('user-steerable requests: time', () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    // An answer that never ends: a byte every 50 ms, each silence far shorter than the timeout.
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.55.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('ends a dripping answer at the timeout of the whole request', async () => {
    const policy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.55.0/24'] });
    const started = Date.now();
    await expect(
      guardedRequest(
        `http://127.0.55.1:${port}/`,
        { method: 'GET', timeoutMs: 400, maxBytes: 1_000_000 },
        policy,
      ),
    ).rejects.toThrow(/timed out/);
    // Generous: before, only the maximum size (hours of dripping) would have ended it.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
