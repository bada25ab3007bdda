import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveNames, subdomainStage } from '../src/discovery/subdomain-stage.ts';
import { DnsResolver, type HostResolution } from '../src/dns/dns-resolver.ts';
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

  describe('resolveNames (the brute force loop)', () => {
    /** A resolver whose lookups end when the test says so; it records what is in flight. */
    function heldResolver(fails: (name: string) => boolean = () => false) {
      const held = new Map<string, () => void>();
      let inFlight = 0;
      let most = 0;
      const asked: string[] = [];
      const resolver = {
        resolveHost(name: string): Promise<HostResolution> {
          asked.push(name);
          most = Math.max(most, ++inFlight);
          return new Promise((resolve, reject) =>
            held.set(name, () => {
              inFlight--;
              if (fails(name)) reject(new Error('lookup failed'));
              else
                resolve({
                  name,
                  addresses: name.startsWith('a') ? ['127.0.0.1'] : [],
                  cnames: [],
                  dangling: false,
                  exists: name.startsWith('a'),
                });
            }),
          );
        },
      };
      /** Ends every lookup in flight, one turn apart, until none is left. */
      const drain = async (stopAfter = Number.POSITIVE_INFINITY) => {
        for (let ended = 0; held.size && ended < stopAfter; ended++) {
          const [name, end] = held.entries().next().value as [string, () => void];
          held.delete(name);
          end();
          await new Promise((r) => setImmediate(r));
        }
      };
      return { resolver, drain, asked, most: () => most, inFlight: () => inFlight };
    }

    it('asks every name once with at most `limit` lookups in flight, and hands each on (null when it failed)', async () => {
      const names = Array.from({ length: 50 }, (_, i) => `${i % 3 ? 'n' : 'a'}${i}.example.test`);
      const r = heldResolver((name) => name.endsWith('7.example.test'));
      const got: [string | null, number][] = [];
      const run = resolveNames(r.resolver, names, 4, undefined, (res, done) => {
        got.push([res ? res.name : null, done]);
      });
      await new Promise((res) => setImmediate(res));
      expect(r.inFlight()).toBe(4);
      await r.drain();
      await run;
      expect(r.most()).toBe(4);
      expect([...r.asked].sort()).toEqual([...names].sort());
      expect(got.map(([, done]) => done)).toEqual(names.map((_n, i) => i + 1));
      // The failed lookups (…7) are handed on as null, the others with their own names.
      expect(got.filter(([n]) => n === null)).toHaveLength(
        names.filter((n) => n.endsWith('7.example.test')).length,
      );
      expect(got.flatMap(([n]) => (n ? [n] : [])).sort()).toEqual(
        names.filter((n) => !n.endsWith('7.example.test')).sort(),
      );
    });

    it("waits for a result's handler before that loop's next name, and starts nothing once aborted", async () => {
      const names = Array.from({ length: 20 }, (_, i) => `n${i}.example.test`);
      const r = heldResolver();
      const abort = new AbortController();
      let release: () => void = () => {};
      const handlerHeld = new Promise<void>((res) => {
        release = res;
      });
      let handled = 0;
      const run = resolveNames(r.resolver, names, 3, abort.signal, () => {
        // The first result's handler waits: its loop must not take another name meanwhile.
        if (++handled === 1) return handlerHeld;
      });
      await new Promise((res) => setImmediate(res));
      await r.drain(1);
      expect(r.inFlight()).toBe(2);
      await r.drain(4);
      expect(r.most()).toBe(3);
      expect(r.inFlight()).toBe(2);
      release();
      await new Promise((res) => setImmediate(res));
      expect(r.inFlight()).toBe(3);
      const askedBefore = r.asked.length;
      abort.abort();
      await r.drain();
      await run;
      expect(r.asked.length).toBe(askedBefore);
      expect(handled).toBe(askedBefore);
    });
  });
});
