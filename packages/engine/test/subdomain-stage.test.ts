import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { subdomainStage } from '../src/discovery/subdomain-stage.ts';
import { DnsResolver } from '../src/dns/dns-resolver.ts';
import type { ScanEvent } from '../src/pipeline/events.ts';
import { Inventory } from '../src/pipeline/inventory.ts';
import type { StageContext } from '../src/pipeline/stage.ts';
import { ScanCoverage, StageReport } from '../src/pipeline/stage-report.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';
import { isWithinDomain, parseTarget } from '../src/scope/targets.ts';
import { answer, fakeServer, REAL } from './dns-fake-servers.ts';

const toClose: { close(): void }[] = [];
afterEach(() => {
  for (const c of toClose.splice(0)) c.close();
});

describe('subdomain stage', () => {
  it('brute-forces while the certificate log is still answering (they do not wait for each other)', async () => {
    // The DNS server knows one name of the wordlist; every other name does not exist.
    const dns = await fakeServer(toClose, '127.0.98.1', (q, send) => {
      const name = q.questions?.[0]?.name;
      send(name === 'bf.example.test' ? answer(q, REAL) : answer(q, REAL, { flags: 3, answers: [] }));
    });
    // The certificate log answers only once the brute force has asked its name: a stage that
    // asked the log first and brute-forced after would get its 503 (after 2 s) instead.
    const ct = http.createServer(async (_req, res) => {
      const until = Date.now() + 2000;
      while (!dns.asked.includes('bf.example.test') && Date.now() < until)
        await new Promise((r) => setTimeout(r, 5));
      if (!dns.asked.includes('bf.example.test')) return res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ name_value: 'ct.example.test' }]));
    });
    await new Promise<void>((r) => ct.listen(0, '127.0.0.1', r));
    toClose.push(ct);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-wordlist-'));
    const wordlistFile = path.join(dir, 'words.txt');
    writeFileSync(wordlistFile, 'bf\nnothing\n');
    const resolver = new DnsResolver({ servers: [dns], timeoutMs: 1000, retries: 0 });
    const ctx = {
      targets: [parseTarget('example.test')],
      config: {
        discovery: {
          bruteforce: false,
          wordlistFile,
          axfr: false,
          ctUrl: `http://127.0.0.1:${(ct.address() as AddressInfo).port}/`,
        },
      },
      policy: new ScopePolicy({ allowPrivate: true }),
      resolver,
      inventory: new Inventory(),
      isInTarget: (h: string) => isWithinDomain(h, 'example.test'),
      report: new StageReport('subdomains', new ScanCoverage()),
      signal: new AbortController().signal,
    } as unknown as StageContext;
    const events: ScanEvent[] = [];
    try {
      for await (const e of subdomainStage().run(ctx)) events.push(e);
    } finally {
      resolver.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(events.flatMap((e) => (e.type === 'log' ? [e.code] : []))).toContain('ct_names');
    expect(Object.fromEntries([...ctx.inventory.pendingNames].map(([n, s]) => [n, [...s]]))).toEqual({
      'example.test': ['target'],
      'bf.example.test': ['bruteforce'],
      'ct.example.test': ['ct'],
    });
  });
});
