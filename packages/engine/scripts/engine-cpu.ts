/**
 * CPU time per request of the template engine's HTTP path, against the lab in its own process
 * (`lab`) and against a stub HTTP client (`stub`, no network): less sensitive to the machine's
 * load than requests/s. Run: npx tsx packages/engine/scripts/engine-cpu.ts [lab|stub|raw] [rounds]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  HttpClient,
  type HttpRequestInit,
  type HttpResponseData,
} from '../src/protocols/http/http-client.js';
import { defaultExecutors } from '../src/protocols/index.js';
import { compileTemplateSource } from '../src/templates/template-compile.js';
import { type TemplateJob, TemplateScanner } from '../src/templates/template-scanner.js';
import { measure, rawLoop } from './findings-bench.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const mode = process.argv[2] ?? 'lab';
const rounds = Number(process.argv[3] ?? 5);
const concurrency = 64;

function template(n: number) {
  const values = Array.from({ length: n }, (_v, i) => `"${i}"`).join(', ');
  const r = compileTemplateSource(
    `id: bench-throughput\ninfo:\n  name: bench\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}/?n={{n}}"]\n    payloads:\n      n: [${values}]\n    matchers-condition: and\n    matchers:\n      - type: word\n        words: ["Acme"]\n      - type: status\n        status: [200]\n`,
    'bench.yaml',
  );
  if (r.status !== 'ok') throw new Error('bench template invalid');
  return r.template;
}

class StubClient extends HttpClient {
  private readonly body = Buffer.from(
    `<!doctype html><html><head><title>Acme</title></head><body>${'Acme corp '.repeat(60)}</body></html>`,
  );
  override async send(init: HttpRequestInit): Promise<HttpResponseData> {
    await Promise.resolve();
    return {
      url: init.url,
      status: 200,
      statusText: 'OK',
      headers: [
        ['content-type', 'text/html; charset=utf-8'],
        ['content-length', String(this.body.length)],
        ['date', new Date().toUTCString()],
        ['connection', 'keep-alive'],
        ['keep-alive', 'timeout=5'],
      ],
      body: this.body,
      truncated: false,
      durationMs: 0.1,
    };
  }
}

async function engine(url: string, perJob: number, stub: boolean) {
  const t = template(perJob);
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

function client(origin: string, ms: number) {
  return measure(async () => {
    const http = new HttpClient({ connectionsPerOrigin: concurrency });
    const ac = new AbortController();
    let count = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
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

if (mode === 'stub') {
  await engine('http://127.0.0.1:1', 50, true);
  for (let i = 0; i < rounds; i++) {
    const r = await engine('http://127.0.0.1:1', 150, true);
    console.log(`stub engine: ${r.cpuUsPerRequest.toFixed(1)} µs CPU/request, ${r.requests} requests`);
  }
} else {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(here, 'bench-lab-child.ts'), '127.0.87'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const rl = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(rl, 'line')) as [string];
  rl.close();
  const origin = `http://127.0.87.10:${(JSON.parse(line) as { portMap: Record<number, number> }).portMap[80] ?? 80}`;
  try {
    await rawLoop(origin, concurrency, 1000);
    await engine(origin, 30, false);
    for (let i = 0; i < rounds; i++) {
      if (mode === 'rawonly') {
        const r = await rawLoop(origin, concurrency, 3000);
        console.log(`raw:    ${r.cpuUsPerRequest.toFixed(1)} µs CPU/request, ${r.rate.toFixed(0)} req/s`);
        continue;
      }
      if (mode === 'client') {
        const c = await client(origin, 3000);
        console.log(`client: ${c.cpuUsPerRequest.toFixed(1)} µs CPU/request, ${c.rate.toFixed(0)} req/s`);
      }
      if (mode !== 'engine') {
        const r = await rawLoop(origin, concurrency, 3000);
        console.log(`raw:    ${r.cpuUsPerRequest.toFixed(1)} µs CPU/request, ${r.rate.toFixed(0)} req/s`);
      }
      const e = await engine(origin, 150, false);
      console.log(`engine: ${e.cpuUsPerRequest.toFixed(1)} µs CPU/request, ${e.rate.toFixed(0)} req/s`);
    }
  } finally {
    child.kill('SIGTERM');
  }
}
