import { execFile, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import path from 'node:path';
import dnsPacket, { type Packet, type RecordType } from 'dns-packet';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DnsError, DnsResolver, type DnsServer } from '../src/dns/dns-resolver.ts';
import { decodeAnswers, echoesQuestion, encodeQuery, questionOf } from '../src/dns/dns-udp.ts';
import { mapConcurrent } from '../src/lib/async.ts';
import { answer, bindUdp, deadServer, FORGED, fakeServer, REAL } from './dns-fake-servers.ts';
import { REPO_ROOT } from './helpers.ts';

// Loopback addresses of this file: servers on .96 and .97, spoofers on .97, nothing on .98.
const SERVER_A = '127.0.0.96';
const SERVER_B = '127.0.0.97';
const NOBODY = '127.0.0.98';

const toClose: { close(): void }[] = [];
afterEach(() => {
  for (const c of toClose.splice(0)) c.close();
});

function resolverFor(servers: DnsServer[], timeoutMs: number, retries: number): DnsResolver {
  const r = new DnsResolver({ servers, timeoutMs, retries });
  toClose.push(r);
  return r;
}

const addressesOf = async (r: DnsResolver, name: string) =>
  (await r.query(name, 'A')).answers.map((a) => (a as { data: string }).data);

describe('resolver UDP: one connected socket per server', () => {
  it('ignores an answer with the right id from another address or port than the server', async () => {
    const otherAddress = await bindUdp(SERVER_B);
    const otherPort = await bindUdp(SERVER_A);
    toClose.push(otherAddress, otherPort);
    let real = true;
    const server = await fakeServer(toClose, SERVER_A, (q, send, client) => {
      // A forger who sees the query answers first, from another address and from another port.
      for (const s of [otherAddress, otherPort])
        s.send(dnsPacket.encode(answer(q, FORGED)), client.port, client.address);
      if (real) setTimeout(() => send(answer(q, REAL)), 50);
    });
    const resolver = resolverFor([server], 1000, 0);
    expect(await addressesOf(resolver, 'www.example.test')).toEqual([REAL]);
    // Only forged answers: the query times out rather than take one.
    real = false;
    await expect(resolver.query('quiet.example.test', 'A')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });

  it('ignores an answer whose question is not the one asked', async () => {
    const server = await fakeServer(toClose, SERVER_A, (q, send) => {
      const asked = q.questions?.[0] as NonNullable<Packet['questions']>[number];
      send(answer(q, FORGED, { questions: [{ ...asked, name: `evil.${asked.name}` }] }));
      send(answer(q, FORGED, { questions: [{ ...asked, type: 'AAAA' }] }));
      send(answer(q, FORGED, { questions: [] }));
      setTimeout(() => send(answer(q, REAL)), 50);
    });
    const resolver = resolverFor([server], 1000, 0);
    expect(await addressesOf(resolver, 'WWW.Example.test')).toEqual([REAL]);
  });

  it('times each query out on its own deadline, whatever was sent or answered around it', async () => {
    const server = await fakeServer(toClose, SERVER_A, (q, send) => {
      if (!q.questions?.[0]?.name.startsWith('silent')) send(answer(q, REAL));
    });
    const resolver = resolverFor([server], 300, 0);
    const started = performance.now();
    const settledAt = (p: Promise<unknown>) =>
      p.then(
        () => ({ ok: true, ms: performance.now() - started }),
        (e: DnsError) => ({ ok: false, code: e.code, ms: performance.now() - started }),
      );
    const first = settledAt(resolver.query('silent1.example.test', 'A'));
    await new Promise((r) => setTimeout(r, 150));
    const answered = settledAt(resolver.query('ok.example.test', 'A'));
    const second = settledAt(resolver.query('silent2.example.test', 'A'));
    expect(await answered).toMatchObject({ ok: true });
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ ok: false, code: 'ETIMEOUT' });
    expect(b).toMatchObject({ ok: false, code: 'ETIMEOUT' });
    expect(a.ms).toBeGreaterThanOrEqual(295);
    // The second waited its own 300 ms from its start (150 ms later), not the first one's.
    expect(b.ms).toBeGreaterThanOrEqual(445);
  });

  it('writes a query as dns-packet encodes it, and knows its question in an answer in any case', () => {
    const names = [
      'www.example.test',
      'WWW.Example.TEST.',
      '*.example.test',
      '_dmarc.x-y.test',
      'x',
      `${'a'.repeat(63)}.test`,
      `${'a'.repeat(64)}.test`,
      `${'abcdefghi.'.repeat(24)}test`,
      `${'abcdefghi.'.repeat(25)}test`,
      'a..b.test',
      '.lead.test',
      'trail.test..',
      'ünï.test',
      'sp ace.test',
      'a\\.b.test',
    ];
    // '*' is not a RecordType, but a template may ask it: it goes out as ANY.
    const types = ['A', 'AAAA', 'ANY', '*', 'TXT', 'CAA', 'SOA'] as string[] as RecordType[];
    const swapCase = (n: string) =>
      n.replace(/[a-z]/gi, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    // Twice: the first query of a type goes through dns-packet, later ones are written directly.
    for (const pass of [1, 2])
      for (const name of names)
        for (const type of types)
          for (const flags of [0, dnsPacket.RECURSION_DESIRED]) {
            const id = 1 + pass * 1000;
            const expected = dnsPacket.encode({
              id,
              type: 'query',
              flags,
              questions: [{ name, type, class: 'IN' }],
            });
            const label = `${name} ${type} ${flags}`;
            expect(encodeQuery(id, flags, name, type).equals(expected), label).toBe(true);
            let asked: NonNullable<Packet['questions']>[number];
            try {
              asked = dnsPacket.decode(expected).questions?.[0] as typeof asked;
            } catch {
              // A label over 63 bytes is no name a server can read: the query fails at once.
              expect(() => questionOf(expected), label).toThrow(DnsError);
              continue;
            }
            const question = questionOf(expected);
            if (12 + question.length < expected.length) {
              // An empty label ends the name on the wire ('a..b': 'a', then what follows as type
              // and class): an answer repeats those bytes, which no decoded question re-encodes to.
              const header = Buffer.from([0, 0, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
              expect(echoesQuestion(Buffer.concat([header, question]), question), label).toBe(true);
              continue;
            }
            const answered = (q: typeof asked) =>
              dnsPacket.encode({ id, type: 'response', questions: [q], answers: [] });
            expect(echoesQuestion(answered(asked), question), label).toBe(true);
            expect(echoesQuestion(answered({ ...asked, name: swapCase(asked.name) }), question), label).toBe(
              true,
            );
            expect(echoesQuestion(answered({ ...asked, name: `x${asked.name}` }), question), label).toBe(
              false,
            );
            expect(
              echoesQuestion(answered({ ...asked, type: asked.type === 'A' ? 'AAAA' : 'A' }), question),
              label,
            ).toBe(false);
            expect(echoesQuestion(answered({ ...asked, class: 'CH' }), question), label).toBe(false);
            expect(
              echoesQuestion(
                dnsPacket.encode({ id, type: 'response', questions: [], answers: [] }),
                question,
              ),
              label,
            ).toBe(false);
          }
  });

  it('reads the flags, rcode and answer records of an answer as dns-packet decodes them', () => {
    const q = { name: 'www.Example.test', type: 'A', class: 'IN' } as const;
    const soa = {
      name: 'example.test',
      type: 'SOA',
      ttl: 60,
      data: {
        mname: 'ns1.example.test',
        rname: 'hostmaster.example.test',
        serial: 1,
        refresh: 2,
        retry: 3,
        expire: 4,
        minimum: 5,
      },
    } as const;
    const packets: Packet[] = [
      { id: 7, type: 'response', flags: 3, questions: [q], answers: [], authorities: [soa] },
      {
        id: 7,
        type: 'response',
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.TRUNCATED_RESPONSE,
        questions: [q],
        answers: [
          { name: 'www.example.test', type: 'CNAME', ttl: 60, data: 'web.example.test' },
          { name: 'web.example.test', type: 'A', ttl: 60, data: REAL },
          { name: 'web.example.test', type: 'A', ttl: 60, data: FORGED },
        ],
        additionals: [{ name: 'x.example.test', type: 'TXT', ttl: 60, data: 'extra' }],
      },
      ...[2, 5, 9, 12].map(
        (rcode): Packet => ({ id: 7, type: 'response', flags: rcode, questions: [q], answers: [] }),
      ),
      // Two questions: read by dns-packet whole.
      {
        id: 7,
        type: 'response',
        flags: 0,
        questions: [q, { ...q, type: 'AAAA' }],
        answers: [{ name: q.name, type: 'A', ttl: 1, data: REAL }],
      },
    ];
    const question = questionOf(encodeQuery(7, 0, q.name, q.type));
    for (const packet of packets) {
      const wire = dnsPacket.encode(packet);
      const whole = dnsPacket.decode(wire) as ReturnType<typeof dnsPacket.decode> & { rcode: string };
      expect(decodeAnswers(wire, question.length)).toEqual({
        flags: whole.flags,
        rcode: whole.rcode,
        answers: whole.answers,
      });
    }
    // A malformed answer record throws (the answer is then ignored, as an undecodable one was).
    const truncated = dnsPacket.encode(packets[1] as Packet);
    expect(() => decodeAnswers(truncated.subarray(0, 12 + question.length + 20), question.length)).toThrow();
  });

  it('sends the queries asked in one turn of the event loop together, after its callbacks', async () => {
    const server = await fakeServer(toClose, SERVER_A);
    const resolver = resolverFor([server], 1000, 0);
    expect(await addressesOf(resolver, 'first.example.test')).toEqual([REAL]);
    const send = vi.spyOn(dgram.Socket.prototype, 'send');
    try {
      const asked = ['a1', 'a2', 'a3'].map((n) => addressesOf(resolver, `${n}.example.test`));
      // Microtasks (an answer's awaits starting the next queries) still belong to this turn.
      for (let i = 0; i < 10; i++) await Promise.resolve();
      expect(send).not.toHaveBeenCalled();
      await new Promise((r) => setImmediate(r));
      expect(send).toHaveBeenCalledTimes(3);
      expect(await Promise.all(asked)).toEqual([[REAL], [REAL], [REAL]]);
      expect(server.asked).toEqual([
        'first.example.test',
        'a1.example.test',
        'a2.example.test',
        'a3.example.test',
      ]);
    } finally {
      send.mockRestore();
    }
  });

  it('rotates over two servers and retries a SERVFAIL or a silent server on the other', async () => {
    const a = await fakeServer(toClose, SERVER_A, (q, send) => {
      const name = q.questions?.[0]?.name ?? '';
      if (name.startsWith('servfail.')) return send(answer(q, FORGED, { flags: 2, answers: [] }));
      if (name.startsWith('silent.')) return;
      send(answer(q, REAL));
    });
    const b = await fakeServer(toClose, SERVER_B);
    const resolver = resolverFor([a, b], 300, 1);
    for (const n of ['n1', 'n2', 'n3', 'n4'])
      expect(await addressesOf(resolver, `${n}.example.test`)).toEqual([REAL]);
    expect(a.asked).toEqual(['n1.example.test', 'n3.example.test']);
    expect(b.asked).toEqual(['n2.example.test', 'n4.example.test']);
    expect(await addressesOf(resolver, 'servfail.example.test')).toEqual([REAL]);
    expect(await addressesOf(resolver, 'silent.example.test')).toEqual([REAL]);
    expect(b.asked.slice(2)).toEqual(['servfail.example.test', 'silent.example.test']);
    // One socket per server, each with its own source port.
    expect(a.clientPorts.size).toBe(1);
    expect(b.clientPorts.size).toBe(1);
  });

  it('falls over at once from a server with nothing listening (ICMP unreachable), without an error event', async () => {
    const dead = await deadServer(NOBODY);
    const live = await fakeServer(toClose, SERVER_A);
    // Time-outs far longer than the test allows: only the ICMP error can make an attempt fail fast.
    const resolver = resolverFor([dead, live], 20_000, 1);
    for (const n of ['w1', 'w2', 'w3'])
      expect(await addressesOf(resolver, `${n}.example.test`)).toEqual([REAL]);
    expect(live.asked).toEqual(['w1.example.test', 'w2.example.test', 'w3.example.test']);

    // Many in flight at once (the kernel keeps one error per socket): each fails fast, none times out.
    const names = Array.from({ length: 40 }, (_v, i) => `c${i}.example.test`);
    const concurrent = resolverFor([dead, live], 20_000, 1);
    const outcomes = await Promise.all(
      names.map((n) =>
        concurrent.query(n, 'A').then(
          () => 'answered',
          (e: NodeJS.ErrnoException) => e.code,
        ),
      ),
    );
    expect(outcomes.filter((o) => o !== 'answered' && o !== 'ECONNREFUSED')).toEqual([]);
    expect(outcomes).toContain('answered');
    const deadOnly = resolverFor([dead], 20_000, 2);
    const refused = await Promise.allSettled(names.map((n) => deadOnly.query(n, 'A')));
    expect(refused.map((r) => (r.status === 'rejected' ? r.reason.code : 'answered'))).toEqual(
      names.map(() => 'ECONNREFUSED'),
    );
    // A DnsError, so that a stage reports 'name not resolved: ECONNREFUSED'.
    expect(refused[0]).toMatchObject({ reason: expect.any(DnsError) });
    // (No elapsed-time check: a query that waited out its 20 s would fail ETIMEOUT, not ECONNREFUSED.)
  });

  it('takes a server it cannot connect to as a failed attempt', async () => {
    const live = await fakeServer(toClose, SERVER_A);
    const resolver = resolverFor([{ host: NOBODY, port: 0 }, live], 20_000, 1);
    expect(await addressesOf(resolver, 'www.example.test')).toEqual([REAL]);
    expect(await addressesOf(resolver, 'api.example.test')).toEqual([REAL]);
  });

  it('asks again over TCP when the UDP answer is truncated', async () => {
    const udp = await fakeServer(toClose, SERVER_A, (q, send) =>
      send(answer(q, FORGED, { flags: dnsPacket.TRUNCATED_RESPONSE, answers: [] })),
    );
    const tcp = net.createServer((socket) =>
      socket.once('data', (chunk) =>
        socket.end(dnsPacket.streamEncode(answer(dnsPacket.streamDecode(chunk), REAL))),
      ),
    );
    await new Promise<void>((r) => tcp.listen(udp.port, SERVER_A, () => r()));
    toClose.push(tcp);
    const resolver = resolverFor([udp], 1000, 0);
    expect(await addressesOf(resolver, 'big.example.test')).toEqual([REAL]);
  });

  it('close rejects what is in flight, queued or sent, and frees every socket', async () => {
    const silent = (_q: Packet) => {};
    const a = await fakeServer(toClose, SERVER_A, silent);
    const b = await fakeServer(toClose, SERVER_B, silent);
    const resolver = new DnsResolver({ servers: [a, b], timeoutMs: 20_000, retries: 0 });
    const sent = [resolver.query('one.example.test', 'A'), resolver.query('two.example.test', 'A')];
    await expect.poll(() => a.clientPorts.size + b.clientPorts.size).toBe(2);
    const ports = [...a.clientPorts, ...b.clientPorts];
    // While the resolver holds them, the ports cannot be bound: the check below can fail.
    for (const port of ports)
      await expect(bindUdp('0.0.0.0', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    resolver.close();
    for (const p of sent) await expect(p).rejects.toThrow('resolver closed');
    await new Promise((r) => setTimeout(r, 20));
    for (const port of ports) (await bindUdp('0.0.0.0', port)).close();

    // Closed while its socket is still connecting: the queued query is rejected and never sent.
    const early = new DnsResolver({ servers: [a], timeoutMs: 20_000, retries: 0 });
    const queued = early.query('queued.example.test', 'A');
    early.close();
    await expect(queued).rejects.toThrow('resolver closed');
    await new Promise((r) => setTimeout(r, 50));
    expect(a.asked).toEqual(['one.example.test']);
  });

  it('leaves nothing that keeps the process alive after close', async () => {
    const silent = await fakeServer(toClose, SERVER_A, () => {});
    const child = path.join(REPO_ROOT, 'packages/engine/test/dns-close-child.ts');
    const started = Date.now();
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', child, `${silent.host}:${silent.port}`],
        { cwd: REPO_ROOT, timeout: 30_000 },
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      ),
    );
    expect(JSON.parse(out)).toEqual(['resolver closed', 'resolver closed']);
    expect(silent.asked).toEqual(['queued.example.test', 'sent.example.test']);
    // The queries' time-out is a minute: an exit well before it means nothing was left behind.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

/**
 * A DNS server in a process of its own (as a real one is: it answers while the client is busy)
 * that answers NXDOMAIN to everything by echoing the query; reports how many it was asked.
 */
async function childServer(host: string) {
  const code = `
    const s = require('node:dgram').createSocket('udp4');
    let asked = 0;
    s.on('message', (m, r) => { asked++; m[2] |= 0x80; m[3] = (m[3] & 0xf0) | 3; s.send(m, r.port, r.address); });
    process.on('message', () => process.send(asked));
    s.bind(0, process.argv[1], () => process.send(s.address().port));`;
  const child = spawn(process.execPath, ['-e', code, host], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = () => new Promise<number>((r) => child.once('message', (n) => r(Number(n))));
  const port = await next();
  toClose.push({ close: () => child.kill() });
  return {
    host,
    port,
    asked: () => {
      const n = next();
      child.send('count');
      return n;
    },
  };
}

describe('a brute force’s answers', () => {
  it('all arrive at concurrency 200: none dropped by the socket, no query asked twice', async () => {
    // 200 answers can land while the event loop is busy; at the default receive buffer (208 kB)
    // the kernel dropped some of every 3,000, and each such query waited out its timeout.
    const server = await childServer(SERVER_B);
    // A timeout far above any answer's delay on a loaded machine: a query is asked again only when
    // its answer (or the question) was lost, never because the machine was slow.
    const r = resolverFor([{ host: server.host, port: server.port }], 20_000, 2);
    const names = Array.from({ length: 3_000 }, (_v, i) => `w${i}.brute.test`);
    let missing = 0;
    for await (const found of mapConcurrent(
      names,
      200,
      (n) => r.resolveHost(n, undefined, ['A']),
      new AbortController().signal,
    ))
      if (!found.exists) missing++;
    expect(missing).toBe(names.length);
    // Each lost datagram shows as a second question for its name.
    expect(await server.asked()).toBe(names.length);
  }, 90_000);
});
