import dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerQuery } from './oob-dns.ts';
import { idsOfName, idsOfText, inZone, newCorrelationId, printable, truncate } from './oob-fns.ts';
import { parseMessage, readTlv, successResponse } from './oob-ldap.ts';

const ZONE = 'oob.example.com';
const ID = 'abcdefghij0123456789klmnopqrstuvw';

describe('ids in names and texts', () => {
  it('takes the labels left of the zone, nearest first, cut to the id length', () => {
    expect(idsOfName(`${ID}.${ZONE}`, ZONE)).toEqual([ID]);
    expect(idsOfName(`x-1.${ID.toUpperCase()}.${ZONE}.`, ZONE)).toEqual([ID]);
    expect(idsOfName(`${ID}zz.${ZONE}`, ZONE)).toEqual([ID]);
    expect(idsOfName(`${ID}.other.com`, ZONE)).toEqual([]);
    expect(idsOfName(`${ID}x${ZONE}`, ZONE)).toEqual([]);
    expect(idsOfName(ZONE, ZONE)).toEqual([]);
    expect(idsOfName(`short.${ZONE}`, ZONE)).toEqual([]);
    expect(inZone(`a.${ZONE}`, ZONE)).toBe(true);
    expect(inZone(`a${ZONE}`, ZONE)).toBe(false);
  });

  it('finds 33+ character runs in a text', () => {
    expect(idsOfText(`GET /cb/${ID}?x=1`)).toEqual([ID]);
    expect(idsOfText(`ldap://h/${ID.toUpperCase()}/a and ${ID}`)).toEqual([ID]);
    expect(idsOfText('nothing here')).toEqual([]);
  });

  it('makes correlation ids of 20 [a-z0-9] characters', () => {
    for (let i = 0; i < 100; i++) expect(newCorrelationId()).toMatch(/^[a-z0-9]{20}$/);
  });

  it('truncates and escapes raw data', () => {
    expect(truncate('abc', 2)).toBe('ab\n[truncated: 1 more characters]');
    expect(printable(Buffer.from([0x41, 0x00, 0x0a]))).toBe('A\\x00\n');
  });
});

describe('DNS answers', () => {
  const zone = { domain: ZONE, ipv4: '203.0.113.5' };
  const query = (name: string, type: dnsPacket.RecordType, flags = 0) =>
    dnsPacket.decode(dnsPacket.encode({ type: 'query', id: 9, flags, questions: [{ type, name }] }));
  const decode = (b: Buffer) =>
    dnsPacket.decode(b) as ReturnType<typeof dnsPacket.decode> & { rcode: string };

  it('AAAA without an IPv6 address: an empty, authoritative answer with the SOA', () => {
    const r = decode(answerQuery(query(`${ID}.${ZONE}`, 'AAAA'), zone).response);
    expect(r.rcode).toBe('NOERROR');
    expect(r.flag_aa).toBe(true);
    expect(r.answers).toEqual([]);
    expect(r.authorities?.[0]?.type).toBe('SOA');
    const six = decode(
      answerQuery(query(`${ID}.${ZONE}`, 'AAAA'), { ...zone, ipv6: '2001:db8::5' }).response,
    );
    expect(six.answers).toEqual([expect.objectContaining({ type: 'AAAA', data: '2001:db8::5' })]);
  });

  it('never recurses: another zone is REFUSED, RA never set, RD echoed', () => {
    const r = decode(answerQuery(query('www.example.org', 'A', dnsPacket.RECURSION_DESIRED), zone).response);
    expect(r.rcode).toBe('REFUSED');
    expect(r.flag_ra).toBe(false);
    expect(r.flag_rd).toBe(true);
    expect(r.answers).toEqual([]);
  });

  it('answers anything without throwing (random questions)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9-]{1,20}(\.[a-z0-9-]{1,20}){0,4}$/),
        fc.constantFrom<dnsPacket.RecordType>('A', 'AAAA', 'TXT', 'NS', 'SOA', 'MX', 'CNAME'),
        (name, type) => {
          const r = decode(answerQuery(query(name, type), zone).response);
          expect(['NOERROR', 'REFUSED']).toContain(r.rcode);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('LDAP BER', () => {
  it('encodes success responses with the message id', () => {
    expect([...successResponse(1, 0x61)]).toEqual([
      0x30, 0x0c, 0x02, 0x01, 0x01, 0x61, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00,
    ]);
    // 200 needs a leading zero byte to stay positive.
    expect([...successResponse(200, 0x65).subarray(0, 6)]).toEqual([0x30, 0x0d, 0x02, 0x02, 0x00, 0xc8]);
  });

  it('reads any bytes without throwing', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const buf = Buffer.from(bytes);
        const msg = readTlv(buf, 0);
        if (msg && msg.tag === 0x30) expect(typeof parseMessage(buf, msg).text).toBe('string');
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the DNS listener survives garbage', () => {
  it('random datagrams never stop it answering', async () => {
    const { startDns } = await import('./oob-dns.ts');
    const dgram = await import('node:dgram');
    const recorder = { record: async () => null } as never;
    const [udp, tcp] = await startDns('127.0.250.4', 0, { domain: ZONE, ipv4: '127.0.250.4' }, recorder);
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.250.4', resolve));
    const waiting = new Map<number, (m: Buffer) => void>();
    socket.on('message', (m) => waiting.get(m.readUInt16BE(0))?.(m));
    try {
      const port = udp?.address.port as number;
      const samples = fc.sample(fc.uint8Array({ minLength: 0, maxLength: 300 }), 150);
      for (const [i, bytes] of samples.entries()) {
        socket.send(Buffer.from(bytes), port, '127.0.250.4');
        // After each garbage datagram, a real query is still answered.
        const id = 10_000 + i;
        const answer = await new Promise<Buffer>((resolve) => {
          waiting.set(id, resolve);
          socket.send(
            dnsPacket.encode({ type: 'query', id, questions: [{ type: 'A', name: `${ID}.${ZONE}` }] }),
            port,
            '127.0.250.4',
          );
        });
        expect(dnsPacket.decode(answer).answers?.[0]).toMatchObject({ type: 'A', data: '127.0.250.4' });
      }
    } finally {
      socket.close();
      await udp?.close();
      await tcp?.close();
    }
  });
});
