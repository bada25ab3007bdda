import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanEvent } from '../src/pipeline/events.ts';
import { scan } from '../src/pipeline/scan.ts';
import { labScanConfig, startTestLab } from './helpers.ts';

let lab: Lab;
beforeAll(async () => {
  lab = await startTestLab(46);
});
afterAll(async () => {
  await lab?.stop();
});

async function abortWhen(
  events: AsyncIterable<ScanEvent>,
  ac: AbortController,
  when: (e: ScanEvent) => boolean,
): Promise<{ endedMs: number; seen: ScanEvent[] }> {
  const seen: ScanEvent[] = [];
  let abortedAt = 0;
  for await (const e of events) {
    seen.push(e);
    if (!abortedAt && when(e)) {
      abortedAt = Date.now();
      ac.abort();
    }
  }
  return { endedMs: Date.now() - abortedAt, seen };
}

describe('cancellation', () => {
  it('ends within 2 s when aborted during subdomain brute force, with a summary of partial results', async () => {
    const ac = new AbortController();
    const { endedMs, seen } = await abortWhen(
      scan(lab.domains, labScanConfig(lab), { signal: ac.signal }),
      ac,
      (e) => e.type === 'progress' && e.stage === 'subdomains' && e.done > 100,
    );
    expect(endedMs).toBeLessThan(2000);
    const last = seen.at(-1);
    expect(last?.type).toBe('summary');
    if (last?.type === 'summary') {
      expect(last.summary.aborted).toBe(true);
      expect(last.summary.stages[0]).toMatchObject({ name: 'subdomains', status: 'aborted' });
    }
  });

  it('ends within 2 s when aborted during a slow port scan', async () => {
    const ac = new AbortController();
    const config = labScanConfig(lab, {
      discovery: { bruteforce: false, axfr: false },
      ports: { list: 'all', ratePerHost: 2000 },
    });
    const { endedMs, seen } = await abortWhen(
      scan('acme.test', config, { signal: ac.signal }),
      ac,
      (e) => e.type === 'asset' && e.asset.kind === 'ip',
    );
    expect(endedMs).toBeLessThan(2000);
    expect(seen.at(-1)).toMatchObject({ type: 'summary', summary: { aborted: true } });
  });
});
