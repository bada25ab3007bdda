/**
 * CPU time and young-generation collections (scavenges) per request of the template engine's HTTP
 * path, against the lab in its own process (`lab`: the engine, a raw undici loop and the engine's
 * HttpClient alone, interleaved, the same requests and concurrency each) and against a stub HTTP
 * client (`stub`, no network): less sensitive to the machine's load than requests/s. Medians of ≥ 5
 * rounds with the load average; results in bench-results/, `--record` appends them to
 * docs/benchmarks.md. `engine` (a payload loop) or `one` (one-request templates) runs the engine alone
 * against the lab (for `node --cpu-prof` or
 * `--trace-gc`: `node --import tsx --cpu-prof packages/engine/scripts/engine-cpu.ts engine 3`).
 * Run: npx tsx packages/engine/scripts/engine-cpu.ts [lab|stub|engine|one] [rounds] [--record]
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { BenchReport, interleaved, MIN_ROUNDS, type Sample, summarize } from '@perimeter/lab/bench';
import { HttpClient, type HttpRequestInit } from '../src/protocols/http/http-client.ts';
import type { ResponseReceiver } from '../src/protocols/http/http-request-guard.ts';
import { defaultExecutors } from '../src/protocols/index.ts';
import { type TemplateJob, TemplateScanner } from '../src/templates/template-scanner.ts';
import {
  measure as measureCpu,
  oneRequestTemplates,
  type Rate,
  rawLoop,
  startLabProcess,
  throughputTemplate,
} from './findings-bench.ts';

interface Figures extends Rate {
  /** Young-generation collections per 1,000 requests (their count tracks the bytes allocated). */
  scavengesPerK: number;
}

let scavenges = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)
      scavenges++;
}).observe({ entryTypes: ['gc'] });

/** GC entries arrive after the collection, on a later turn of the event loop. */
const settle = () => new Promise((r) => setTimeout(r, 20));

/** A run's figures with the scavenges it caused. */
async function counted(run: () => Promise<Rate>): Promise<Figures> {
  await settle();
  const before = scavenges;
  const rate = await run();
  await settle();
  return { ...rate, scavengesPerK: ((scavenges - before) * 1000) / Math.max(1, rate.requests) };
}

const measure = (run: () => Promise<number>) => counted(() => measureCpu(run));

const mode = process.argv[2] ?? 'lab';
const rounds = Number(process.argv[3] ?? MIN_ROUNDS);
const concurrency = 64;
const perJob = 150;
const requests = concurrency * perJob;

class StubClient extends HttpClient {
  private readonly body = Buffer.from(
    `<!doctype html><html><head><title>Acme</title></head><body>${'Acme corp '.repeat(60)}</body></html>`,
  );
  override sendTo(receiver: ResponseReceiver, init: HttpRequestInit): void {
    void Promise.resolve().then(() =>
      receiver.received({
        url: init.url,
        status: 200,
        statusText: 'OK',
        headers: [
          'content-type',
          'text/html; charset=utf-8',
          'content-length',
          String(this.body.length),
          'date',
          new Date().toUTCString(),
          'connection',
          'keep-alive',
          'keep-alive',
          'timeout=5',
        ],
        body: this.body,
        truncated: false,
        durationMs: 0.1,
      }),
    );
  }
}

async function engine(url: string, perJob: number, stub: boolean) {
  const t = throughputTemplate(perJob);
  return measure(async () => {
    const scanner = new TemplateScanner(defaultExecutors, {
      rateLimit: 0,
      concurrency,
      perHostConcurrency: concurrency,
      timeoutMs: 10000,
      ...(stub ? { httpClient: new StubClient() } : {}),
    });
    function* jobs(): Generator<TemplateJob> {
      for (let i = 0; i < concurrency; i++) yield { template: t, input: url };
    }
    for await (const _f of scanner.run(jobs())) {
    }
    await scanner.close();
    return scanner.summary.requests;
  });
}

/**
 * A real scan's shape: ONE_REQUEST templates of one request each × inputs (paths of the same
 * site, so each is a template run of its own), `requests` in all: a template run per request.
 */
const ONE_REQUEST = 50;
function engineOneRequest(url: string, stub: boolean) {
  const templates = oneRequestTemplates(ONE_REQUEST);
  const inputs = Array.from({ length: requests / ONE_REQUEST }, (_v, i) => `${url}/site-${i}`);
  return measure(async () => {
    const scanner = new TemplateScanner(defaultExecutors, {
      rateLimit: 0,
      concurrency,
      perHostConcurrency: concurrency,
      timeoutMs: 10000,
      ...(stub ? { httpClient: new StubClient() } : {}),
    });
    function* jobs(): Generator<TemplateJob> {
      for (const input of inputs) for (const template of templates) yield { template, input };
    }
    for await (const _f of scanner.run(jobs())) {
    }
    await scanner.close();
    return scanner.summary.requests;
  });
}

function client(origin: string) {
  return measure(async () => {
    const http = new HttpClient({ connectionsPerOrigin: concurrency });
    const ac = new AbortController();
    let count = 0;
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < requests) {
          sent++;
          const res = await http.send(
            { method: 'GET', url: `${origin}/`, headers: { 'User-Agent': 'x' } },
            ac.signal,
          );
          if (res.body.toString('utf8').includes('Acme')) count++;
        }
      }),
    );
    await http.close();
    return count;
  });
}

const report = new BenchReport('engine-cpu', `Template engine CPU per request (${mode})`);
if (rounds < MIN_ROUNDS) report.notRecordable(`${rounds} rounds (at least ${MIN_ROUNDS})`);
const line = (name: string, samples: Sample<Figures>[]) => {
  const cpu = summarize(samples, (r) => r.cpuUsPerRequest);
  const rate = summarize(samples, (r) => r.rate);
  const gc = summarize(samples, (r) => r.scavengesPerK);
  report.say(
    `- ${name}: median ${cpu.median.toFixed(1)} µs CPU/request, ${gc.median.toFixed(2)} scavenges per 1,000 requests, ${rate.median.toFixed(0)} req/s (${samples[0]?.value.requests} requests a round; load ${cpu.load})`,
  );
  return cpu.median;
};
if (mode === 'stub') {
  const [stub, one] = await interleaved(
    [
      { name: 'stub engine', run: () => engine('http://127.0.0.1:1', perJob, true) },
      { name: 'stub one-request', run: () => engineOneRequest('http://127.0.0.1:1', true) },
    ],
    { rounds, log: console.log },
  );
  line('engine against a stub HTTP client (no network), a payload loop', stub ?? []);
  line(
    `one-request templates (${ONE_REQUEST} × ${requests / ONE_REQUEST} inputs) against the stub`,
    one ?? [],
  );
  report.figure('stub', { payloadLoop: stub, oneRequest: one });
} else if (mode === 'engine' || mode === 'one') {
  const lab = await startLabProcess();
  const origin = `http://${lab.subnet}.10:${lab.portMap[80] ?? 80}`;
  try {
    const run = mode === 'one' ? () => engineOneRequest(origin, false) : () => engine(origin, perJob, false);
    const [eng] = await interleaved([{ name: mode, run }], { rounds, log: console.log });
    line(
      `template engine alone (${mode === 'one' ? 'one-request templates' : 'a payload loop'}) against ${origin}`,
      eng ?? [],
    );
    report.notRecordable('the engine alone (a profiling run)');
  } finally {
    lab.stop();
  }
} else {
  const lab = await startLabProcess();
  const origin = `http://${lab.subnet}.10:${lab.portMap[80] ?? 80}`;
  try {
    const [raw, client_, eng, one] = await interleaved(
      [
        { name: 'raw', run: () => counted(() => rawLoop(origin, concurrency, requests)) },
        { name: 'client', run: () => client(origin) },
        { name: 'engine', run: () => engine(origin, perJob, false) },
        { name: 'one-request', run: () => engineOneRequest(origin, false) },
      ],
      { rounds, log: console.log },
    );
    report.say(
      `Against the lab's web site ${origin} (lab in its own process), ${concurrency} in flight, ${rounds} interleaved rounds:`,
    );
    report.say('');
    const r = line('raw undici Pool', raw ?? []);
    line("the engine's HttpClient alone", client_ ?? []);
    const e = line('template engine, a payload loop (one template run of 150 requests per job)', eng ?? []);
    const o = line(
      `template engine, one-request templates (${ONE_REQUEST} templates × ${requests / ONE_REQUEST} inputs: a template run per request, as in a real scan)`,
      one ?? [],
    );
    report.say(`- engine / raw CPU per request: ${(e / r).toFixed(2)}× (goal ≤ 1.25)`);
    report.say(`- one-request templates / raw CPU per request: ${(o / r).toFixed(2)}×`);
    report.figure('lab', { raw, client: client_, engine: eng, oneRequest: one });
  } finally {
    lab.stop();
  }
}
report.finish();
