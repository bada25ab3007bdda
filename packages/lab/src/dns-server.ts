import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type Packet, type Question } from 'dns-packet';
import type { ZoneSpec } from './lab-definition.ts';
import { forwardDns } from './oob-services.ts';

type StoredAnswer = Answer & { name: string };

export interface LabDnsOptions {
  host: string;
  port: number;
  subnet: string;
  zones: ZoneSpec[];
  hostileRecords: boolean;
  /**
   * Lab only: queries for names under `zone` are forwarded to this nameserver (the
   * out-of-band interaction server the zone is delegated to), the answer relayed as is.
   */
  forward?: { zone: string; host: string; port: number };
  /** Extra A records (name → address), e.g. the call-back services' names. */
  extraA?: { name: string; address: string }[];
}

export interface LabDnsServer {
  port: number;
  /** Publishes extra TXT records at `name` (replacing earlier extra ones), beside the zone's own. */
  setTxt(name: string, values: string[]): void;
  /** Removes the extra TXT records published at `name`. */
  removeTxt(name: string): void;
  /** Replaces the zone's own TXT records at `name` (null: the zone's own again). */
  replaceTxt(name: string, values: string[] | null): void;
  /** Queries for `name` get no answer at all (a resolver timing out); false: answered again. */
  silence(name: string, silent: boolean): void;
  close(): Promise<void>;
}

const TTL = 60;

// dns-packet encodes the response code only from the low bits of `flags`.
const RCODES = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
type Rcode = keyof typeof RCODES;

function withRcode(flags: number, rcode: Rcode): number {
  return (flags & ~0xf) | RCODES[rcode];
}

/** Lower-case, without one trailing dot. */
function lower(name: string): string {
  const l = name.toLowerCase();
  return l.endsWith('.') ? l.slice(0, -1) : l;
}

/** Encoded answers kept at most (the wildcard probes' random names would otherwise grow it for good). */
const MAX_ENCODED_ANSWERS = 100_000;

/** Builds the record set of every zone (TXT overrides applied at query time). */
function buildRecords(opts: LabDnsOptions): Map<string, StoredAnswer[]> {
  const records = new Map<string, StoredAnswer[]>();
  const add = (a: StoredAnswer) => {
    const key = lower(a.name);
    const list = records.get(key) ?? [];
    list.push(a);
    records.set(key, list);
  };
  for (const zone of opts.zones) {
    for (const r of zone.records) {
      if ('hostile' in r && r.hostile && !opts.hostileRecords) continue;
      switch (r.type) {
        case 'A': {
          const data = 'host' in r ? `${opts.subnet}.${r.host}` : r.address;
          add({ type: 'A', name: r.name, ttl: TTL, data });
          break;
        }
        case 'CNAME':
          add({ type: 'CNAME', name: r.name, ttl: TTL, data: r.target });
          break;
        case 'MX':
          add({
            type: 'MX',
            name: r.name,
            ttl: TTL,
            data: { exchange: r.exchange, preference: r.preference },
          });
          break;
        case 'NS':
          add({ type: 'NS', name: r.name, ttl: TTL, data: r.target });
          break;
        case 'TXT':
          add({ type: 'TXT', name: r.name, ttl: TTL, data: r.values });
          break;
        case 'SOA':
          add({
            type: 'SOA',
            name: r.name,
            ttl: TTL,
            data: {
              mname: r.mname,
              rname: r.rname,
              serial: 2024010101,
              refresh: 3600,
              retry: 600,
              expire: 86400,
              minimum: 60,
            },
          });
          break;
      }
    }
  }
  return records;
}

export async function startLabDns(opts: LabDnsOptions): Promise<LabDnsServer> {
  const records = buildRecords(opts);
  for (const a of opts.extraA ?? []) {
    const key = lower(a.name);
    records.set(key, [...(records.get(key) ?? []), { type: 'A', name: a.name, ttl: TTL, data: a.address }]);
  }
  const forward = opts.forward;
  const forwardZone = forward ? lower(forward.zone) : undefined;
  const isForwarded = (q: Question | undefined): boolean =>
    !!q && !!forwardZone && (lower(q.name) === forwardZone || lower(q.name).endsWith(`.${forwardZone}`));
  const txtOverrides = new Map<string, string[]>();
  const txtReplaced = new Map<string, string[]>();
  const silenced = new Set<string>();
  const zones = opts.zones.map((z) => ({ ...z, name: lower(z.name) }));

  const zoneOf = (name: string) =>
    zones
      .filter((z) => name === z.name || name.endsWith(`.${z.name}`))
      .sort((a, b) => b.name.length - a.name.length)[0];

  const lookupName = (name: string): StoredAnswer[] | undefined => {
    const replaced = txtReplaced.get(name);
    const zoneOwn = records.get(name);
    const own = replaced
      ? [
          ...(zoneOwn ?? []).filter((a) => a.type !== 'TXT'),
          ...replaced.map((v): StoredAnswer => ({ type: 'TXT', name, ttl: TTL, data: v })),
        ]
      : zoneOwn;
    const txt = txtOverrides.get(name);
    if (own || txt) {
      // Extra TXT values are separate records beside the zone's own (SPF stays).
      const extra: StoredAnswer[] = (txt ?? []).map((v) => ({ type: 'TXT', name, ttl: TTL, data: v }));
      return [...(own ?? []), ...extra];
    }
    // Wildcard: only for names that have no records of their own.
    const zone = zoneOf(name);
    if (!zone) return undefined;
    let parent = name;
    while (parent.includes('.') && parent !== zone.name) {
      parent = parent.slice(parent.indexOf('.') + 1);
      const wild = records.get(`*.${parent}`);
      if (wild) return wild.map((a) => ({ ...a, name }));
      if (records.has(parent)) break;
    }
    return undefined;
  };

  const answer = (
    q: Question,
  ): { rcode: 'NOERROR' | 'NXDOMAIN' | 'REFUSED'; answers: Answer[]; authority: Answer[] } => {
    const name = lower(q.name);
    const zone = zoneOf(name);
    if (!zone) return { rcode: 'NXDOMAIN', answers: [], authority: [] };
    const soa = (records.get(zone.name) ?? []).filter((a) => a.type === 'SOA');
    const out: Answer[] = [];
    let current = name;
    for (let hops = 0; hops < 8; hops++) {
      const found = lookupName(current);
      if (!found) return { rcode: out.length ? 'NOERROR' : 'NXDOMAIN', answers: out, authority: soa };
      const wantsAny = (q.type as string) === 'ANY';
      const matching = found.filter((a) => wantsAny || a.type === q.type);
      if (matching.length) {
        out.push(...matching.map((a) => ({ ...a, name: current })));
        break;
      }
      const cname = found.find((a) => a.type === 'CNAME');
      if (!cname) break;
      out.push({ ...cname, name: current });
      current = lower(String((cname as { data: unknown }).data));
      if (!zoneOf(current)) break;
    }
    return { rcode: 'NOERROR', answers: out, authority: out.length ? [] : soa };
  };

  const respond = (query: Packet): Packet[] => {
    const q = query.questions?.[0];
    const base = { id: query.id, type: 'response' as const, questions: query.questions ?? [] };
    if (!q) return [{ ...base, flags: withRcode(dnsPacket.AUTHORITATIVE_ANSWER, 'FORMERR') }];
    if (q.type === 'AXFR') {
      const zone = zones.find((z) => z.name === lower(q.name));
      if (!zone?.allowAxfr) return [{ ...base, flags: withRcode(0, 'REFUSED') }];
      const all: Answer[] = [];
      for (const [name, list] of records) {
        if (name === zone.name || name.endsWith(`.${zone.name}`))
          all.push(...list.filter((a) => a.type !== 'SOA'));
      }
      const soa = (records.get(zone.name) ?? []).filter((a) => a.type === 'SOA');
      return [{ ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [...soa, ...all, ...soa] }];
    }
    const { rcode, answers, authority } = answer(q);
    return [
      {
        ...base,
        flags: withRcode(
          dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED),
          rcode,
        ),
        answers,
        authorities: authority,
      },
    ];
  };

  /**
   * A query's answer depends only on its one question, its recursion-desired flag and the records
   * (the TXT changes clear what is kept): encoded once, then copied with each query's id. Scans
   * brute-force the same 2,809 names, and encoding was most of the lab's cost per answer on the
   * cores it shares with the scanners it answers.
   */
  const encodedAnswers = new Map<string, Buffer>();
  const encodeAnswer = (query: Packet): Buffer => {
    const q = query.questions?.length === 1 ? query.questions[0] : undefined;
    if (!q) return dnsPacket.encode(respond(query)[0] as Packet);
    const key = `${(query.flags ?? 0) & dnsPacket.RECURSION_DESIRED}|${q.class}|${q.type}|${q.name}`;
    let encoded = encodedAnswers.get(key);
    if (!encoded) {
      encoded = dnsPacket.encode(respond({ ...query, id: 0 })[0] as Packet);
      if (encodedAnswers.size >= MAX_ENCODED_ANSWERS) encodedAnswers.clear();
      encodedAnswers.set(key, encoded);
    }
    const copy = Buffer.from(encoded);
    copy.writeUInt16BE(query.id ?? 0, 0);
    return copy;
  };

  const createUdp = (): dgram.Socket => {
    // Sized for bursts as a production DNS server is: scans brute-force names 200 at a time each,
    // and at the default 208 kB the lab dropped 18,475 queries during one scale-out bench (each a
    // 2 s timeout in the scanner), which measured the lab's buffer, not the scanner.
    const udp = dgram.createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
    udp.on('message', (msg, rinfo) => {
      let query: Packet;
      try {
        query = dnsPacket.decode(msg);
      } catch {
        return;
      }
      const q = query.questions?.[0];
      if (q?.type === 'AXFR') return; // AXFR is TCP only
      if (q && silenced.has(lower(q.name))) return;
      if (forward && isForwarded(q)) {
        void forwardDns(msg, forward).then((answer) => {
          if (answer) udp.send(answer, rinfo.port, rinfo.address);
        });
        return;
      }
      // AXFR (the one query with several messages) was turned away above.
      udp.send(encodeAnswer(query), rinfo.port, rinfo.address);
    });
    return udp;
  };

  const tcp = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < len + 2) break;
        const msg = buf.subarray(0, len + 2);
        buf = buf.subarray(len + 2);
        try {
          const query = dnsPacket.streamDecode(msg);
          const q = query.questions?.[0];
          if (q && silenced.has(lower(q.name))) continue;
          if (forward && isForwarded(q)) {
            void forwardDns(msg.subarray(2), forward).then((answer) => {
              if (!answer || socket.destroyed) return;
              const len = Buffer.alloc(2);
              len.writeUInt16BE(answer.length);
              socket.write(Buffer.concat([len, answer]));
            });
            continue;
          }
          for (const p of respond(query)) socket.write(dnsPacket.streamEncode(p));
        } catch {
          socket.destroy();
        }
      }
    });
  });

  const bindUdp = (udp: dgram.Socket, port: number) =>
    new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, opts.host, () => {
        udp.off('error', reject);
        resolve();
      });
    });
  const listenTcp = (port: number) =>
    new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, opts.host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });

  // UDP and TCP on the same port. With port 0, a free UDP port may be taken for TCP: retry.
  let udp = createUdp();
  let port = opts.port;
  for (let attempt = 0; ; attempt++) {
    await bindUdp(udp, opts.port);
    port = udp.address().port;
    try {
      await listenTcp(port);
      break;
    } catch (err) {
      await new Promise<void>((r) => udp.close(() => r()));
      if (opts.port !== 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
      udp = createUdp();
    }
  }

  return {
    port,
    setTxt(name, values) {
      encodedAnswers.clear();
      txtOverrides.set(lower(name), values);
    },
    removeTxt(name) {
      encodedAnswers.clear();
      txtOverrides.delete(lower(name));
    },
    replaceTxt(name, values) {
      encodedAnswers.clear();
      if (values) txtReplaced.set(lower(name), values);
      else txtReplaced.delete(lower(name));
    },
    silence(name, silent) {
      if (silent) silenced.add(lower(name));
      else silenced.delete(lower(name));
    },
    async close() {
      await Promise.all([
        new Promise<void>((r) => udp.close(() => r())),
        new Promise<void>((r) => tcp.close(() => r())),
      ]);
    },
  };
}
