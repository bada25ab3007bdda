import dgram from 'node:dgram';
import { existsSync, readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import dnsPacket, { type Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/helpers.ts';
import { compileOrThrow, scanAll, tpl } from '../../test/template-helpers.ts';

const ZONE: Record<string, Answer[]> = {
  'acme.test:A': [{ type: 'A', name: 'acme.test', ttl: 300, data: '127.0.1.10' }],
  'acme.test:TXT': [{ type: 'TXT', name: 'acme.test', ttl: 300, data: ['v=spf1 -all'] }],
  'acme.test:CAA': [
    { type: 'CAA', name: 'acme.test', ttl: 300, data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } },
  ],
  '_dmarc.acme.test:TXT': [
    {
      type: 'TXT',
      name: '_dmarc.acme.test',
      ttl: 300,
      data: ['v=DMARC1; p=reject; rua=mailto:dmarc@acme.test'],
    },
  ],
  'shop.acme.test:CNAME': [
    { type: 'CNAME', name: 'shop.acme.test', ttl: 300, data: 'acme-shop.herokuapp.com' },
  ],
};
const AXFR: Answer[] = [
  {
    type: 'SOA',
    name: 'beta.test',
    ttl: 300,
    data: {
      mname: 'ns1.beta.test',
      rname: 'hostmaster.beta.test',
      serial: 1,
      refresh: 1,
      retry: 1,
      expire: 1,
      minimum: 1,
    },
  },
  { type: 'A', name: 'dev.beta.test', ttl: 300, data: '127.0.1.20' },
  {
    type: 'SOA',
    name: 'beta.test',
    ttl: 300,
    data: {
      mname: 'ns1.beta.test',
      rname: 'hostmaster.beta.test',
      serial: 1,
      refresh: 1,
      retry: 1,
      expire: 1,
      minimum: 1,
    },
  },
];

function answer(query: dnsPacket.DecodedPacket): Buffer {
  const q = query.questions?.[0];
  const key = `${q?.name}:${q?.type}`;
  const answers = q?.type === 'AXFR' ? AXFR : (ZONE[key] ?? []);
  const known = Object.keys(ZONE).some((k) => k.startsWith(`${q?.name}:`)) || q?.type === 'AXFR';
  return dnsPacket.encode({
    type: 'response',
    id: query.id ?? 0,
    flags: dnsPacket.AUTHORITATIVE_ANSWER | (known ? 0 : 3),
    questions: query.questions ?? [],
    answers,
  });
}

let udp: dgram.Socket;
let tcpDns: net.Server;
let dnsPort = 0;
let banner: net.Server;
let bannerPort = 0;
let tlsServer: tls.Server | undefined;
let tlsPort = 0;

beforeAll(async () => {
  tcpDns = net.createServer((sock) => {
    sock.on('data', (buf) => {
      const q = dnsPacket.decode(buf.subarray(2));
      sock.end(dnsPacket.streamEncode(dnsPacket.decode(answer(q))));
    });
  });
  // DNS on UDP and TCP of one port: the free UDP port the system picks may be taken on TCP by
  // another test's socket (a listen error left this hook hanging until its time-out): try another.
  for (let attempt = 1; ; attempt++) {
    udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    dnsPort = (udp.address() as AddressInfo).port;
    try {
      await new Promise<void>((resolve, reject) => {
        tcpDns.once('error', reject);
        tcpDns.listen(dnsPort, '127.0.0.1', () => {
          tcpDns.off('error', reject);
          resolve();
        });
      });
      break;
    } catch (err) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
    }
  }
  udp.on('message', (msg, rinfo) => udp.send(answer(dnsPacket.decode(msg)), rinfo.port, rinfo.address));

  banner = net.createServer((sock) => {
    sock.write('220 (vsFTPd 2.3.4)\r\n');
    sock.on('data', (d) => {
      const text = d.toString('latin1');
      if (text.includes('info')) sock.write('$20\r\n# Server\r\nredis_version:4.0.9\r\n');
      else if (text.startsWith('USER anonymous')) sock.write('331 Please specify the password.\r\n');
      else if (text.includes('\x00\x01')) sock.write(Buffer.from([0xca, 0xfe, 0xba, 0xbe]));
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((resolve) => banner.listen(0, '127.0.0.1', resolve));
  bannerPort = (banner.address() as AddressInfo).port;

  const cert = path.join(REPO_ROOT, 'packages/lab/certs/expired-selfsigned.crt');
  const key = path.join(REPO_ROOT, 'packages/lab/certs/expired-selfsigned.key');
  if (existsSync(cert) && existsSync(key)) {
    tlsServer = tls.createServer(
      { cert: readFileSync(cert), key: readFileSync(key), minVersion: 'TLSv1.2' },
      (s) => {
        s.on('error', () => {});
        s.end();
      },
    );
    await new Promise<void>((resolve) => tlsServer?.listen(0, '127.0.0.1', resolve));
    tlsPort = (tlsServer.address() as AddressInfo).port;
  }
});

afterAll(async () => {
  udp?.close();
  await new Promise((r) => tcpDns?.close(r));
  await new Promise((r) => banner?.close(r));
  if (tlsServer) await new Promise((r) => tlsServer?.close(r));
});

const dnsOpts = () => ({ dnsServers: [{ host: '127.0.0.1', port: dnsPort }] });

describe('dns templates', () => {
  it('matches answer records and extracts from them', async () => {
    const t = compileOrThrow(
      tpl(
        'caa',
        `dns:
  - name: "{{FQDN}}"
    type: CAA
    matchers:
      - type: regex
        regex: ['IN\\s+CAA\\s+(.+)']
    extractors:
      - type: regex
        group: 1
        regex: ['issue "(.*)"']
`,
      ),
    );
    const { findings } = await scanAll([t], ['acme.test'], dnsOpts());
    expect(findings).toHaveLength(1);
    expect(findings[0]?.extracted).toEqual(['letsencrypt.org']);
    expect(findings[0]?.mainDomain).toBe('acme.test');
  });

  it('matches rcode and negative word matchers (missing DMARC)', async () => {
    const missing = compileOrThrow(
      tpl(
        'no-dmarc',
        'dns:\n  - name: "_dmarc.{{FQDN}}"\n    type: TXT\n    matchers:\n      - type: word\n        part: answer\n        words: ["v=DMARC1"]\n        negative: true\n',
      ),
    );
    expect((await scanAll([missing], ['acme.test'], dnsOpts())).findings).toHaveLength(0);
    expect((await scanAll([missing], ['beta.test'], dnsOpts())).findings).toHaveLength(1);
    const nx = compileOrThrow(
      tpl(
        'nx',
        'dns:\n  - name: "{{FQDN}}"\n    type: A\n    matchers:\n      - type: dsl\n        dsl: ["rcode == 3"]\n',
      ),
    );
    expect((await scanAll([nx], ['nothing.test'], dnsOpts())).findings).toHaveLength(1);
    expect((await scanAll([nx], ['acme.test'], dnsOpts())).findings).toHaveLength(0);
  });

  it('transfers a zone over TCP (AXFR)', async () => {
    const t = compileOrThrow(
      tpl(
        'axfr',
        'dns:\n  - name: "{{FQDN}}"\n    type: AXFR\n    matchers:\n      - type: regex\n        regex: ["IN\\\\s+SOA"]\n      - type: word\n        words: ["dev.beta.test."]\n    matchers-condition: and\n',
      ),
    );
    const { findings } = await scanAll([t], ['beta.test'], dnsOpts());
    expect(findings).toHaveLength(1);
  });
});

describe('network templates', () => {
  it('sends text inputs and matches the banner on the input port', async () => {
    const t = compileOrThrow(
      tpl(
        'ftp-anon',
        `tcp:
  - inputs:
      - data: "USER anonymous\\r\\n"
    host: ["{{Hostname}}"]
    port: ${bannerPort}
    read-size: 2048
    matchers-condition: and
    matchers:
      - type: word
        words: ["vsFTPd"]
      - type: word
        words: ["331"]
    extractors:
      - type: regex
        group: 1
        regex: ['vsFTPd ([\\d.]+)']
`,
      ),
    );
    const { findings } = await scanAll([t], [`127.0.0.1:${bannerPort}`]);
    expect(findings).toHaveLength(1);
    expect(findings[0]?.extracted).toEqual(['2.3.4']);
    expect(findings[0]?.matchedAt).toBe(`127.0.0.1:${bannerPort}`);
    // With only a host, the template's port list is used.
    expect((await scanAll([t], ['127.0.0.1'])).findings).toHaveLength(1);
  });

  it('sends hex inputs and matches binary responses', async () => {
    const t = compileOrThrow(
      tpl(
        'hex',
        `tcp:\n  - inputs:\n      - data: "0001"\n        type: hex\n    host: ["{{Hostname}}"]\n    matchers:\n      - type: binary\n        binary: ["cafebabe"]\n`,
      ),
    );
    expect((await scanAll([t], [`127.0.0.1:${bannerPort}`])).findings).toHaveLength(1);
  });

  it('skips an input port the template does not list', async () => {
    const t = compileOrThrow(
      tpl(
        'redis',
        'tcp:\n  - inputs:\n      - data: "info\\r\\n"\n    host: ["{{Hostname}}"]\n    port: 6379\n    matchers:\n      - type: word\n        words: ["redis_version"]\n',
      ),
    );
    expect((await scanAll([t], [`127.0.0.1:${bannerPort}`])).findings).toHaveLength(0);
  });
});

describe('ssl templates', () => {
  it.skipIf(!existsSync(path.join(REPO_ROOT, 'packages/lab/certs/expired-selfsigned.crt')))(
    'reads expired, self_signed, mismatched, subject_cn and the TLS version',
    async () => {
      const t = (id: string, dsl: string) =>
        compileOrThrow(
          tpl(
            id,
            `ssl:\n  - address: "{{Host}}:{{Port}}"\n    matchers:\n      - type: dsl\n        dsl: ["${dsl}"]\n    extractors:\n      - type: kval\n        kval: ["subject_cn"]\n`,
          ),
        );
      const templates = [
        t('expired', 'expired == true'),
        t('self-signed', 'self_signed == true'),
        t('mismatched', 'mismatched == true'),
        t('tls12-or-13', 'tls_version == \\"tls13\\" || tls_version == \\"tls12\\"'),
      ];
      const resolve = (h: string) =>
        h === 'secure.acme.test' || h === 'other.test' ? '127.0.0.1' : undefined;
      const good = await scanAll(templates, [`secure.acme.test:${tlsPort}`], { resolve });
      expect(good.findings.map((f) => f.templateId).sort()).toEqual([
        'expired',
        'self-signed',
        'tls12-or-13',
      ]);
      expect(good.findings[0]?.extracted).toEqual(['secure.acme.test']);
      const other = await scanAll(templates, [`other.test:${tlsPort}`], { resolve });
      expect(other.findings.map((f) => f.templateId).sort()).toContain('mismatched');
      // An old protocol the server refuses gives no finding and no host error.
      const old = compileOrThrow(
        tpl(
          'old',
          'ssl:\n  - address: "{{Host}}:{{Port}}"\n    min_version: tls10\n    max_version: tls11\n    extractors:\n      - type: json\n        json: [" .tls_version"]\n',
        ),
      );
      const r = await scanAll([old], [`secure.acme.test:${tlsPort}`], { resolve });
      expect(r.findings).toHaveLength(0);
      expect(r.scanner.summary.unresponsiveHosts).toHaveLength(0);
    },
  );
});
