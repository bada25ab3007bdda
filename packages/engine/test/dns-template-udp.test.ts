import net from 'node:net';
import dnsPacket, { type Packet } from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { DnsError } from '../src/dns/dns-udp.ts';
import { AbortedError } from '../src/lib/async.ts';
import { queryDns } from '../src/protocols/dns/dns-client.ts';
import { answer, bindUdp, deadServer, FORGED, fakeServer, REAL } from './dns-fake-servers.ts';
import { compileOrThrow, scanAll, tpl } from './template-helpers.ts';

// Loopback addresses of this file: servers on .1, a forger on .2, nothing on .3.
const SERVER = '127.0.99.1';
const FORGER = '127.0.99.2';
const NOBODY = '127.0.99.3';

const toClose: { close(): void }[] = [];
afterEach(() => {
  for (const c of toClose.splice(0)) c.close();
});

const dataOf = (r: Awaited<ReturnType<typeof queryDns>>) =>
  (r.packet.answers ?? []).map((a) => (a as { data: unknown }).data);

/** The template client's UDP path: the resolver's connected socket (dns-udp.ts), one per query. */
describe('template DNS client over UDP', () => {
  it('ignores an answer with the right id from another port or address than the server', async () => {
    const otherPort = await bindUdp(SERVER);
    const otherAddress = await bindUdp(FORGER);
    toClose.push(otherPort, otherAddress);
    let real = true;
    const server = await fakeServer(toClose, SERVER, (q, send, client) => {
      // A forger who guessed the id and the client's port answers first.
      for (const s of [otherPort, otherAddress])
        s.send(dnsPacket.encode(answer(q, FORGED)), client.port, client.address);
      if (real) setTimeout(() => send(answer(q, REAL)), 50);
    });
    expect(dataOf(await queryDns([server], 'www.example.test', 'A', { timeoutMs: 2000 }))).toEqual([REAL]);
    // Only forged answers: the query times out rather than take one.
    real = false;
    await expect(
      queryDns([server], 'quiet.example.test', 'A', { timeoutMs: 300, retries: 1 }),
    ).rejects.toMatchObject({ code: 'ETIMEOUT', message: 'DNS timeout after 300 ms' });
  });

  it('ignores an answer to another question; takes the question back in any case, asked with a trailing dot', async () => {
    const server = await fakeServer(toClose, SERVER, (q, send) => {
      const asked = q.questions?.[0] as NonNullable<Packet['questions']>[number];
      send(answer(q, FORGED, { questions: [{ ...asked, name: `evil.${asked.name}` }] }));
      send(answer(q, FORGED, { questions: [{ ...asked, type: 'AAAA' }] }));
      send(answer(q, FORGED, { questions: [{ ...asked, class: 'CH' }] }));
      send(answer(q, FORGED, { questions: [] }));
      // The server echoes the name in 0x20 mixed case.
      const echoed = [...asked.name].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
      setTimeout(() => send(answer(q, REAL, { questions: [{ ...asked, name: echoed }] })), 50);
    });
    const options = { timeoutMs: 2000 };
    expect(dataOf(await queryDns([server], 'WWW.Example.test', 'A', options))).toEqual([REAL]);
    expect(dataOf(await queryDns([server], 'api.example.test.', 'A', options))).toEqual([REAL]);
    expect(server.asked).toEqual(['WWW.Example.test', 'api.example.test']);
  });

  it('asks a PTR for a reverse name and returns its record', async () => {
    const server = await fakeServer(toClose, SERVER, (q, send) => {
      const name = q.questions?.[0]?.name ?? '';
      send(
        answer(q, '', { answers: [{ name, type: 'PTR', class: 'IN', ttl: 60, data: 'host.example.test' }] }),
      );
    });
    const r = await queryDns([server], '1.2.0.192.in-addr.arpa', 'PTR', { timeoutMs: 2000 });
    expect(dataOf(r)).toEqual(['host.example.test']);
    expect(server.queries[0]?.questions).toEqual([
      { name: '1.2.0.192.in-addr.arpa', type: 'PTR', class: 'IN' },
    ]);
  });

  it('fails at once with ECONNREFUSED on a server with nothing listening, and goes on to the next', async () => {
    const dead = await deadServer(NOBODY);
    // Without the ICMP error this would end, 5 s later, as a time-out: not a DnsError ECONNREFUSED.
    const refused = queryDns([dead], 'www.example.test', 'A', { timeoutMs: 5000, retries: 1 });
    await expect(refused).rejects.toBeInstanceOf(DnsError);
    await expect(refused).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const live = await fakeServer(toClose, SERVER);
    const r = await queryDns([dead, live], 'www.example.test', 'A', { timeoutMs: 5000, retries: 1 });
    expect(r.server).toEqual(live);
    expect(dataOf(r)).toEqual([REAL]);
  });

  it('keeps the template semantics: recursion flag, the whole packet, a fresh port per query', async () => {
    const server = await fakeServer(toClose, SERVER, (q, send) =>
      send(
        answer(q, REAL, {
          flags: 3, // NXDOMAIN
          answers: [],
          authorities: [
            {
              name: 'example.test',
              type: 'SOA',
              class: 'IN',
              ttl: 60,
              data: { mname: 'ns.example.test', rname: 'h.example.test', serial: 7 },
            },
          ],
          additionals: [{ name: 'ns.example.test', type: 'A', class: 'IN', ttl: 60, data: REAL }],
        }),
      ),
    );
    const r = await queryDns([server], 'nx.example.test', 'TXT', { timeoutMs: 2000, recursion: false });
    await queryDns([server], 'rd.example.test', 'CAA', { timeoutMs: 2000 });
    expect(r.packet.rcode).toBe('NXDOMAIN');
    expect(r.packet.authorities?.map((a) => a.type)).toEqual(['SOA']);
    expect(r.packet.additionals?.map((a) => a.name)).toEqual(['ns.example.test']);
    expect(r.messages).toEqual([r.packet]);
    const [noRd, rd] = server.queries;
    expect([noRd?.flags, rd?.flags]).toEqual([0, dnsPacket.RECURSION_DESIRED]);
    expect(server.queries.map((q) => q.questions?.[0]?.type)).toEqual(['TXT', 'CAA']);
    expect(server.clientPorts.size).toBe(2);
  });

  it('stops when aborted, without asking again', async () => {
    const server = await fakeServer(toClose, SERVER, () => {});
    const controller = new AbortController();
    const q = queryDns([server], 'slow.example.test', 'A', {
      timeoutMs: 5000,
      retries: 3,
      signal: controller.signal,
    });
    await expect.poll(() => server.asked.length).toBe(1);
    controller.abort();
    await expect(q).rejects.toBeInstanceOf(AbortedError);
    expect(server.asked).toEqual(['slow.example.test']);
  });

  it('asks again over TCP when the UDP answer is truncated', async () => {
    const udp = await fakeServer(toClose, SERVER, (q, send) =>
      send(answer(q, FORGED, { flags: dnsPacket.TRUNCATED_RESPONSE, answers: [] })),
    );
    const tcp = net.createServer((socket) =>
      socket.once('data', (chunk) =>
        socket.end(dnsPacket.streamEncode(answer(dnsPacket.streamDecode(chunk), REAL))),
      ),
    );
    await new Promise<void>((r) => tcp.listen(udp.port, SERVER, () => r()));
    toClose.push(tcp);
    expect(dataOf(await queryDns([udp], 'big.example.test', 'A', { timeoutMs: 2000 }))).toEqual([REAL]);
  });
});

/** `{{FQDN}} A` with a matcher of its own, or a second request after it. */
const askA = (id: string, matcher: string, then = '') =>
  compileOrThrow(tpl(id, `dns:\n  - name: "{{FQDN}}"\n    type: A\n    matchers:\n${matcher}${then}`));
const onReal = `      - type: word\n        part: answer\n        words: ["${REAL}"]\n`;
const onNoError = '      - type: dsl\n        dsl: ["rcode == 0"]\n';

describe('template DNS questions within a run', () => {
  it('sends a question several templates ask once; each template matches on the answer', async () => {
    const server = await fakeServer(toClose, SERVER, (q, send) =>
      setTimeout(() => send(answer(q, REAL)), 30),
    );
    const templates = [
      askA('a-real', onReal),
      askA('a-noerror', onNoError),
      // A two-request template whose first question is the same one: it is shared too.
      askA(
        'a-then-txt',
        onNoError.replace('dsl:', 'internal: true\n        dsl:'),
        '\n  - name: "_dmarc.{{FQDN}}"\n    type: TXT\n    matchers:\n      - type: dsl\n        dsl: ["rcode == 0"]\n',
      ),
    ];
    const { findings, scanner } = await scanAll(templates, ['www.example.test', 'api.example.test'], {
      dnsServers: [server],
    });
    expect(findings.map((f) => `${f.templateId} ${f.host}`).sort()).toEqual([
      'a-noerror api.example.test',
      'a-noerror www.example.test',
      'a-real api.example.test',
      'a-real www.example.test',
      'a-then-txt api.example.test',
      'a-then-txt www.example.test',
    ]);
    expect([...server.asked].sort()).toEqual([
      '_dmarc.api.example.test',
      '_dmarc.www.example.test',
      'api.example.test',
      'www.example.test',
    ]);
    expect(scanner.summary.errors).toBe(0);
  });

  it('asks a question that failed again for the next template', async () => {
    let ignored = 0;
    const server = await fakeServer(toClose, SERVER, (q, send) => {
      // The first time the question comes, nothing answers (one try: the template's retries: 1).
      if (ignored++ === 0) return;
      send(answer(q, REAL));
    });
    const { findings, scanner } = await scanAll(
      [askA('first', onReal), askA('second', onReal)],
      ['flaky.example.test'],
      { dnsServers: [server], timeoutMs: 300, concurrency: 1 },
    );
    expect(findings.map((f) => f.templateId)).toEqual(['second']);
    expect(server.asked).toEqual(['flaky.example.test', 'flaky.example.test']);
    expect(scanner.summary.errors).toBe(1);
  });
});
