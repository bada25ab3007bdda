import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsResolver } from '../dns/dns-resolver.ts';
import type { ScanEvent, UrlAsset } from '../pipeline/events.ts';
import { Inventory } from '../pipeline/inventory.ts';
import type { StageContext } from '../pipeline/stage.ts';
import { ScanCoverage, StageReport } from '../pipeline/stage-report.ts';
import { ScopePolicy } from '../scope/scope-policy.ts';
import { parseTarget } from '../scope/targets.ts';
import { inputHost, intrusiveGate, isIntrusiveTemplate } from './intrusive.ts';
import { createTemplateStage } from './template-stage.ts';

describe('intrusive templates: classification and the gate', () => {
  it('calls attack payloads intrusive, looking around not', () => {
    const info = (tags: string[]) =>
      ({ info: { tags } }) as unknown as Parameters<typeof isIntrusiveTemplate>[0];
    expect(isIntrusiveTemplate(info(['cve', 'apache', 'lfi', 'traversal']))).toBe(true);
    expect(isIntrusiveTemplate(info(['RCE']))).toBe(true);
    expect(isIntrusiveTemplate(info(['exposure', 'config', 'git']))).toBe(false);
    expect(isIntrusiveTemplate(info(['panel', 'login']))).toBe(false);
  });

  it.each([
    ['http://app.acme.test:8080/', 'app.acme.test'],
    ['https://[2001:db8::1]/', '2001:db8::1'],
    ['app.acme.test:443', 'app.acme.test'],
    ['[2001:db8::1]:22', '2001:db8::1'],
    ['acme.test', 'acme.test'],
  ])('the host of %s is %s', (input, host) => {
    expect(inputHost(input)).toBe(host);
  });

  it('lets a host through only when every address is proven', () => {
    const targets = [parseTarget('acme.test'), parseTarget('203.0.113.7'), parseTarget('198.51.100.0/28')];
    const gate = intrusiveGate(targets, ['192.0.2.0/29']);
    expect(gate(['203.0.113.7'])).toBe(true); // a verified peer
    expect(gate(['198.51.100.9'])).toBe(true); // inside a verified network
    expect(gate(['192.0.2.3'])).toBe(true); // allowed by the operator (or another proven range)
    expect(gate(['203.0.113.8'])).toBe(false); // the domain points at someone else's server
    expect(gate(['203.0.113.7', '203.0.113.8'])).toBe(false); // one unproven address is enough
    expect(gate([])).toBe(false); // unresolved
    expect(intrusiveGate([parseTarget('acme.test')], [])(['203.0.113.7'])).toBe(false);
  });
});

describe('the template stage skips intrusive templates on unproven addresses', () => {
  let server: http.Server;
  let port = 0;
  let dir = '';
  const hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.244.1', resolve));
    port = (server.address() as AddressInfo).port;
    dir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-intrusive-'));
    const template = (id: string, tags: string) =>
      `id: ${id}\ninfo:\n  name: ${id}\n  severity: high\n  author: test\n  tags: ${tags}\nhttp:\n  - method: GET\n    path:\n      - "{{BaseURL}}/${id}"\n    matchers:\n      - type: status\n        status:\n          - 200\n`;
    await writeFile(path.join(dir, 'look.yaml'), template('look-around', 'exposure,config'));
    await writeFile(path.join(dir, 'attack.yaml'), template('path-traversal', 'cve,lfi,traversal'));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  async function run(targetValues: string[], intrusiveAllow: string[] | undefined) {
    hits.length = 0;
    const inventory = new Inventory();
    // app.acme.test resolved to 127.0.244.1 during discovery.
    inventory.addSubdomain({
      kind: 'subdomain',
      name: 'app.acme.test',
      domain: 'acme.test',
      ips: ['127.0.244.1'],
      cnames: [],
      dangling: false,
      sources: ['test'],
    });
    inventory.addIp('127.0.244.1', 'app.acme.test');
    const url = `http://app.acme.test:${port}`;
    inventory.urls.set(url, { kind: 'url', url, host: 'app.acme.test', port } as UrlAsset);
    const resolver = new DnsResolver({ servers: ['127.0.0.1:9'] });
    const ctx: StageContext = {
      targets: targetValues.map((v) => parseTarget(v)),
      config: {},
      policy: new ScopePolicy({ allowPrivate: true, allow: ['127.0.244.0/24'] }),
      resolver,
      http: undefined as unknown as StageContext['http'],
      fingerprints: undefined as unknown as StageContext['fingerprints'],
      inventory,
      signal: new AbortController().signal,
      isInTarget: (h) => h === 'app.acme.test' || h.startsWith('127.0.244.'),
      report: new StageReport('templates', new ScanCoverage()),
    };
    const stage = createTemplateStage({
      dirs: [dir],
      noBuiltin: true,
      rateLimit: 0,
      timeoutMs: 3000,
      ...(intrusiveAllow ? { intrusiveAllow } : {}),
    });
    const events: ScanEvent[] = [];
    try {
      for await (const e of stage.run(ctx)) events.push(e);
    } finally {
      resolver.close();
    }
    const findings = events.flatMap((e) =>
      e.type === 'finding' ? [(e.finding as { templateId: string }).templateId] : [],
    );
    const skipped = events.find((e) => e.type === 'log' && e.code === 'intrusive_skipped');
    return { findings: findings.sort(), hits: [...hits].sort(), skipped };
  }

  it('a verified domain pointing at an unproven address: only the non-intrusive template runs, and it says so', async () => {
    const r = await run(['acme.test'], []);
    expect(r.hits).toEqual(['/look-around']);
    expect(r.findings).toEqual(['look-around']);
    expect(r.skipped).toMatchObject({
      level: 'info',
      message: expect.stringContaining('app.acme.test (127.0.244.1)'),
    });
  });

  it('the address proven by a verified peer: both run', async () => {
    const r = await run(['acme.test', '127.0.244.1'], []);
    expect(r.hits).toEqual(['/look-around', '/path-traversal']);
    expect(r.skipped).toBeUndefined();
  });

  it('the operator allows the range: both run', async () => {
    expect((await run(['acme.test'], ['127.0.244.0/24'])).hits).toEqual(['/look-around', '/path-traversal']);
  });

  it('without a gate (the engine on its own): both run', async () => {
    expect((await run(['acme.test'], undefined)).hits).toEqual(['/look-around', '/path-traversal']);
  });
});
