import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { scanTcpPorts } from '../src/ports/connect-scanner.ts';
import { identifyService } from '../src/ports/service-probes.ts';
import { isSelfConnectedSocket } from '../src/scope/guarded-net.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';

// TCP self-connects: from a local address to itself on an ephemeral port, the kernel may choose
// the destination port as the source port and "connect" with nothing listening. The scanner
// binds its source to the scanned address here so that the kernel can do so (as it does when
// the machine scans one of its own addresses); about one port per pass of the ephemeral range.
const policy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.0.0/8'] });
const EPHEMERAL = Array.from({ length: 60999 - 32768 + 1 }, (_, i) => 32768 + i);

async function collect(it: AsyncIterable<number>): Promise<number[]> {
  const out: number[] = [];
  for await (const p of it) out.push(p);
  return out;
}

describe('TCP self-connects', () => {
  it('a socket bound to the port it connects to connects to itself, and is told apart', async () => {
    const address = '127.0.225.2';
    const port = 45123;
    const socket = net.connect({ host: address, port, localAddress: address, localPort: port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    expect(isSelfConnectedSocket(socket)).toBe(true);
    socket.destroy();
  });

  it('the connect scan reports no open port on an address where nothing listens', async () => {
    const seen: number[] = [];
    // Up to 12 passes, each from another address of 127.0.225.0/24, until a self-connect occurs.
    for (let pass = 0; pass < 12 && !seen.length; pass++) {
      const address = `127.0.225.${10 + pass}`;
      const open = await collect(
        scanTcpPorts(policy, address, EPHEMERAL, {
          concurrency: 400,
          timeoutMs: 3000,
          sourceAddress: address,
          onSelfConnect: (p) => seen.push(p),
        }),
      );
      expect(open).toEqual([]);
    }
    expect(seen.length).toBeGreaterThan(0);
  }, 120_000);

  it('the slow path (per-port bookkeeping) discards them too', async () => {
    const seen: number[] = [];
    for (let pass = 0; pass < 12 && !seen.length; pass++) {
      const address = `127.0.225.${30 + pass}`;
      const open = await collect(
        scanTcpPorts(policy, address, EPHEMERAL, {
          concurrency: 400,
          timeoutMs: 3000,
          sourceAddress: address,
          onSettled: () => {},
          onSelfConnect: (p) => seen.push(p),
        }),
      );
      expect(open).toEqual([]);
    }
    expect(seen.length).toBeGreaterThan(0);
  }, 120_000);

  it('a port reported open that no probe can reach again is dropped', async () => {
    expect(await identifyService(policy, '127.0.225.3', 45999, { readTimeoutMs: 300 })).toBeNull();
  });
});
