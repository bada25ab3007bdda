import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Lab, OOB_LAB_HOSTS, OOB_PLANTED, startLab } from '@perimeter/lab';
import dnsPacket, { type Packet } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateFinding } from '../src/findings/types.ts';
import { defaultExecutors } from '../src/protocols/index.ts';
import { usesOob } from '../src/protocols/oob/oob-markers.ts';
import type { OobInteraction, OobProvider } from '../src/protocols/oob/oob-types.ts';
import { loadTemplates } from '../src/templates/template-loader.ts';
import { TemplateScanner } from '../src/templates/template-scanner.ts';
import { DEFAULT_EXCLUDED_TAGS, selectTemplates } from '../src/templates/template-selection.ts';
import { sharedDataset } from './helpers.ts';

/**
 * Every out-of-band http template of the community corpus against the lab's call-back
 * services (and one ordinary lab site), with a small in-test interaction recorder as the
 * provider (DNS on 127.0.252.200, HTTP and LDAP on 127.0.252.201; Perimeter's own server is
 * tested elsewhere): the templates the lab's out-of-band planted list names fire exactly
 * there, and nothing else fires.
 */
const corpus = sharedDataset('nuclei-templates-corpus');
const ZONE = 'oob.kat.test';
const RECORDER = '127.0.252.200';
const CALLBACK = '127.0.252.201';

/** An interaction recorder and the provider that reads it (ids: the label left of the zone). */
class Recorder implements OobProvider {
  readonly domain = ZONE;
  readonly interactions: OobInteraction[] = [];
  private n = 0;
  newId(): string {
    this.n++;
    return `kat00000000000000000${this.n.toString(36).padStart(13, '0')}`;
  }
  async poll(ids: readonly string[]): Promise<OobInteraction[]> {
    const wanted = new Set(ids);
    return this.interactions.filter((i) => wanted.has(i.id));
  }
  record(name: string, protocol: OobInteraction['protocol'], rawRequest: string, remote: string): void {
    const labels = name.toLowerCase().replace(/\.$/, '').split('.');
    const zoneLabels = ZONE.split('.').length;
    const id = labels[labels.length - zoneLabels - 1] ?? '';
    this.interactions.push({
      id,
      protocol,
      remoteAddress: remote,
      at: new Date().toISOString(),
      rawRequest,
      rawResponse: '',
    });
  }
}

let root = '';
let lab: Lab | undefined;
let recorder: Recorder;
let udp: dgram.Socket;
let httpServer: http.Server;
let ldapServer: net.Server;
const findings: TemplateFinding[] = [];
let templateCount = 0;

async function oobTemplatesDir(): Promise<string> {
  const dir = corpus as string;
  const archive = (await readdir(dir)).find((f) => /^nuclei-templates-.*\.tar\.gz$/.test(f));
  if (!archive) throw new Error(`no nuclei-templates-*.tar.gz in ${dir}`);
  root = await mkdtemp(path.join(tmpdir(), 'oob-kat-'));
  // Only the http folder: the out-of-band templates that apply to a web service.
  await promisify(execFile)('tar', ['-xzf', path.join(dir, archive), '-C', root, './http']);
  const out = path.join(root, 'oob');
  await mkdir(out);
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (p !== out) await walk(p);
      } else if (e.name.endsWith('.yaml') && usesOob(await readFile(p, 'utf8')))
        await cp(p, path.join(out, path.relative(root, p).replaceAll(path.sep, '__')));
    }
  };
  await walk(path.join(root, 'http'));
  return out;
}

beforeAll(async () => {
  if (!corpus) return;
  recorder = new Recorder();
  udp = dgram.createSocket('udp4');
  udp.on('message', (msg, rinfo) => {
    let q: Packet;
    try {
      q = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    const name = (question?.name ?? '').toLowerCase();
    const inZone = name.endsWith(`.${ZONE}`);
    if (inZone) recorder.record(name, 'dns', `;${name}.\tIN\t${question?.type ?? 'A'}`, rinfo.address);
    udp.send(
      dnsPacket.encode({
        id: q.id,
        type: 'response',
        flags: dnsPacket.AUTHORITATIVE_ANSWER,
        questions: q.questions ?? [],
        answers: inZone && question?.type === 'A' ? [{ type: 'A', name, ttl: 0, data: CALLBACK }] : [],
      }),
      rinfo.port,
      rinfo.address,
    );
  });
  await new Promise<void>((resolve) => udp.bind(0, RECORDER, resolve));
  httpServer = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    recorder.record(
      host,
      'http',
      `${req.method} ${req.url} HTTP/1.1\r\nHost: ${req.headers.host}\r\n\r\n`,
      req.socket.remoteAddress ?? '',
    );
    res.end('ok');
  });
  await new Promise<void>((resolve) => httpServer.listen(0, CALLBACK, resolve));
  ldapServer = net.createServer((s) => {
    s.on('error', () => {});
    s.once('data', () => s.end());
  });
  await new Promise<void>((resolve) => ldapServer.listen(0, CALLBACK, resolve));
  const dir = await oobTemplatesDir();
  lab = await startLab({
    subnet: '127.0.252',
    dnsHost: '127.0.252.3',
    dnsPort: 0,
    oob: {
      zone: ZONE,
      nameserver: { host: RECORDER, port: udp.address().port },
      httpPort: (httpServer.address() as net.AddressInfo).port,
      ldapPort: (ldapServer.address() as net.AddressInfo).port,
    },
  });
  const loaded = await loadTemplates(dir);
  const templates = selectTemplates(
    loaded.templates.filter((t) => t.protocols.has('http')),
    { excludeTags: [...DEFAULT_EXCLUDED_TAGS] },
  );
  templateCount = templates.length;
  const port = lab.portMap[80] ?? 80;
  const names = new Map<string, string>([
    ...OOB_LAB_HOSTS.map((h): [string, string] => [h.name, lab?.address(h.octet) ?? '']),
    ['www.acme.test', lab.address(10)],
  ]);
  const inputs = [...names.keys()].map((n) => `http://${n}${port === 80 ? '' : `:${port}`}/`);
  const scanner = new TemplateScanner(defaultExecutors, {
    rateLimit: 0,
    timeoutMs: 5000,
    concurrency: 25,
    resolve: (h) => names.get(h),
    oob: { provider: recorder, waitMs: 3000 },
  });
  const started = Date.now();
  for await (const f of scanner.scan(templates, inputs)) findings.push(f);
  await scanner.close();
  console.log(
    `out-of-band corpus run: ${templates.length} templates × ${inputs.length} inputs, ${scanner.summary.requests} requests, ${recorder.interactions.length} interactions, ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}, 600_000);

afterAll(async () => {
  await lab?.stop();
  if (udp) await new Promise<void>((r) => udp.close(() => r()));
  httpServer?.closeAllConnections();
  if (httpServer) await new Promise<void>((r) => httpServer.close(() => r()));
  if (ldapServer) await new Promise<void>((r) => ldapServer.close(() => r()));
  if (root) await rm(root, { recursive: true, force: true });
});

describe.skipIf(!corpus)('out-of-band corpus templates against the lab', () => {
  it('fire exactly on the planted call-back services, and nowhere else', () => {
    expect(templateCount).toBeGreaterThan(400);
    const got = [...new Set(findings.map((f) => `${f.templateId}@${f.host}`))].sort();
    const expected = OOB_PLANTED.flatMap((p) => p.corpusTemplates.map((t) => `${t}@${p.host}`)).sort();
    expect(got).toEqual(expected);
    for (const f of findings) {
      expect(f.evidence?.interactions?.length).toBeGreaterThan(0);
      const planted = OOB_PLANTED.find((p) => p.host === f.host);
      const name = planted?.matcherNames?.[f.templateId];
      if (name) expect(f.matcherName).toBe(name);
    }
  });
});
