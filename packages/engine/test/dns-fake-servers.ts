import dgram from 'node:dgram';
import dnsPacket, { type Packet } from 'dns-packet';
import type { DnsServer } from '../src/dns/dns-udp.ts';

/** Record data only, never contacted. */
export const REAL = '192.0.2.1';
export const FORGED = '192.0.2.66';

export type Reply = (query: Packet, send: (p: Packet) => void, client: dgram.RemoteInfo) => void;

export interface FakeServer extends DnsServer {
  /** Names asked, in order, and the client ports they came from. */
  asked: string[];
  clientPorts: Set<number>;
  /** The queries as received. */
  queries: Packet[];
  close(): void;
}

export function bindUdp(host: string, port = 0): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    s.once('error', reject);
    s.bind(port, host, () => {
      s.off('error', reject);
      resolve(s);
    });
  });
}

/** A response to `query` repeating its question, with one A record of `address`. */
export function answer(query: Packet, address: string, extra: Partial<Packet> = {}): Packet {
  const q = query.questions?.[0];
  return {
    id: query.id,
    type: 'response',
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
    questions: query.questions ?? [],
    answers: q ? [{ name: q.name, type: 'A', class: 'IN', ttl: 60, data: address }] : [],
    ...extra,
  };
}

/** `host:port` answering with `reply` (by default: REAL for every name); closed with `toClose`. */
export async function fakeServer(
  toClose: { close(): void }[],
  host: string,
  reply: Reply = (q, send) => send(answer(q, REAL)),
): Promise<FakeServer> {
  const socket = await bindUdp(host);
  let closed = false;
  const server: FakeServer = {
    host,
    port: socket.address().port,
    asked: [],
    clientPorts: new Set(),
    queries: [],
    close: () => {
      closed = true;
      socket.close();
    },
  };
  socket.on('message', (msg, rinfo) => {
    const query = dnsPacket.decode(msg);
    server.queries.push(query);
    server.asked.push(query.questions?.[0]?.name ?? '');
    server.clientPorts.add(rinfo.port);
    // A delayed answer may come after the test ended (when the client took another one).
    const send = (p: Packet) => closed || socket.send(dnsPacket.encode(p), rinfo.port, rinfo.address);
    reply(query, send, rinfo);
  });
  toClose.push(server);
  return server;
}

/** A port on `host` where nothing listens: datagrams to it draw an ICMP port unreachable. */
export async function deadServer(host: string): Promise<DnsServer> {
  const s = await bindUdp(host);
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return { host, port };
}
