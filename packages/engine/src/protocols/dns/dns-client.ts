import { randomInt } from 'node:crypto';
import net from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type RecordType } from 'dns-packet';
import { type DnsQueryOptions, DnsUdpSocket } from '../../dns/dns-udp.ts';
import type { DnsServer } from '../../templates/run-types.ts';

export interface DnsQueryResult {
  server: DnsServer;
  packet: DecodedPacket & { rcode?: string };
  /** AXFR over TCP may return several messages. */
  messages: (DecodedPacket & { rcode?: string })[];
}

/**
 * One query on the resolver's connected UDP socket (dns-udp.ts): only the server's datagrams,
 * and only an answer to the question asked, can settle it; a refusing server fails it at once.
 * A socket per query: each query gets a port of its own, as unpredictable as its id.
 */
async function queryUdp(
  server: DnsServer,
  name: string,
  type: RecordType,
  timeoutMs: number,
  options: DnsQueryOptions,
): Promise<DecodedPacket> {
  const udp = new DnsUdpSocket(server, timeoutMs);
  try {
    return await udp.query(name, type, options);
  } finally {
    udp.close();
  }
}

function queryTcp(
  server: DnsServer,
  packet: dnsPacket.Packet,
  timeoutMs: number,
  multi: boolean,
  signal?: AbortSignal,
): Promise<DecodedPacket[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: server.host, port: server.port });
    let buf = Buffer.alloc(0);
    const messages: DecodedPacket[] = [];
    let soaCount = 0;
    const finish = (err: Error | null) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err && messages.length === 0) reject(err);
      else resolve(messages);
    };
    const onAbort = () => finish(new Error('aborted'));
    const timer = setTimeout(() => finish(new Error(`dns tcp timeout after ${timeoutMs} ms`)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish(null));
    socket.on('connect', () => socket.write(dnsPacket.streamEncode(packet)));
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < len + 2) break;
        const msg = dnsPacket.decode(buf.subarray(2, len + 2));
        buf = buf.subarray(len + 2);
        messages.push(msg);
        soaCount += (msg.answers ?? []).filter((a) => a.type === 'SOA').length;
        const rcode = (msg as { rcode?: string }).rcode;
        if (!multi || soaCount >= 2 || (rcode && rcode !== 'NOERROR') || (msg.answers ?? []).length === 0) {
          finish(null);
          return;
        }
      }
    });
  });
}

/** One DNS query with retries; AXFR goes over TCP, truncated UDP answers are retried over TCP. */
export async function queryDns(
  servers: DnsServer[],
  name: string,
  type: RecordType,
  options: { timeoutMs?: number; retries?: number; recursion?: boolean; signal?: AbortSignal } = {},
): Promise<DnsQueryResult> {
  const timeoutMs = options.timeoutMs ?? 3000;
  const retries = Math.max(1, options.retries ?? 2);
  let lastError: Error = new Error('no DNS server configured');
  for (let attempt = 0; attempt < retries; attempt++) {
    for (const server of servers) {
      const packet: dnsPacket.Packet = {
        type: 'query',
        id: randomInt(0x10000),
        flags: options.recursion === false ? 0 : dnsPacket.RECURSION_DESIRED,
        questions: [{ type, name, class: 'IN' }],
      };
      try {
        if (type === 'AXFR') {
          const messages = await queryTcp(server, packet, timeoutMs, true, options.signal);
          const first = messages[0];
          if (!first) throw new Error('empty AXFR answer');
          const answers: Answer[] = messages.flatMap((m) => m.answers ?? []);
          return { server, packet: { ...first, answers }, messages };
        }
        let res = await queryUdp(server, name, type, timeoutMs, options);
        if (res.flag_tc) {
          const tcp = await queryTcp(server, packet, timeoutMs, false, options.signal);
          if (tcp[0]) res = tcp[0];
        }
        return { server, packet: res, messages: [res] };
      } catch (err) {
        lastError = err as Error;
        if (options.signal?.aborted) throw lastError;
      }
    }
  }
  throw lastError;
}

function fqdn(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

function quoteTxt(data: unknown): string {
  const parts = Array.isArray(data) ? data : [data];
  return parts.map((p) => `"${Buffer.isBuffer(p) ? p.toString('utf8') : String(p)}"`).join(' ');
}

/** A record in the zone-file form miekg/dns prints (what nuclei's `answer` part holds). */
export function formatRecord(a: Answer): string {
  const head = `${fqdn(a.name)}\t${'ttl' in a ? (a.ttl ?? 0) : 0}\tIN\t${a.type}\t`;
  const data = (a as { data?: unknown }).data;
  switch (a.type) {
    case 'A':
    case 'AAAA':
      return head + String(data);
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return head + fqdn(String(data));
    case 'MX': {
      const d = data as { preference?: number; exchange: string };
      return `${head}${d.preference ?? 0} ${fqdn(d.exchange)}`;
    }
    case 'TXT':
      return head + quoteTxt(data);
    case 'SOA': {
      const d = data as {
        mname: string;
        rname: string;
        serial?: number;
        refresh?: number;
        retry?: number;
        expire?: number;
        minimum?: number;
      };
      return `${head}${fqdn(d.mname)} ${fqdn(d.rname)} ${d.serial ?? 0} ${d.refresh ?? 0} ${d.retry ?? 0} ${d.expire ?? 0} ${d.minimum ?? 0}`;
    }
    case 'CAA': {
      const d = data as { flags?: number; tag: string; value: string };
      return `${head}${d.flags ?? 0} ${d.tag} "${d.value}"`;
    }
    case 'SRV': {
      const d = data as { priority?: number; weight?: number; port?: number; target: string };
      return `${head}${d.priority ?? 0} ${d.weight ?? 0} ${d.port ?? 0} ${fqdn(d.target)}`;
    }
    default:
      return head + (Buffer.isBuffer(data) ? data.toString('hex') : JSON.stringify(data));
  }
}

export const RCODES: Record<string, number> = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
};
