import { getServers } from 'node:dns';
import net from 'node:net';
import dnsPacket, { type Answer, type Packet, type RecordType } from 'dns-packet';
import { AbortedError } from '../lib/async.ts';
import { type DnsAnswers, DnsError, type DnsServer, DnsUdpSocket, lower } from './dns-udp.ts';

export { DnsError, type DnsServer } from './dns-udp.ts';

export interface ResolverOptions {
  /** `host:port` strings or objects; the system's resolvers (port 53) when empty. */
  servers?: (string | DnsServer)[];
  timeoutMs?: number;
  retries?: number;
}

/** An answer's rcode and answer records (its authority and additional records are not read). */
export interface DnsResponse {
  rcode: string;
  answers: Answer[];
}

export interface HostResolution {
  name: string;
  /** A and AAAA of the end of the CNAME chain. */
  addresses: string[];
  /** The CNAME chain, in order (empty when the name has its own records). */
  cnames: string[];
  /** NXDOMAIN at the end of a CNAME chain: a dangling CNAME. */
  dangling: boolean;
  exists: boolean;
}

export function parseServer(s: string | DnsServer): DnsServer {
  if (typeof s !== 'string') return s;
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(s.trim());
  // A bare IPv6 address has colons but no port.
  if (net.isIPv6(s.trim())) return { host: s.trim(), port: 53 };
  if (!m?.[1]) throw new DnsError(`bad DNS server ${s}`, 'EBADSERVER');
  return { host: m[1], port: m[2] ? Number(m[2]) : 53 };
}

export function rcodeOf(p: Packet): string {
  return (p as Packet & { rcode?: string }).rcode ?? 'NOERROR';
}

export function dataOf(a: Answer): unknown {
  return (a as { data?: unknown }).data;
}

/**
 * A stub resolver speaking DNS directly (dns-packet) to configured servers and ports: one
 * connected UDP socket per server multiplexed by query id (dns-udp.ts), TCP for truncated
 * answers and AXFR.
 */
export class DnsResolver {
  readonly servers: DnsServer[];
  private readonly timeoutMs: number;
  private readonly retries: number;
  /** By index in `servers`, opened on the server's first query. */
  private udp: (DnsUdpSocket | undefined)[] = [];
  private nextServer = 0;
  private cache = new Map<string, Promise<DnsResponse>>();

  constructor(options: ResolverOptions = {}) {
    const servers = options.servers?.length ? options.servers : getServers();
    this.servers = servers.map(parseServer);
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.retries = options.retries ?? 2;
  }

  /** One query over TCP; for AXFR, reads messages until the closing SOA. */
  tcpQuery(server: DnsServer, name: string, type: RecordType, signal?: AbortSignal): Promise<Packet[]> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: server.host, port: server.port });
      const packets: Packet[] = [];
      let buf = Buffer.alloc(0);
      let soaSeen = 0;
      const finish = (err?: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        socket.destroy();
        if (err) reject(err);
        else resolve(packets);
      };
      const onAbort = () => finish(new AbortedError());
      const timer = setTimeout(
        () => finish(new DnsError(`DNS TCP timeout for ${name}`, 'ETIMEOUT')),
        this.timeoutMs * 2,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.on('error', (e) => finish(e));
      socket.on('close', () => finish());
      socket.on('connect', () => {
        socket.write(
          dnsPacket.streamEncode({
            id: Math.floor(Math.random() * 65535) + 1,
            type: 'query',
            flags: 0,
            questions: [{ name, type, class: 'IN' }],
          }),
        );
      });
      socket.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 2) {
          const len = buf.readUInt16BE(0);
          if (buf.length < len + 2) return;
          const packet = dnsPacket.streamDecode(buf.subarray(0, len + 2));
          buf = buf.subarray(len + 2);
          packets.push(packet);
          if (type !== 'AXFR' || rcodeOf(packet) !== 'NOERROR') return finish();
          soaSeen += (packet.answers ?? []).filter((a) => a.type === 'SOA').length;
          if (soaSeen >= 2) return finish();
        }
      });
    });
  }

  /**
   * Any record type; retries on timeouts across servers; falls back to TCP when truncated. Not
   * async: the cached promise itself is returned (an async function would wrap it in another).
   */
  query(name: string, type: RecordType, signal?: AbortSignal): Promise<DnsResponse> {
    const asked = lower(name);
    const key = `${asked}|${type}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const p = this.queryUncached(asked, type, signal);
    this.cache.set(key, p);
    p.catch(() => this.cache.delete(key));
    return p;
  }

  private async queryUncached(name: string, type: RecordType, signal?: AbortSignal): Promise<DnsResponse> {
    // Made only when every attempt failed: an Error's stack costs more than the query itself.
    let lastError: Error | undefined;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (signal?.aborted) throw new AbortedError();
      const index = this.nextServer++ % this.servers.length;
      const server = this.servers[index];
      if (!server) break;
      const udp = this.udp[index] ?? new DnsUdpSocket(server, this.timeoutMs);
      this.udp[index] = udp;
      try {
        let answer: DnsAnswers = await udp.answers(name, type);
        if (answer.flags & dnsPacket.TRUNCATED_RESPONSE) {
          const whole = (await this.tcpQuery(server, name, type, signal))[0];
          if (whole)
            answer = { flags: whole.flags ?? 0, rcode: rcodeOf(whole), answers: whole.answers ?? [] };
        }
        if (answer.rcode === 'SERVFAIL' && attempt < this.retries) continue;
        return { rcode: answer.rcode, answers: answer.answers };
      } catch (e) {
        lastError = e as Error;
      }
    }
    throw lastError ?? new DnsError('no DNS server', 'ENOSERVER');
  }

  /**
   * A + AAAA following the CNAME chain (up to 8 hops), noting dangling CNAMEs. A brute force calls
   * it thousands of times with one type and mostly gets nothing back: that path allocates little.
   */
  async resolveHost(
    name: string,
    signal?: AbortSignal,
    types: RecordType[] = ['A', 'AAAA'],
  ): Promise<HostResolution> {
    const asked = lower(name);
    const cnames: string[] = [];
    let current = asked;
    let seen: Set<string> | undefined;
    for (let hop = 0; hop < 8; hop++) {
      const responses =
        types.length === 1
          ? [await this.query(current, types[0] as RecordType, signal)]
          : await Promise.all(types.map((t) => this.query(current, t, signal)));
      const answers =
        responses.length === 1 ? (responses[0] as DnsResponse).answers : responses.flatMap((r) => r.answers);
      // Walk the chain inside the answers.
      let walk = current;
      for (let i = 0; i < 8 && answers.length; i++) {
        const c = answers.find((a) => a.type === 'CNAME' && lower(a.name) === walk);
        if (!c) break;
        walk = lower(String(dataOf(c)));
        seen ??= new Set([asked]);
        if (seen.has(walk)) break;
        seen.add(walk);
        cnames.push(walk);
      }
      const addresses = answers.length
        ? answers
            .filter((a) => (a.type === 'A' || a.type === 'AAAA') && lower(a.name) === walk)
            .map((a) => String(dataOf(a)))
        : [];
      if (addresses.length)
        return {
          name: asked,
          addresses: [...new Set(addresses)],
          cnames,
          dangling: false,
          exists: true,
        };
      if (walk === current) {
        const nx = responses.every((r) => r.rcode === 'NXDOMAIN');
        return {
          name: asked,
          addresses: [],
          cnames,
          dangling: nx && cnames.length > 0,
          exists: cnames.length > 0,
        };
      }
      current = walk; // The server stopped at a CNAME leaving its zone: ask for the target.
    }
    return { name: asked, addresses: [], cnames, dangling: false, exists: cnames.length > 0 };
  }

  /** Zone transfer over TCP from one server; returns every record, or throws when refused. */
  async axfr(zone: string, server: DnsServer, signal?: AbortSignal): Promise<Answer[]> {
    const packets = await this.tcpQuery(server, zone, 'AXFR', signal);
    const first = packets[0];
    if (!first) throw new DnsError('no AXFR answer', 'ENODATA');
    if (rcodeOf(first) !== 'NOERROR') throw new DnsError(`AXFR refused (${rcodeOf(first)})`, rcodeOf(first));
    const answers = packets.flatMap((p) => p.answers ?? []);
    if (!answers.some((a) => a.type === 'SOA')) throw new DnsError('AXFR answer without SOA', 'EBADAXFR');
    return answers;
  }

  close(): void {
    for (const u of this.udp) u?.close();
    this.udp = [];
  }
}

export function txtValues(answers: Answer[]): string[] {
  return answers
    .filter((a) => a.type === 'TXT')
    .map((a) => {
      const data = (a as { data: unknown }).data;
      const parts = Array.isArray(data) ? data : [data];
      return parts.map((p) => (Buffer.isBuffer(p) ? p.toString('utf8') : String(p))).join('');
    });
}
