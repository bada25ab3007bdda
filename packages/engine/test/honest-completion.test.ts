import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFindingStages } from '../src/findings/finding-stages.ts';
import { scan } from '../src/pipeline/scan.ts';
import type { ScanConfig } from '../src/pipeline/scan-config.ts';
import type { Stage } from '../src/pipeline/stage.ts';
import { ScanCoverage, StageReport } from '../src/pipeline/stage-report.ts';
import { defaultExecutors } from '../src/protocols/index.ts';
import { compileTemplateSource } from '../src/templates/template-compile.ts';
import { TemplateScanner } from '../src/templates/template-scanner.ts';
import { BUILTIN_TEMPLATES_DIR, scopeOfInput } from '../src/templates/template-stage.ts';
import { REPO_ROOT } from './helpers.ts';
import { collectScan } from './scan-events.ts';

/**
 * Honest completion: a stage ended by its watchdog or time limit, or one that could not finish
 * its checks, makes the scan partial with what was skipped and why. No lab: a DNS server on
 * 127.0.91.53 that never answers stands for a resolver under load.
 */
let silent: dgram.Socket;
let templatesDir: string;
beforeAll(async () => {
  silent = dgram.createSocket('udp4');
  silent.on('message', () => {});
  await new Promise<void>((r) => silent.bind(0, '127.0.91.53', () => r()));
  templatesDir = mkdtempSync(path.join(tmpdir(), 'perimeter-partial-'));
  copyFileSync(
    path.join(BUILTIN_TEMPLATES_DIR, 'dns/dmarc-policy-none.yaml'),
    path.join(templatesDir, 'dmarc-policy-none.yaml'),
  );
});
afterAll(() => {
  silent?.close();
  rmSync(templatesDir, { recursive: true, force: true });
});

const config = (extra: Partial<ScanConfig>): ScanConfig => ({
  dns: { servers: [`127.0.91.53:${silent.address().port}`], timeoutMs: 150, retries: 0 },
  scope: { allowPrivate: true, allow: ['127.0.91.0/24'] },
  discovery: { bruteforce: false, axfr: false },
  ports: { list: [1] },
  ...extra,
});

describe('honest completion', () => {
  it('a stage its watchdog ends is partial: planned, ran and what was left, with the reason', async () => {
    const stuck: Stage = {
      name: 'dns-checks',
      class: 'class_exploitation',
      async *run(ctx) {
        ctx.report.plan(10);
        for (let i = 0; i < 3; i++) {
          ctx.report.done();
          ctx.report.checked('check', `h${i}.partial.test`, true);
          yield { type: 'progress', stage: 'dns-checks', done: i + 1, total: 10 };
        }
        await new Promise(() => {});
      },
    };
    const coverage = new ScanCoverage();
    const r = await collectScan(
      scan('127.0.91.1', config({ watchdogMs: 300, extraStages: [stuck] }), { coverage }),
    );
    expect(r.summary?.partial).toBe(true);
    const stage = r.summary?.stages.find((s) => s.name === 'dns-checks');
    expect(stage).toMatchObject({
      status: 'stalled',
      reason: 'no progress for 300 ms',
      planned: 10,
      ran: 3,
      partial: true,
      skipped: [{ reason: 'not run: no progress for 300 ms', count: 7, examples: [] }],
    });
    // Discovery stages that finished are not partial.
    expect(r.summary?.stages.find((s) => s.name === 'ports')).toMatchObject({ partial: false });
    expect(r.events.some((e) => e.type === 'log' && e.code === 'stage_partial')).toBe(true);
    expect(coverage.isDecided('dns-checks', 'check', 'H1.partial.test')).toBe(true);
    expect(coverage.isDecided('dns-checks', 'check', 'h7.partial.test')).toBe(false);
  });

  it('a stage its time limit ends is partial with the limit as the reason', async () => {
    const slow: Stage = {
      name: 'ports-deep',
      class: 'class_exploitation',
      timeoutMs: 300,
      async *run(ctx) {
        ctx.report.plan(1000);
        while (!ctx.signal.aborted) {
          ctx.report.done();
          yield { type: 'progress', stage: 'ports-deep', done: ctx.report.ran, total: 1000 };
          await new Promise((r) => setTimeout(r, 20));
        }
      },
    };
    const r = await collectScan(scan('127.0.91.1', config({ extraStages: [slow] })));
    const stage = r.summary?.stages.find((s) => s.name === 'ports-deep');
    expect(stage).toMatchObject({ status: 'timeout', reason: 'time limit 300 ms reached', partial: true });
    expect(stage?.ran).toBeGreaterThan(0);
    expect(stage?.ran).toBeLessThan(1000);
    expect(stage?.skipped).toEqual([
      { reason: 'not run: time limit 300 ms reached', count: 1000 - (stage?.ran ?? 0), examples: [] },
    ]);
    expect(r.summary?.partial).toBe(true);
  });

  it('a stage its time limit ends is a timeout even when the wall clock stepped back meanwhile', async () => {
    // Timers run on the monotonic clock, Date.now() on the wall clock (an NTP step, or the
    // millisecond each rounds off): when the limit's timer fires, the wall clock may not have
    // reached the deadline yet. Here it steps back 50 ms while the stage waits.
    const realNow = Date.now.bind(Date);
    const waiting: Stage = {
      name: 'clock-step',
      class: 'class_exploitation',
      timeoutMs: 300,
      async *run(ctx) {
        ctx.report.plan(2);
        ctx.report.done();
        yield { type: 'progress', stage: 'clock-step', done: 1, total: 2 };
        vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 50);
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      },
    };
    try {
      const r = await collectScan(scan('127.0.91.1', config({ extraStages: [waiting], watchdogMs: 60_000 })));
      const stage = r.summary?.stages.find((s) => s.name === 'clock-step');
      expect(stage).toMatchObject({
        status: 'timeout',
        reason: 'time limit 300 ms reached',
        partial: true,
        ran: 1,
      });
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('an HTTP service that stops answering is skipped with the reason, and the scan is partial', async () => {
    // It answers the port scan's service probes as HTTP (`User-Agent:`), then holds the HTTP
    // prober's request (undici writes `user-agent:`) unanswered.
    const held: net.Socket[] = [];
    const server = net.createServer((socket) => {
      socket.once('data', (data) => {
        if (data.toString('latin1').includes('\r\nuser-agent: '))
          held.push(socket); // undici's request
        else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.91.1', () => r()));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const r = await collectScan(
        scan('127.0.91.1', config({ ports: { list: [port] }, http: { timeoutMs: 300 }, extraStages: [] })),
      );
      const stage = r.summary?.stages.find((s) => s.name === 'http');
      expect(stage).toMatchObject({
        status: 'done',
        planned: 1,
        ran: 0,
        partial: true,
        skipped: [
          {
            reason: expect.stringMatching(/^no answer: /),
            count: 1,
            examples: [`http://127.0.91.1:${port}/`],
          },
        ],
      });
      expect(r.summary?.partial).toBe(true);
      expect(held.length).toBeGreaterThan(0);
    } finally {
      for (const s of held) s.destroy();
      server.close();
    }
  });

  it('a scan where every stage finished is not partial', async () => {
    const r = await collectScan(scan('127.0.91.1', config({ extraStages: [] })));
    expect(r.summary?.partial).toBe(false);
    expect(r.summary?.stages.every((s) => !s.partial && s.skipped.length === 0)).toBe(true);
  });

  it('a DNS template that times out is skipped with its reason and leaves its check undecided', async () => {
    const coverage = new ScanCoverage();
    const r = await collectScan(
      scan(
        'partial.test',
        config({
          subclasses: ['exploit_scanner'],
          extraStages: createFindingStages({
            templates: { noBuiltin: true, dirs: [templatesDir], timeoutMs: 300 },
          }),
        }),
        { coverage },
      ),
    );
    const stage = r.summary?.stages.find((s) => s.name === 'templates');
    expect(stage).toMatchObject({ status: 'done', planned: 1, ran: 0, partial: true });
    expect(stage?.skipped).toEqual([
      {
        reason: expect.stringMatching(/^check failed: .*timeout/),
        count: 1,
        examples: ['dmarc-policy-none on partial.test'],
      },
    ]);
    expect(r.summary?.partial).toBe(true);
    // Unanswered is not "does not exist": discovery says it could not resolve the name.
    expect(r.summary?.stages.find((s) => s.name === 'dns')).toMatchObject({
      partial: true,
      skipped: [{ reason: 'name not resolved: ETIMEOUT', count: 1, examples: ['partial.test'] }],
    });
    expect(coverage.tracks('templates')).toBe(true);
    expect(coverage.isDecided('templates', 'dmarc-policy-none', 'partial.test')).toBe(false);
  });

  it('perimeter-scan prints PARTIAL with the reason and exits with status 3', async () => {
    const bin = path.join(REPO_ROOT, 'packages/engine/bin/perimeter-scan.mjs');
    const args = [
      bin,
      'partial.test',
      '--dns-server',
      `127.0.91.53:${silent.address().port}`,
      '--resources-only',
      '--ports',
      '1',
      '--no-bruteforce',
      '--allow-private',
    ];
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, args, { cwd: REPO_ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/PARTIAL in /);
    expect(r.stderr).toMatch(/PARTIAL: dns: .*name not resolved: ETIMEOUT/);
  }, 60_000);

  it('templates skipped because their DNS server spent its error budget are errors, not answers', async () => {
    const source = readFileSync(path.join(BUILTIN_TEMPLATES_DIR, 'dns/dmarc-policy-none.yaml'), 'utf8');
    const templates = ['a', 'b', 'c'].map((x) => {
      const r = compileTemplateSource(source.replace('id: dmarc-policy-none', `id: dmarc-${x}`), `${x}.yaml`);
      if (r.status !== 'ok') throw new Error(`template ${x}: ${r.status}`);
      return r.template;
    });
    const scanner = new TemplateScanner(defaultExecutors, {
      dnsServers: [{ host: '127.0.91.53', port: silent.address().port }],
      timeoutMs: 150,
      concurrency: 1,
      hostErrorBudget: 1,
      rateLimit: 0,
    });
    const tasks: { id: string; errors: string[] }[] = [];
    for await (const item of scanner.runWithProgress(
      templates.map((template) => ({ template, input: 'partial.test' })),
    ))
      if (item.kind === 'task') tasks.push({ id: item.job.template.id, errors: item.errors });
    await scanner.close();
    expect(tasks.map((t) => t.id)).toEqual(['dmarc-a', 'dmarc-b', 'dmarc-c']);
    expect(tasks[0]?.errors.join()).toMatch(/timeout/);
    for (const t of tasks.slice(1)) expect(t.errors.join()).toMatch(/skipped: error budget exhausted/);
  });

  it('a report folds skips by reason and an undecided check never turns decided', () => {
    const coverage = new ScanCoverage();
    const report = new StageReport('templates', coverage);
    report.plan(4);
    report.skip('check failed: timeout', 1, 'a on x');
    report.skip('check failed: timeout', 1, 'a on x');
    report.checked('a', 'x', false);
    report.checked('a', 'x', true);
    expect(report.skipped).toEqual([{ reason: 'check failed: timeout', count: 2, examples: ['a on x'] }]);
    expect(coverage.isDecided('templates', 'a', 'x')).toBe(false);
    expect(scopeOfInput('https://WWW.acme.test:8443/x?y')).toBe('www.acme.test');
    expect(scopeOfInput('[::1]:80')).toBe('::1');
    expect(scopeOfInput('db.acme.test:5432')).toBe('db.acme.test');
    expect(scopeOfInput('acme.test')).toBe('acme.test');
  });
});
