import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1] ?? Number.NaN;
}

const run = promisify(execFile);
const CHILD = path.join(REPO_ROOT, 'packages/engine/test/live-set-child.ts');
const IP = '127.0.67.1';

interface ChildResult {
  hosts: number;
  tasks: number;
  findings: number;
  requests: number;
  errors: number;
  samples: number[];
}

let server: http.Server;
let port = 0;
beforeAll(async () => {
  let n = 0;
  server = http.createServer((req, res) => {
    // Some paths redirect once; every body has a word some templates match and a token to extract.
    if (req.url?.includes('?q=a') && req.url?.startsWith('/p1')) {
      res.writeHead(302, { Location: `${req.url.replace('?q=a', '?q=r')}` });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<html><title>Acme ${n % 3}</title><body>${'Acme corp '.repeat(40)} token-${n++}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, IP, resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function scanHosts(hosts: number): Promise<ChildResult> {
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', CHILD, IP, String(port), String(hosts)],
    { cwd: REPO_ROOT, maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildResult;
}

const MB = 1048576;

describe('the template scanner’s live set', () => {
  // The engine's memory is bounded by design (docs/finding-families.md, "Memory"): tasks in
  // flight, hosts with open connections and waiting responses are capped, so the heap still in
  // use after a full collection does not depend on how many hosts a scan has.
  it('does not grow with the number of hosts (300 vs 1,200 hosts, heap used after a forced full GC)', async () => {
    const small = await scanHosts(300);
    const large = await scanHosts(1200);
    for (const r of [small, large]) {
      expect(r.tasks).toBe(r.hosts * 4);
      expect(r.errors).toBe(0);
      expect(r.findings).toBeGreaterThan(0);
    }
    // The second half of each run: start-up garbage settled, and state kept per host would be
    // at its largest; the median evens out the bounded caches' and pools' ups and downs.
    const level = (r: ChildResult) => median(r.samples.slice(r.samples.length >> 1));
    const smallPeak = level(small);
    const largePeak = level(large);
    console.log(
      `live set: ${small.hosts} hosts ${(smallPeak / MB).toFixed(1)} MB, ${large.hosts} hosts ${(largePeak / MB).toFixed(1)} MB`,
    );
    // 900 more hosts: state kept per host (8 KB each: ~5 MB by the second half) breaks this
    // bound; the bounded caches (URL parts, the connection pools of 256 origins) stay under it.
    expect(largePeak).toBeLessThan(smallPeak * 1.05 + 1.5 * MB);
  }, 240_000);
});
