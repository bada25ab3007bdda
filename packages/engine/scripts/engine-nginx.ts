/**
 * The template engine against Debian's nginx (started here on a free port of 127.0.13.1, its
 * config in a temp folder) next to a raw undici client doing the same work: GET requests with
 * the same connections (64) and no pipelining on both sides, the body read and searched for
 * the same word. Rounds alternate raw/engine (which goes first alternates too); the medians of
 * requests/s and CPU µs per request and the engine/raw ratio are printed with the load
 * average (the machine is shared). Prints figures, asserts nothing.
 * Run: npx tsx packages/engine/scripts/engine-nginx.ts [rounds]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadAverage, median } from '@perimeter/lab/bench';
import { Pool } from 'undici';
import { defaultExecutors } from '../src/protocols/index.ts';
import { compileTemplateSource } from '../src/templates/template-compile.ts';
import { type TemplateJob, TemplateScanner } from '../src/templates/template-scanner.ts';
import { measure, type Rate } from './findings-bench.ts';

const rounds = Number(process.argv[2] ?? 5);
const connections = 64;
const perJob = 200;
const ip = '127.0.13.1';

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, ip, resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-nginx-bench-'));
const port = await freePort();
mkdirSync(path.join(dir, 'www'));
writeFileSync(
  path.join(dir, 'www', 'index.html'),
  `<!doctype html><html><head><title>Acme</title></head><body>${'Acme corp '.repeat(60)}</body></html>`,
);
writeFileSync(
  path.join(dir, 'nginx.conf'),
  `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n  client_body_temp_path ${dir};\n  proxy_temp_path ${dir};\n  fastcgi_temp_path ${dir};\n  uwsgi_temp_path ${dir};\n  scgi_temp_path ${dir};\n  keepalive_requests 1000000;\n  server {\n    listen ${ip}:${port};\n    root ${dir}/www;\n  }\n}\n`,
);
const nginx = spawn('/usr/sbin/nginx', ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'inherit' });
const origin = `http://${ip}:${port}`;

function raw(total: number): Promise<Rate> {
  return measure(async () => {
    const pool = new Pool(origin, { connections });
    let count = 0;
    let left = total;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (left-- > 0) {
          const res = await pool.request({ path: '/?n=1', method: 'GET', headers: { 'User-Agent': 'x' } });
          if ((await res.body.text()).includes('Acme')) count++;
        }
      }),
    );
    await pool.close();
    return count;
  });
}

const values = Array.from({ length: perJob }, (_v, i) => `"${i}"`).join(', ');
const compiled = compileTemplateSource(
  `id: bench-nginx\ninfo:\n  name: bench\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}/?n={{n}}"]\n    payloads:\n      n: [${values}]\n    matchers:\n      - type: word\n        words: ["Acme"]\n`,
  'bench.yaml',
);
if (compiled.status !== 'ok') throw new Error('bench template invalid');
const template = compiled.template;

function engine(): Promise<Rate> {
  return measure(async () => {
    const scanner = new TemplateScanner(defaultExecutors, {
      rateLimit: 0,
      concurrency: connections,
      perHostConcurrency: connections,
    });
    function* jobs(): Generator<TemplateJob> {
      for (let i = 0; i < connections; i++) yield { template, input: origin };
    }
    for await (const _f of scanner.run(jobs())) {
    }
    await scanner.close();
    return scanner.summary.requests;
  });
}

try {
  for (let i = 0; i < 50; i++) {
    if (
      await fetch(`${origin}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  const total = connections * perJob;
  await raw(2000);
  await engine();
  const r: Rate[] = [];
  const e: Rate[] = [];
  console.log(
    `nginx bench: ${origin}, ${total} GETs per side per round, ${connections} connections, no pipelining, ${rounds} rounds`,
  );
  for (let i = 0; i < rounds; i++) {
    const before = loadAverage();
    const pair =
      i % 2 === 0 ? [await raw(total), await engine()] : [await engine(), await raw(total)].reverse();
    const [a, b] = pair as [Rate, Rate];
    r.push(a);
    e.push(b);
    console.log(
      `round ${i + 1}: raw ${a.rate.toFixed(0)} req/s ${a.cpuUsPerRequest.toFixed(1)} µs CPU/req; engine ${b.rate.toFixed(0)} req/s ${b.cpuUsPerRequest.toFixed(1)} µs CPU/req; load ${before} → ${loadAverage()}`,
    );
  }
  const m = (xs: Rate[], k: keyof Rate) => median(xs.map((x) => x[k]));
  console.log(
    `median: raw ${m(r, 'rate').toFixed(0)} req/s, ${m(r, 'cpuUsPerRequest').toFixed(1)} µs; engine ${m(e, 'rate').toFixed(0)} req/s (${(m(e, 'rate') / m(r, 'rate')).toFixed(2)}× raw, goal ≥ 0.8×), ${m(e, 'cpuUsPerRequest').toFixed(1)} µs CPU/req (${(m(e, 'cpuUsPerRequest') / m(r, 'cpuUsPerRequest')).toFixed(2)}× raw, goal ≤ 1.25×); load average now ${loadAverage()}`,
  );
} finally {
  nginx.kill('SIGTERM');
  await sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
