import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type Packet } from 'dns-packet';
import { idsOfName, inZone, plainAddress } from './oob-fns.ts';
import { closer, type Listener, listening } from './oob-net.ts';
import type { Recorder } from './oob-recorder.ts';

export interface DnsZone {
  /** The delegated zone, lowercase, no trailing dot. */
  domain: string;
  ipv4: string;
  ipv6?: string;
}

const TTL = 60;
const REFUSED = 5;
const FORMERR = 1;
const MAX_TCP_MESSAGE = 4096;

/**
 * The authoritative answer for one query (docs/oob.md): A/AAAA of any name under the zone is the
 * server's own address, NS/SOA describe the zone, other types get an empty answer with the SOA.
 * A name outside the zone is REFUSED: never recursion (RA stays off), so this is no open resolver.
 */
export function answerQuery(
  query: DecodedPacket,
  zone: DnsZone,
): { response: Buffer; name?: string; qType?: string } {
  const question = query.questions?.[0];
  const rd = (query.flags ?? 0) & dnsPacket.RECURSION_DESIRED;
  const reply = (rcode: number, extra: Partial<Packet> = {}): Buffer =>
    dnsPacket.encode({
      id: query.id ?? 0,
      type: 'response',
      flags: rd | rcode | (rcode === REFUSED || rcode === FORMERR ? 0 : dnsPacket.AUTHORITATIVE_ANSWER),
      questions: question ? [question] : [],
      ...extra,
    });
  if (!question || (query.questions?.length ?? 0) !== 1 || query.type !== 'query')
    return { response: reply(FORMERR) };
  const name = question.name.toLowerCase().replace(/\.$/, '');
  if (!inZone(name, zone.domain) || (question.class && question.class !== 'IN'))
    return { response: reply(REFUSED), name, qType: question.type };
  const ns = `ns1.${zone.domain}`;
  const soa: Answer = {
    type: 'SOA',
    name: zone.domain,
    ttl: TTL,
    data: {
      mname: ns,
      rname: `hostmaster.${zone.domain}`,
      serial: 1,
      refresh: 3600,
      retry: 600,
      expire: 86_400,
      minimum: TTL,
    },
  };
  const answers: Answer[] = [];
  const at = (type: 'A' | 'AAAA', data: string): Answer => ({ type, name: question.name, ttl: TTL, data });
  if (question.type === 'A') answers.push(at('A', zone.ipv4));
  else if (question.type === 'AAAA' && zone.ipv6) answers.push(at('AAAA', zone.ipv6));
  else if (question.type === 'NS' && name === zone.domain)
    answers.push({ type: 'NS', name: question.name, ttl: TTL, data: ns });
  else if (question.type === 'SOA' && name === zone.domain) answers.push({ ...soa, name: question.name });
  return {
    response: reply(0, answers.length ? { answers } : { authorities: [soa] }),
    name,
    qType: question.type,
  };
}

function describe(query: DecodedPacket): string {
  const q = query.questions?.[0];
  return q ? `;; QUESTION\n${q.name}. IN ${q.type}` : ';; no question';
}

function describeResponse(buf: Buffer): string {
  const r = dnsPacket.decode(buf) as DecodedPacket & { rcode?: string };
  const lines = [`;; ${r.rcode ?? 'NOERROR'}`];
  for (const a of [...(r.answers ?? []), ...(r.authorities ?? [])])
    if (a.type !== 'OPT') lines.push(`${a.name}. ${a.ttl ?? TTL} IN ${a.type} ${JSON.stringify(a.data)}`);
  return lines.join('\n');
}

/** Answers one message, and records it (after answering) when a label carries a live id. */
function handle(msg: Buffer, remote: string, zone: DnsZone, recorder: Recorder): Buffer | null {
  let query: DecodedPacket;
  let answered: ReturnType<typeof answerQuery>;
  try {
    query = dnsPacket.decode(msg);
    answered = answerQuery(query, zone);
  } catch {
    return null; // not DNS, or nothing dns-packet can encode back: no answer
  }
  const { response, name, qType } = answered;
  if (name && inZone(name, zone.domain)) {
    const ids = idsOfName(name, zone.domain);
    if (ids.length)
      void recorder.record({
        ids,
        protocol: 'dns',
        remoteAddress: plainAddress(remote),
        rawRequest: describe(query),
        rawResponse: describeResponse(response),
        ...(qType ? { qType } : {}),
      });
  }
  return response;
}

/** The DNS listener on UDP and TCP (the same port). */
export async function startDns(
  host: string,
  port: number,
  zone: DnsZone,
  recorder: Recorder,
): Promise<Listener[]> {
  const udp = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  udp.on('message', (msg, rinfo) => {
    const out = handle(msg, rinfo.address, zone, recorder);
    // A UDP answer never grows beyond the classic 512 bytes here: one question, one record.
    if (out) udp.send(out, rinfo.port, rinfo.address);
  });
  udp.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, host, () => {
      udp.off('error', reject);
      resolve();
    });
  });
  const udpAddress = udp.address();
  const tcp = net.createServer((socket) => {
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length > MAX_TCP_MESSAGE + 2) return socket.destroy();
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < 2 + len) break;
        const msg = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        const out = handle(msg, socket.remoteAddress ?? '', zone, recorder);
        if (!out || socket.destroyed) continue;
        const head = Buffer.alloc(2);
        head.writeUInt16BE(out.length);
        socket.write(Buffer.concat([head, out]));
      }
    });
  });
  const closeTcp = closer(tcp);
  const tcpAddress = await listening(tcp, udpAddress.port, host);
  return [
    {
      protocol: 'dns/udp',
      address: udpAddress,
      close: () => new Promise<void>((resolve) => udp.close(() => resolve())),
    },
    {
      protocol: 'dns/tcp',
      address: tcpAddress,
      close: closeTcp,
    },
  ];
}
