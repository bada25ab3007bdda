/**
 * Child process of live-set.test.ts (run with --expose-gc): scans `hosts` name-based hosts (all
 * at the given address, the test's web server) with a few synthetic templates at the engine's
 * default concurrency, and samples the live set — the heap used right after a forced full
 * collection — every `step` finished tasks. Prints one JSON line.
 * Usage: node --expose-gc --import tsx live-set-child.ts <ip> <port> <hosts>
 */
import { defaultExecutors } from '../src/protocols/index.ts';
import { compileTemplateSource } from '../src/templates/template-compile.ts';
import { batchedJobs, TemplateScanner } from '../src/templates/template-scanner.ts';
import type { CompiledTemplate } from '../src/templates/template-types.ts';

const [ip = '127.0.0.1', port = '80', hostsArg = '100'] = process.argv.slice(2);
const hosts = Number(hostsArg);
const step = 50;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

// Matchers, extractors, payloads and redirects: the per-request path a real template takes.
const templates: CompiledTemplate[] = Array.from({ length: 4 }, (_v, i) => {
  const r = compileTemplateSource(
    `id: live-${i}
info:
  name: live ${i}
  severity: info
http:
  - method: GET
    path: ["{{BaseURL}}/p${i}?q={{v}}"]
    payloads:
      v: ["a${i}"]
    redirects: true
    matchers-condition: and
    matchers:
      - type: word
        words: ["Acme ${i % 3}"]
      - type: status
        status: [200]
    extractors:
      - type: regex
        regex: ["token-[0-9]+"]
`,
    `live-${i}.yaml`,
  );
  if (r.status !== 'ok') throw new Error(`template ${i} invalid`);
  return r.template;
});

const scanner = new TemplateScanner(defaultExecutors, {
  rateLimit: 0,
  timeoutMs: 10_000,
  resolve: (h) => (h.endsWith('.live.test') ? ip : undefined),
});
const inputs = Array.from({ length: hosts }, (_v, i) => `http://h${i}.live.test:${port}`);
const samples: number[] = [];
let tasks = 0;
let findings = 0;
// The scanner's own order (hosts in batches), as `scan()` builds it.
for await (const item of scanner.runWithProgress(batchedJobs(templates, inputs, scanner.batchSize()))) {
  if (item.kind === 'finding') findings++;
  else if (++tasks % step === 0) {
    gc();
    samples.push(process.memoryUsage().heapUsed);
  }
}
await scanner.close();
process.stdout.write(
  `${JSON.stringify({ hosts, tasks, findings, requests: scanner.summary.requests, errors: scanner.summary.errors, samples })}\n`,
);
