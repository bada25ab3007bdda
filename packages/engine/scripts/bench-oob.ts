/**
 * Out-of-band waiting at scale: 10,000 template runs waiting for call-backs at once through
 * one OobCorrelator, with an in-memory provider. Prints the memory the pending runs hold, the
 * poll calls made and how long a batched poll and the evaluation of call-backs take.
 *
 *   npx tsx packages/engine/scripts/bench-oob.ts [runs]
 */
import { loadavg } from 'node:os';
import type { TemplateFinding } from '../src/findings/types.ts';
import { OobCorrelator, type OobPending } from '../src/protocols/oob/oob-correlator.ts';
import type { OobInteraction, OobProvider } from '../src/protocols/oob/oob-types.ts';

const runs = Number(process.argv[2] ?? 10_000);
const recorded = new Map<string, OobInteraction>();
let pollMs = 0;
let polled = 0;
let n = 0;
const provider: OobProvider = {
  domain: 'oob.bench.test',
  newId: () => `bench000000000000000${(n++).toString(36).padStart(13, '0')}`,
  async poll(ids) {
    const t = performance.now();
    const out: OobInteraction[] = [];
    for (const id of ids) {
      const i = recorded.get(id);
      if (i) out.push(i);
    }
    polled += ids.length;
    pollMs += performance.now() - t;
    return out;
  },
};

function pending(id: string): OobPending {
  let matched = false;
  return {
    ids: [id],
    isSettled: () => matched,
    evaluate(list) {
      if (!list.some((i) => i.protocol === 'dns')) return [];
      matched = true;
      return [
        {
          templateId: 'bench',
          evidence: { request: '', response: '', curl: '', interactions: list },
        } as unknown as TemplateFinding,
      ];
    },
  };
}

global.gc?.();
const before = process.memoryUsage().heapUsed;
const correlator = new OobCorrelator(provider, { waitMs: 3000, pollIntervalMs: 500 });
const ids: string[] = [];
const started = performance.now();
const waits = Array.from({ length: runs }, () => {
  const id = correlator.newId();
  ids.push(id);
  return correlator.watch(pending(id));
});
const held = process.memoryUsage().heapUsed - before;
// Half the runs get a call-back.
for (const id of ids.slice(0, runs / 2))
  recorded.set(id, {
    id,
    protocol: 'dns',
    remoteAddress: '127.0.0.1',
    at: new Date().toISOString(),
    rawRequest: `;${id}.oob.bench.test. IN A`,
    rawResponse: '',
    qType: 'A',
  });
const results = await Promise.all(waits);
const late = await correlator.finish();
const elapsed = performance.now() - started;
console.log(`out-of-band waiting, ${runs} runs (load ${loadavg()[0]?.toFixed(1)})`);
console.log(
  `  heap held by the pending runs: ${(held / 1024 / 1024).toFixed(1)} MiB (${Math.round(held / runs)} B a run)`,
);
console.log(`  poll calls: ${correlator.polls}, ids asked: ${polled}, provider time ${pollMs.toFixed(1)} ms`);
console.log(
  `  matched: ${results.filter((r) => r.length > 0).length}, late: ${late.length}, total ${(elapsed / 1000).toFixed(2)} s (wait 3 s)`,
);
