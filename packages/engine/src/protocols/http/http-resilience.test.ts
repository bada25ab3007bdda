import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, tpl } from '../../../test/template-helpers.ts';
import type { CompiledTemplate } from '../../templates/template-types.ts';
import { HttpClient, type HttpRequestInit, InvalidRequestError } from './http-client.ts';
import { RequestTimeoutError } from './http-request-guard.ts';
import { encodeRequestTarget } from './http-url.ts';

// The stall found on the real corpus and its relatives, each against its own loopback server
// on 127.0.205.x: every request settles within its time limit and gives its connection back,
// and a scan runs every task to the end or says which it could not and why.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function listen(server: net.Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) resolve();
        else server.close(() => resolve());
      }),
  );
  return `${host}:${(server.address() as net.AddressInfo).port}`;
}

/** An http server that records request targets as they arrived on the wire. */
async function startRecorder(host: string, answer?: http.RequestListener) {
  const targets: string[] = [];
  const server = http.createServer((req, res) => {
    targets.push(req.url ?? '');
    if (answer) answer(req, res);
    else res.end(`seen ${req.url}`);
  });
  const authority = await listen(server, host);
  return { server, targets, base: `http://${authority}` };
}

function pathTemplate(id: string, path: string, word = 'seen'): CompiledTemplate {
  return compileOrThrow(
    tpl(
      id,
      `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}${path}"\n    matchers:\n      - type: word\n        words: ["${word}"]\n`,
    ),
  );
}

describe('request targets as nuclei sends them', () => {
  it('percent-encodes spaces, controls and non-ASCII as UTF-8, a query space as +, and leaves the rest', () => {
    expect(encodeRequestTarget('/api/v1/user/save?Role=管理员')).toBe(
      '/api/v1/user/save?Role=%E7%AE%A1%E7%90%86%E5%91%98',
    );
    expect(encodeRequestTarget('/a b/é?x=1 2&y=\t')).toBe('/a%20b/%C3%A9?x=1+2&y=%09');
    for (const kept of ['/.%2e/.%2e/etc/passwd', '/../x?a=%00&b=<script>', '/x?q=a\'b"c|d'])
      expect(encodeRequestTarget(kept)).toBe(kept);
  });
});

describe('the stall on invalid request paths', () => {
  it('sends non-ASCII paths encoded, and the host keeps answering after many of them', async () => {
    const srv = await startRecorder('127.0.205.1');
    const client = new HttpClient({ timeoutMs: 5000, connectionsPerOrigin: 4 });
    closers.push(() => client.close());
    const headers = { 'User-Agent': 'test' };
    // Before: four refused paths (as many as connections) and every later request queued forever.
    for (let i = 0; i < 8; i++) {
      const res = await client.send({
        method: 'GET',
        url: `${srv.base}/api/v1/user/save?Role=管理员${i}`,
        headers,
      });
      expect(res.status).toBe(200);
    }
    expect(srv.targets[0]).toBe('/api/v1/user/save?Role=%E7%AE%A1%E7%90%86%E5%91%98' + '0');
    const after = await client.send({ method: 'GET', url: `${srv.base}/after`, headers });
    expect(after.body.toString()).toBe('seen /after');
  });

  it('refuses unsendable requests before any traffic, and they never take a connection', async () => {
    const srv = await startRecorder('127.0.205.1');
    const client = new HttpClient({ timeoutMs: 5000, connectionsPerOrigin: 2 });
    closers.push(() => client.close());
    const bad: HttpRequestInit[] = [
      { method: 'GET', url: `${srv.base}/`, headers: { 'X-Evil': 'a\r\nInjected: 1' } },
      { method: 'GET', url: `${srv.base}/`, headers: { 'Bad Name': 'x' } },
      { method: 'G ET', url: `${srv.base}/`, headers: {} },
    ];
    for (let i = 0; i < 30; i++) {
      const init = bad[i % bad.length] as HttpRequestInit;
      await expect(client.send(init)).rejects.toBeInstanceOf(InvalidRequestError);
    }
    expect(srv.targets).toEqual([]);
    // Non-ASCII header values go as their UTF-8 bytes, as Go's client sends them.
    let received = '';
    srv.server.removeAllListeners('request');
    srv.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      received = Buffer.from(req.headers['x-role'] as string, 'latin1').toString('utf8');
      res.end('ok');
    });
    const res = await client.send({ method: 'GET', url: `${srv.base}/`, headers: { 'X-Role': '管理员' } });
    expect(res.status).toBe(200);
    expect(received).toBe('管理员');
  });

  it('sendTo hands each outcome to its receiver once: an unsendable request before it returns', async () => {
    const srv = await startRecorder('127.0.205.1');
    const client = new HttpClient({ timeoutMs: 5000, connectionsPerOrigin: 2 });
    closers.push(() => client.close());
    const outcomes: string[] = [];
    const receiver = (name: string, done?: () => void) => ({
      received: (res: { status: number }) => {
        outcomes.push(`${name} ${res.status}`);
        done?.();
      },
      failed: (err: unknown) => {
        outcomes.push(`${name} ${(err as Error).name}`);
        done?.();
      },
    });
    client.sendTo(receiver('bad'), { method: 'G ET', url: `${srv.base}/`, headers: {} });
    expect(outcomes).toEqual(['bad InvalidRequestError']);
    await new Promise<void>((resolve) =>
      client.sendTo(receiver('good', resolve), { method: 'GET', url: `${srv.base}/x`, headers: {} }),
    );
    expect(outcomes).toEqual(['bad InvalidRequestError', 'good 200']);
    expect(srv.targets).toEqual(['/x']);
  });

  it('runs 1,000 templates with non-ASCII or unsendable requests to the end, then the host still answers', async () => {
    const srv = await startRecorder('127.0.205.2');
    const templates: CompiledTemplate[] = [];
    for (let i = 0; i < 1000; i++) {
      if (i % 4 === 3)
        templates.push(
          compileOrThrow(
            tpl(
              `crlf-${i}`,
              `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/x"\n    headers:\n      X-P: "a{{p}}b"\n    payloads:\n      p: ["\\r\\nInjected: 1"]\n    matchers:\n      - type: word\n        words: ["seen"]\n`,
            ),
          ),
        );
      else templates.push(pathTemplate(`utf-${i}`, `/api/v1/user/save?Role=管理员&n=${i} x`));
    }
    templates.push(pathTemplate('after', '/after', 'seen /after'));
    const started = performance.now();
    const { findings, scanner } = await scanAll(templates, [srv.base], { concurrency: 25, timeoutMs: 5000 });
    const s = scanner.summary;
    expect(s.tasks).toBe(1001);
    expect(s.unresponsiveHosts).toEqual([]);
    expect(findings.find((f) => f.templateId === 'after')).toBeDefined();
    expect(findings.filter((f) => f.templateId.startsWith('utf-'))).toHaveLength(750);
    expect(srv.targets).toHaveLength(751);
    expect(s.incomplete.invalid_request).toBe(250);
    expect(srv.targets).toContain('/api/v1/user/save?Role=%E7%AE%A1%E7%90%86%E5%91%98&n=0+x');
    // Generous: a stalled host costs the whole 2-minute watchdog.
    expect(performance.now() - started).toBeLessThan(60_000);
  });
});

describe('requests of one block that fail in turn', () => {
  it('each is noted and the next goes, in order, however many fail in a row', async () => {
    const srv = await startRecorder('127.0.205.9');
    // Unsendable before any traffic: each fails as it is built.
    const failing = Array.from({ length: 6000 }, (_v, i) => `      - "{{BaseURL}}/${i}/{{nope}}"`);
    const template = compileOrThrow(
      tpl(
        'fail-in-turn',
        `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/first"\n${failing.join('\n')}\n      - "{{BaseURL}}/last"\n    matchers:\n      - type: word\n        words: ["seen /last"]\n`,
      ),
    );
    const { findings, scanner } = await scanAll([template], [srv.base]);
    expect(srv.targets).toEqual(['/first', '/last']);
    expect(findings.map((f) => f.templateId)).toEqual(['fail-in-turn']);
    expect(scanner.summary.requests).toBe(2);
    expect(scanner.summary.incomplete.invalid_request).toBe(1);
  });
});

describe('hosts that fail in other ways', () => {
  it('a host that accepts and never answers: each request ends at its limit, the host is skipped and counted', async () => {
    const silent = net.createServer(() => {});
    const authority = await listen(silent, '127.0.205.3');
    const templates = Array.from({ length: 40 }, (_, i) => pathTemplate(`silent-${i}`, `/s${i}`));
    const started = performance.now();
    const { scanner } = await scanAll(templates, [`http://${authority}`], {
      timeoutMs: 300,
      hostErrorBudget: 6,
      perHostConcurrency: 4,
    });
    const s = scanner.summary;
    expect(s.tasks).toBe(40);
    expect(s.unresponsiveHosts).toHaveLength(1);
    expect(s.unresponsiveHosts[0]?.lastError).toMatch(/300 ms|timeout/i);
    expect((s.incomplete.request_failed ?? 0) + (s.incomplete.host_unresponsive ?? 0)).toBe(40);
    expect(s.incomplete.host_unresponsive).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('a response that never ends: the request ends at its limit and its connection is closed', async () => {
    let open = 0;
    let trickle: NodeJS.Timeout | undefined;
    const server = http.createServer((req, res) => {
      if (req.url === '/ok') {
        res.end('fine');
        return;
      }
      open++;
      res.on('close', () => open--);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      // A byte every 50 ms: the body never pauses long enough for an idle timeout.
      trickle = setInterval(() => res.write('a'), 50);
      res.on('close', () => clearInterval(trickle));
    });
    const authority = await listen(server, '127.0.205.4');
    const client = new HttpClient({ timeoutMs: 500, connectionsPerOrigin: 1 });
    closers.push(() => client.close());
    const started = performance.now();
    await expect(
      client.send({ method: 'GET', url: `http://${authority}/stream`, headers: {} }),
    ).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(performance.now() - started).toBeLessThan(5000);
    await expect.poll(() => open, { timeout: 5000 }).toBe(0);
    // The only connection of the origin was given back: the next request gets through.
    const res = await client.send({ method: 'GET', url: `http://${authority}/ok`, headers: {} });
    expect(res.body.toString()).toBe('fine');
  });

  it('connection refused mid-scan: the scan finishes, says which tasks were cut short and why', async () => {
    let served = 0;
    const srv = await startRecorder('127.0.205.5', (_req, res) => {
      served++;
      res.end('seen');
      // The service goes away after a few answers: later connects are refused.
      if (served === 5) {
        srv.server.close();
        srv.server.closeAllConnections();
      }
    });
    const templates = Array.from({ length: 60 }, (_, i) => pathTemplate(`gone-${i}`, `/g${i}`));
    const { findings, scanner } = await scanAll(templates, [srv.base], {
      concurrency: 4,
      perHostConcurrency: 2,
      hostErrorBudget: 5,
      timeoutMs: 2000,
    });
    const s = scanner.summary;
    expect(s.tasks).toBe(60);
    expect(findings.length).toBeGreaterThanOrEqual(5);
    expect(s.unresponsiveHosts.map((h) => h.host)).toEqual([srv.base.slice('http://'.length)]);
    expect(s.unresponsiveHosts[0]?.lastError).toMatch(/ECONNREFUSED|other side closed|socket/i);
    const cut = (s.incomplete.request_failed ?? 0) + (s.incomplete.host_unresponsive ?? 0);
    expect(cut).toBe(60 - findings.length);
  });

  it('a scan aborted while requests wait on a silent host settles at once', async () => {
    const silent = net.createServer(() => {});
    const authority = await listen(silent, '127.0.205.6');
    const controller = new AbortController();
    const client = new HttpClient({ timeoutMs: 60_000, connectionsPerOrigin: 1 });
    closers.push(() => client.close());
    // Two requests on one connection: the second waits in undici's queue, where undici
    // itself cannot abort it.
    const pending = [1, 2].map((i) =>
      client.send({ method: 'GET', url: `http://${authority}/${i}`, headers: {} }, controller.signal),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    controller.abort(new Error('scan canceled'));
    for (const p of pending) await expect(p).rejects.toThrow('scan canceled');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
