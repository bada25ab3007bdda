import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl, urlStageContext } from '../../../test/template-helpers.ts';
import type { ScanEvent } from '../../pipeline/events.ts';
import type { StageContext } from '../../pipeline/stage.ts';
import { createTemplateStage, OOB_NOT_CONFIGURED } from '../../templates/template-stage.ts';
import { MAX_OOB_WAIT_MS, OobCorrelator } from './oob-correlator.ts';
import type { OobInteraction, OobProtocol, OobProvider } from './oob-types.ts';

// Out-of-band checks with an in-memory provider: the test target "calls back" by pushing an
// interaction for the id it finds in the request, as a vulnerable service's DNS lookup would.

const DOMAIN = 'oob.perimeter.test';

class FakeProvider implements OobProvider {
  readonly domain = DOMAIN;
  readonly recorded: OobInteraction[] = [];
  readonly polls: string[][] = [];
  private n = 0;

  newId(): string {
    this.n++;
    return `scan0000000000000000${this.n.toString(36).padStart(13, '0')}`;
  }

  async poll(ids: readonly string[]): Promise<OobInteraction[]> {
    this.polls.push([...ids]);
    const wanted = new Set(ids);
    // Everything so far, every time (the engine de-duplicates).
    return this.recorded.filter((i) => wanted.has(i.id));
  }

  push(name: string, protocol: OobProtocol = 'dns', at = new Date().toISOString()): void {
    const id = name.split('.').find((l) => /^scan0{16}/.test(l)) ?? '';
    this.recorded.push({
      id,
      protocol,
      remoteAddress: '127.0.92.1',
      at,
      rawRequest:
        protocol === 'dns' ? `;${name.toUpperCase()}.\tIN\tA` : `GET / HTTP/1.1\r\nHost: ${name}\r\n\r\n`,
      rawResponse: '',
      ...(protocol === 'dns' ? { qType: 'A' } : {}),
    });
  }
}

const OOB_TEMPLATE = (id: string, route: string) =>
  tpl(
    id,
    `http:
  - method: GET
    path: ["{{BaseURL}}/${route}?u={{interactsh-url}}"]
    matchers-condition: and
    matchers:
      - type: word
        part: interactsh_protocol
        words: [dns]
      - type: status
        status: [200]
    extractors:
      - type: regex
        part: interactsh_request
        group: 1
        regex: ['([a-z0-9]+)\\.oob\\.perimeter\\.test']
`,
    'high',
  );

let provider: FakeProvider;
let server: Awaited<ReturnType<typeof startHttp>>;
const lateTimers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = await startHttp((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const name = url.searchParams.get('u') ?? '';
    const route = url.pathname;
    if (route === '/cb') provider.push(name);
    if (route === '/cb-twice') {
      provider.push(name, 'dns', '2026-01-01T00:00:00.000Z');
      provider.push(name, 'dns', '2026-01-01T00:00:00.000Z');
      provider.push(name, 'http', '2026-01-01T00:00:01.000Z');
    }
    if (route === '/cb-other') provider.push(`x.scan0000000000000000zzzzzzzzzzzzz.${DOMAIN}`);
    if (route === '/slow') {
      // Answers late, and only then "calls back" for the name the earlier request carried.
      const t = setTimeout(() => {
        lateTimers.delete(t);
        provider.push(url.searchParams.get('late') ?? '');
        res.end('ok');
      }, 1500);
      lateTimers.add(t);
      return;
    }
    res.end('ok');
  }, '127.0.92.1');
});

afterAll(async () => {
  for (const t of lateTimers) clearTimeout(t);
  await server.close();
});

describe('out-of-band templates', () => {
  it('match on the call-back, with the normal parts (matchers-condition and), and carry it as evidence', async () => {
    provider = new FakeProvider();
    const t = compileOrThrow(OOB_TEMPLATE('oob-match', 'cb'));
    const { findings, scanner } = await scanAll([t], [server.url], { oob: { provider, waitMs: 3000 } });
    expect(findings).toHaveLength(1);
    const f = findings[0];
    expect(f?.templateId).toBe('oob-match');
    expect(f?.evidence?.interactions?.[0]).toMatchObject({ protocol: 'dns', qType: 'A' });
    expect(f?.evidence?.late).toBeUndefined();
    // The extractor read the (lowercased) DNS request: the id the request carried.
    expect(f?.extracted[0]).toMatch(/^scan0{16}[0-9a-z]{13}$/);
    expect(f?.evidence?.request).toContain(`${f?.extracted[0]}.${DOMAIN}`);
    expect(scanner.summary.findings).toBe(1);
  });

  it('report nothing when no call-back comes (or one for another id), and wait no longer than asked', async () => {
    provider = new FakeProvider();
    const started = Date.now();
    const { findings } = await scanAll(
      [
        compileOrThrow(OOB_TEMPLATE('oob-none', 'none')),
        compileOrThrow(OOB_TEMPLATE('oob-other', 'cb-other')),
      ],
      [server.url],
      { oob: { provider, waitMs: 300, pollIntervalMs: 50 } },
    );
    expect(findings).toEqual([]);
    // Bounded: the wait (0.3 s) plus the requests, far below a stuck wait.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(provider.polls.length).toBeGreaterThan(0);
  });

  it('bounds the configured wait', () => {
    const p = new FakeProvider();
    expect(new OobCorrelator(p, { waitMs: 10 * 60_000 }).waitMs).toBe(MAX_OOB_WAIT_MS);
    expect(new OobCorrelator(p, { waitMs: -5 }).waitMs).toBe(0);
    expect(new OobCorrelator(p).waitMs).toBe(5000);
  });

  it('de-duplicates repeated interactions: one finding, each call-back once in the evidence', async () => {
    provider = new FakeProvider();
    const t = compileOrThrow(OOB_TEMPLATE('oob-dup', 'cb-twice').replace('words: [dns]', 'words: [http]'));
    const { findings } = await scanAll([t], [server.url], {
      oob: { provider, waitMs: 3000, pollIntervalMs: 50 },
    });
    expect(findings).toHaveLength(1);
    const interactions = findings[0]?.evidence?.interactions ?? [];
    expect(interactions.map((i) => i.protocol)).toEqual(['dns', 'http']);
  });

  it('reports a call-back that came after the wait at the end of the stage, marked late', async () => {
    provider = new FakeProvider();
    const early = compileOrThrow(OOB_TEMPLATE('oob-late', 'none'));
    // A slow check runs on while the first one's wait ends; its target then calls back for the
    // first check's name.
    const slow = compileOrThrow(
      tpl(
        'slow-check',
        `http:\n  - path: ["{{BaseURL}}/slow?late={{name}}"]\n    matchers:\n      - type: word\n        words: [never-there]\n`,
      ),
    );
    // The slow check learns the first check's name through a variable filled in by the test.
    let firstName = '';
    const seen = provider.newId.bind(provider);
    provider.newId = () => {
      const id = seen();
      if (!firstName) firstName = `${id}.${DOMAIN}`;
      return id;
    };
    slow.variables = [['name', '']];
    const { TemplateScanner } = await import('../../templates/template-scanner.ts');
    const { defaultExecutors } = await import('../index.ts');
    const scanner = new TemplateScanner(defaultExecutors, {
      rateLimit: 0,
      timeoutMs: 5000,
      concurrency: 2,
      oob: { provider, waitMs: 200, pollIntervalMs: 50 },
    });
    const findings = [];
    const jobs = (function* () {
      yield { template: early, input: server.url };
      slow.variables = [['name', firstName]];
      yield { template: slow, input: server.url };
    })();
    for await (const f of scanner.run(jobs)) findings.push(f);
    await scanner.close();
    expect(findings).toHaveLength(1);
    expect(findings[0]?.templateId).toBe('oob-late');
    expect(findings[0]?.evidence?.late).toBe(true);
    expect(scanner.summary.oobLate).toBe(1);
  });

  it('keeps at most 256 waiting responses of one run (a long payload loop), and says so once', async () => {
    provider = new FakeProvider();
    const values = Array.from({ length: 300 }, (_, i) => `"${i}"`).join(', ');
    const t = compileOrThrow(
      OOB_TEMPLATE('oob-loop', 'none').replace(
        '    matchers-condition: and',
        `    payloads:\n      p: [${values}]\n    matchers-condition: and`,
      ),
    );
    const warnings: string[] = [];
    const { findings, scanner } = await scanAll([t], [server.url], {
      oob: { provider, waitMs: 200, pollIntervalMs: 50 },
      log: (level, message) => {
        if (level === 'warn') warnings.push(message);
      },
    });
    expect(scanner.summary.requests).toBe(300);
    expect(findings).toEqual([]);
    expect(warnings.filter((w) => w.includes('wait for call-backs'))).toHaveLength(1);
    expect(Math.max(...provider.polls.map((p) => p.length))).toBe(256);
  });

  it('keeps many runs waiting at once with one batched poll loop, not a slot or a timer each', async () => {
    provider = new FakeProvider();
    const templates = Array.from({ length: 120 }, (_, i) =>
      compileOrThrow(OOB_TEMPLATE(`oob-many-${i}`, 'none')),
    );
    const waitMs = 1000;
    const started = Date.now();
    const { findings } = await scanAll(templates, [server.url], {
      concurrency: 10,
      oob: { provider, waitMs, pollIntervalMs: 100 },
    });
    const elapsed = Date.now() - started;
    expect(findings).toEqual([]);
    // Holding a task slot through each wait would take 120 / 10 × 1 s = 12 s at least.
    expect(elapsed).toBeLessThan((120 / 10) * waitMs);
    // Each poll asks for many runs' ids together.
    const most = Math.max(...provider.polls.map((p) => p.length));
    expect(most).toBeGreaterThan(10);
    expect(provider.polls.length).toBeLessThan(120);
  });
});

describe('templates stage and out-of-band templates', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'oob-stage-'));
    writeFileSync(path.join(dir, 'oob.yaml'), OOB_TEMPLATE('oob-stage', 'cb'));
    writeFileSync(
      path.join(dir, 'plain.yaml'),
      tpl(
        'plain',
        `http:\n  - path: ["{{BaseURL}}/"]\n    matchers:\n      - type: word\n        words: [ok]\n`,
      ),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const contextFor = (config: StageContext['config']) =>
    urlStageContext(server.url, '127.0.92.1', server.port, config);

  async function runStage(ctx: StageContext) {
    const stage = createTemplateStage({ dirs: [dir], noBuiltin: true, rateLimit: 0, timeoutMs: 3000 });
    const events: ScanEvent[] = [];
    for await (const e of stage.run(ctx)) events.push(e);
    return events;
  }

  it('skips them at run time with a counted reason when the scan has no interaction server', async () => {
    const ctx = contextFor({});
    const events = await runStage(ctx);
    const logs = events.flatMap((e) => (e.type === 'log' ? [e] : []));
    expect(logs.find((l) => l.code === 'template_skipped')?.data).toEqual({
      count: 1,
      reason: OOB_NOT_CONFIGURED,
    });
    expect(ctx.report.skipped).toEqual([{ reason: OOB_NOT_CONFIGURED, count: 1, examples: ['oob-stage'] }]);
    const summary = logs.find((l) => l.code === 'templates_summary');
    expect(summary?.data).toMatchObject({ templates: 1, skipped: 1, oobSkipped: 1 });
    expect(String(summary?.data?.skippedReasons)).toContain(`${OOB_NOT_CONFIGURED}: 1`);
    const found = events.flatMap((e) =>
      e.type === 'finding' && 'templateId' in e.finding ? [e.finding.templateId] : [],
    );
    expect(found).toEqual(['plain']);
  });

  it('runs them with the scan configuration’s provider', async () => {
    provider = new FakeProvider();
    const ctx = contextFor({ oob: { provider, waitMs: 3000 } });
    const events = await runStage(ctx);
    const ids = events.flatMap((e) =>
      e.type === 'finding' && 'templateId' in e.finding ? [e.finding.templateId] : [],
    );
    expect(ids.sort()).toEqual(['oob-stage', 'plain']);
    expect(ctx.report.skipped).toEqual([]);
  });
});
