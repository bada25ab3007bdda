import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scan } from '../src/pipeline/scan.ts';
import { tcpWrapBinding } from '../src/ports/raw-tcp.ts';
import { labScanConfig, startTestLab } from './helpers.ts';
import { type Collected, collectScan } from './scan-events.ts';

let lab: Lab;
let result: Collected;
const contacted: string[] = [];
const datagrams: string[] = [];

beforeAll(async () => {
  lab = await startTestLab(45, true);
  // Record every TCP connect at the lowest layer (libuv handle), plus the net/tls entry points.
  const binding = tcpWrapBinding();
  if (!binding) throw new Error('tcp_wrap binding unavailable');
  const proto = binding.TCP.prototype;
  const origConnect = proto.connect;
  const origConnect6 = proto.connect6;
  vi.spyOn(proto, 'connect').mockImplementation(function (this: typeof proto, req, address, port) {
    contacted.push(`${address}:${port}`);
    return origConnect.call(this, req, address, port);
  });
  vi.spyOn(proto, 'connect6').mockImplementation(function (this: typeof proto, req, address, port) {
    contacted.push(`[${address}]:${port}`);
    return origConnect6.call(this, req, address, port);
  });
  const origSend = dgram.Socket.prototype.send;
  vi.spyOn(dgram.Socket.prototype, 'send').mockImplementation(function (
    this: dgram.Socket,
    ...args: unknown[]
  ) {
    // Record where DNS packets go: send(msg, port, address, callback), or send(msg, callback) on a
    // connected socket (the resolver's, one per server).
    if (typeof args[1] === 'number') datagrams.push(`${String(args[2])}:${String(args[1])}`);
    else {
      const to = this.remoteAddress();
      datagrams.push(`${to.address}:${to.port}`);
    }
    return (origSend as (...a: unknown[]) => void).apply(this, args);
  });
  const netConnect = vi.spyOn(net, 'connect');
  const tlsConnect = vi.spyOn(tls, 'connect');
  result = await collectScan(
    scan('acme.test', { ...labScanConfig(lab), ports: { list: [lab.portMap[80] ?? 80] } }),
  );
  for (const call of [...netConnect.mock.calls, ...tlsConnect.mock.calls]) {
    const opts = call[0] as { host?: string };
    if (opts && typeof opts === 'object' && opts.host) contacted.push(`${opts.host}:net`);
  }
  vi.restoreAllMocks();
}, 60_000);
afterAll(async () => {
  await lab?.stop();
});

describe('scope policy in the pipeline', () => {
  it('refuses DNS answers, CNAME targets and redirects outside the allowed set, and reports them', () => {
    const refused = result.summary?.refused ?? [];
    expect(refused).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ address: '169.254.169.254', host: 'metadata.acme.test', via: 'dns' }),
        expect.objectContaining({ address: '10.0.0.1', host: 'internal.acme.test', via: 'dns' }),
        expect.objectContaining({
          address: '10.0.0.1',
          host: 'intra.acme.test',
          via: 'dns:cname:internal.acme.test',
        }),
        expect.objectContaining({
          address: '169.254.169.254',
          host: 'jump.acme.test',
          via: expect.stringMatching(/^redirect:/),
        }),
      ]),
    );
    const logs = result.events.filter((e) => e.type === 'log' && e.code === 'scope_refused');
    expect(logs.length).toBe(refused.length);
    const metadata = result.assets.find((a) => a.kind === 'subdomain' && a.name === 'metadata.acme.test');
    expect(metadata).toMatchObject({ ips: [] });
    expect(
      result.assets.some((a) => a.kind === 'ip' && (a.ip === '10.0.0.1' || a.ip === '169.254.169.254')),
    ).toBe(false);
  });

  it('attempted no connection to a refused address (checked at the socket layer)', () => {
    expect(contacted.length).toBeGreaterThan(10);
    expect(contacted.some((c) => c.startsWith(`${lab.address(25)}:`))).toBe(true);
    const outside = contacted.filter((c) => !c.startsWith('127.'));
    expect(outside).toEqual([]);
    // UDP went only to the configured DNS server (and the lab's answers back to the resolver).
    expect(datagrams.length).toBeGreaterThan(100);
    expect(datagrams).toContain(`${lab.dns.host}:${lab.dns.port}`);
    expect(datagrams.filter((d) => !d.startsWith('127.0.0.1:'))).toEqual([]);
  });

  it('with the default policy, even the loopback lab is refused', async () => {
    const r = await collectScan(
      scan('acme.test', {
        ...labScanConfig(lab),
        scope: {},
        discovery: { bruteforce: false, axfr: false },
      }),
    );
    expect(r.assets.filter((a) => a.kind === 'ip')).toEqual([]);
    expect(r.summary?.refused).toEqual([
      expect.objectContaining({
        address: lab.address(10),
        host: 'acme.test',
        reason: expect.stringContaining('loopback'),
      }),
    ]);
  });
});
