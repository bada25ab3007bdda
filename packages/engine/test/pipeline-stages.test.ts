import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateFinding } from '../src/findings/types.ts';
import { scan, selectStages } from '../src/pipeline/scan.ts';
import type { ScanConfig } from '../src/pipeline/scan-config.ts';
import type { Stage, StageContext } from '../src/pipeline/stage.ts';
import { labScanConfig, startTestLab } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

import { collectScan } from './scan-events.ts';

let lab: Lab;
beforeAll(async () => {
  lab = await startTestLab(47);
});
afterAll(async () => {
  await lab?.stop();
});

function finding(host: string): TemplateFinding {
  return {
    subclass: 'exploit_scanner',
    fingerprint: `test|${host}`,
    templateId: 'test-template',
    name: 'Test',
    severity: 'info',
    severityOrdering: 1,
    host,
    mainDomain: 'acme.test',
    subdomain: host,
    matchedAt: `http://${host}/`,
    extracted: [],
    references: [],
    tags: [],
  };
}

const seenBy: Record<string, StageContext['inventory'] | undefined> = {};
const templateStage: Stage = {
  name: 'templates',
  class: 'class_exploitation',
  subclass: 'exploit_scanner',
  async *run(ctx) {
    seenBy.templates = ctx.inventory;
    for (const e of ctx.inventory.endpoints.values()) yield { type: 'finding', finding: finding(e.host) };
  },
};
const leakStage: Stage = {
  name: 'leaks',
  class: 'class_information_gathering',
  subclass: 'leakcheck',
  async *run(ctx) {
    seenBy.leaks = ctx.inventory;
    yield { type: 'log', level: 'info', stage: 'leaks', message: 'looked up' };
  },
};

describe('pluggable stages', () => {
  const base = (): ScanConfig => ({
    ...labScanConfig(lab),
    discovery: { bruteforce: false, axfr: false },
    extraStages: [templateStage, leakStage],
  });

  it('selects stages by class and subclass', () => {
    const extra = [templateStage, leakStage];
    expect(selectStages({ extraStages: extra }).map((s) => s.name)).toEqual(['templates', 'leaks']);
    expect(selectStages({ extraStages: extra, classes: ['class_exploitation'] }).map((s) => s.name)).toEqual([
      'templates',
    ]);
    expect(selectStages({ extraStages: extra, subclasses: ['leakcheck'] }).map((s) => s.name)).toEqual([
      'leaks',
    ]);
    expect(selectStages({ extraStages: extra, classes: ['class_resources'] })).toEqual([]);
  });

  it('gives extra stages what discovery found and passes their findings through', async () => {
    const r = await collectScan(scan('acme.test', { ...base(), subclasses: ['exploit_scanner'] }));
    expect(seenBy.templates?.services.size).toBeGreaterThan(0);
    expect([...(seenBy.templates?.technologies.values() ?? [])].map((t) => t.name)).toContain('Nginx');
    expect([...(seenBy.templates?.emails.keys() ?? [])]).toContain('hostmaster@acme.test');
    expect(seenBy.leaks).toBeUndefined();
    const findings = r.events.filter((e) => e.type === 'finding');
    expect(findings).toEqual([{ type: 'finding', finding: finding('acme.test') }]);
    expect(r.summary?.counts.findings).toBe(1);
  });

  it('runs the finding stages at once; their logs and progress still come one stage after the other', async () => {
    let leaksStarted: () => void = () => {};
    const started = new Promise<void>((r) => {
      leaksStarted = r;
    });
    // The templates stage ends only once the leak stage has started (or says it waited 2 s in vain).
    const waiting: Stage = {
      ...templateStage,
      async *run() {
        yield { type: 'progress', stage: 'templates', done: 0, total: 1 };
        const saw = await Promise.race([started.then(() => true), sleep(2000).then(() => false)]);
        yield {
          type: 'log',
          level: 'info',
          stage: 'templates',
          message: saw ? 'leaks running' : 'leaks not started',
        };
        yield { type: 'progress', stage: 'templates', done: 1, total: 1 };
      },
    };
    const early: Stage = {
      ...leakStage,
      async *run() {
        leaksStarted();
        yield { type: 'log', level: 'info', stage: 'leaks', message: 'looked up' };
        yield { type: 'finding', finding: { ...finding('acme.test'), subclass: 'leakcheck' } as never };
      },
    };
    const r = await collectScan(scan('acme.test', { ...base(), extraStages: [waiting, early] }));
    const told = r.events.flatMap((e) =>
      (e.type === 'log' || e.type === 'progress') && (e.stage === 'templates' || e.stage === 'leaks')
        ? [e.type === 'log' ? `${e.stage}: ${e.message}` : `${e.stage} progress`]
        : [],
    );
    expect(told).toEqual([
      'templates progress',
      'templates: leaks running',
      'templates progress',
      'leaks: looked up',
    ]);
    // The leak finding did not wait for the templates stage to end.
    const at = (pick: (e: (typeof r.events)[number]) => boolean) => r.events.findIndex(pick);
    expect(at((e) => e.type === 'finding')).toBeLessThan(
      at((e) => e.type === 'log' && e.message === 'leaks running'),
    );
    expect(r.summary?.stages.slice(-2).map((s) => [s.name, s.status])).toEqual([
      ['templates', 'done'],
      ['leaks', 'done'],
    ]);
    expect(r.summary?.counts.findings).toBe(1);
  });

  it('a stalled stage is ended by the watchdog and a failing one is recorded; the scan goes on', async () => {
    const stalled: Stage = {
      name: 'stuck',
      class: 'class_exploitation',
      async *run() {
        await new Promise(() => {});
      },
    };
    const failing: Stage = {
      name: 'broken',
      class: 'class_exploitation',
      // biome-ignore lint/correctness/useYield: a stage that fails before yielding
      async *run() {
        throw new Error('boom');
      },
    };
    const r = await collectScan(
      scan('acme.test', { ...base(), watchdogMs: 300, extraStages: [stalled, failing, leakStage] }),
    );
    const stages = r.summary?.stages ?? [];
    expect(stages.find((s) => s.name === 'stuck')).toMatchObject({
      status: 'stalled',
      reason: 'no progress for 300 ms',
    });
    expect(stages.find((s) => s.name === 'broken')).toMatchObject({ status: 'failed', reason: 'boom' });
    expect(stages.find((s) => s.name === 'leaks')).toMatchObject({ status: 'done' });
    expect(r.events.some((e) => e.type === 'log' && e.code === 'stage_stalled')).toBe(true);
  });

  it('a stage over its time limit is ended', async () => {
    const slow: Stage = {
      name: 'slow',
      class: 'class_exploitation',
      timeoutMs: 300,
      async *run(ctx) {
        while (!ctx.signal.aborted) {
          yield { type: 'progress', stage: 'slow', done: 0, total: 1 };
          await new Promise((r) => setTimeout(r, 50));
        }
      },
    };
    const r = await collectScan(scan('acme.test', { ...base(), extraStages: [slow] }));
    expect(r.summary?.stages.find((s) => s.name === 'slow')).toMatchObject({ status: 'timeout' });
  });

  it('scans peer and network targets', async () => {
    const r = await collectScan(
      scan([lab.address(10), `${lab.subnet}.16/31`], { ...labScanConfig(lab), extraStages: [] }),
    );
    const services = r.assets.flatMap((a) => (a.kind === 'service' ? [`${a.ip}:${a.port}`] : []));
    expect(services.sort()).toEqual(
      [
        `${lab.address(10)}:${lab.portMap[80]}`,
        `${lab.address(16)}:${lab.portMap[22]}`,
        `${lab.address(17)}:${lab.portMap[21]}`,
      ].sort(),
    );
    expect(
      r.assets.some(
        (a) =>
          a.kind === 'url' &&
          a.url === `http://${lab.address(10)}${lab.portMap[80] === 80 ? '' : `:${lab.portMap[80]}`}/`,
      ),
    ).toBe(true);
  });

  it('applies the subdomain and host limits and says so', async () => {
    const r = await collectScan(
      scan('acme.test', {
        ...labScanConfig(lab),
        discovery: { wordlistLimit: 60, axfr: false },
        limits: { maxSubdomains: 4, maxHosts: 2 },
      }),
    );
    expect(r.assets.filter((a) => a.kind === 'subdomain')).toHaveLength(4);
    expect(r.assets.filter((a) => a.kind === 'ip')).toHaveLength(2);
    const codes = r.events.flatMap((e) => (e.type === 'log' && e.code ? [e.code] : []));
    expect(codes).toContain('subdomain_limit');
    expect(codes).toContain('host_limit');
    expect(r.summary?.skippedHosts.some((h) => h.reason === 'host limit 2 reached')).toBe(true);
    expect(r.summary?.skippedHosts.find((h) => h.code === 'host_limit')?.params).toEqual({ max: 2 });
  });

  it('brute-forces labels from an operator wordlist file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wl-'));
    const file = path.join(dir, 'words.txt');
    writeFileSync(file, '# ours\nintranet-portal\nnot-there\n');
    const r = await collectScan(
      scan('acme.test', {
        ...labScanConfig(lab),
        discovery: { bruteforce: false, axfr: false, wordlistFile: file },
        ports: { list: [1] },
      }),
    );
    const names = r.assets.flatMap((a) => (a.kind === 'subdomain' ? [a.name] : []));
    expect(names.sort()).toEqual(['acme.test', 'intranet-portal.acme.test']);
  });
});
