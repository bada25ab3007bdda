import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tpl, urlStageContext } from '../../test/template-helpers.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import { createTemplateStage } from './template-stage.ts';

// What the templates stage tells the pipeline when it could not run all of its work: the
// `templates_incomplete` log (counts by reason) and the planned/completed counts of
// `templates_summary` — the data a partial scan is reported from.

let silent: net.Server;
let dir = '';
let port = 0;

const sockets = new Set<net.Socket>();

beforeAll(async () => {
  silent = net.createServer((s) => {
    sockets.add(s);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.205.8', resolve));
  port = (silent.address() as net.AddressInfo).port;
  dir = mkdtempSync(path.join(os.tmpdir(), 'stage-incomplete-'));
  for (let i = 0; i < 12; i++)
    writeFileSync(
      path.join(dir, `t${i}.yaml`),
      tpl(
        `t${i}`,
        `http:\n  - path: ["{{BaseURL}}/p${i}"]\n    matchers:\n      - type: status\n        status: [200]\n`,
      ),
    );
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const contextFor = (url: string) => urlStageContext(url, '127.0.205.8', port);

describe('templates stage on a host that never answers', () => {
  it('finishes every task and says how many were cut short, and why', async () => {
    const stage = createTemplateStage({
      dirs: [dir],
      noBuiltin: true,
      timeoutMs: 300,
      hostErrorBudget: 4,
      rateLimit: 0,
    });
    const logs: Extract<ScanEvent, { type: 'log' }>[] = [];
    for await (const e of stage.run(contextFor(`http://127.0.205.8:${port}/`)))
      if (e.type === 'log') logs.push(e);
    const incomplete = logs.find((l) => l.code === 'templates_incomplete');
    const summary = logs.find((l) => l.code === 'templates_summary');
    expect(incomplete?.level).toBe('warn');
    const data = incomplete?.data ?? {};
    expect(Number(data.request_failed ?? 0) + Number(data.host_unresponsive ?? 0)).toBe(12);
    expect(Number(data.host_unresponsive)).toBeGreaterThan(0);
    expect(incomplete?.message).toMatch(/host skipped after too many failed requests.*of 12 planned/);
    expect(summary?.data).toMatchObject({ planned: 12, completed: 12, unresponsiveHosts: 1 });
    expect(logs.some((l) => l.code === 'host_unresponsive')).toBe(true);
  });
});
