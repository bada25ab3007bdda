import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl } from '../../../test/template-helpers.ts';

let srv: Awaited<ReturnType<typeof startHttp>>;
const seen: { url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  srv = await startHttp((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      const u = new URL(req.url ?? '/', 'http://x');
      switch (u.pathname) {
        case '/.git/config':
          res.setHeader('Content-Type', 'text/plain');
          res.end(
            '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://deploy:hunter2secret@git.example/x.git\n',
          );
          return;
        case '/redirect':
          res.statusCode = 302;
          res.setHeader('Location', u.searchParams.get('to') ?? '/final');
          res.end();
          return;
        case '/loop':
          res.statusCode = 302;
          res.setHeader('Location', '/loop');
          res.end();
          return;
        case '/final':
          res.end('final page');
          return;
        case '/login':
          if (req.method === 'POST') {
            res.setHeader('Set-Cookie', 'sid=s3cr3t; Path=/');
            res.end(`token=tok-${body.length}`);
            return;
          }
          res.end('<form>login</form>');
          return;
        case '/private':
          res.end(req.headers.cookie?.includes('sid=s3cr3t') ? 'welcome back' : 'who are you');
          return;
        case '/echo':
          res.end(`echo:${u.searchParams.get('q') ?? ''}:${req.headers['x-token'] ?? ''}`);
          return;
        case '/big':
          res.end('A'.repeat(200000));
          return;
        case '/json':
          res.setHeader('Content-Type', 'application/json');
          res.end('{"version":{"number":"7.10.2"}}');
          return;
        default:
          res.statusCode = 404;
          res.end('not found');
      }
    });
  });
});

afterAll(async () => {
  await srv.close();
});

describe('http templates', () => {
  it('matches paths with matchers-condition and reports evidence, curl and a stable fingerprint', async () => {
    const t = compileOrThrow(
      tpl(
        'git-config',
        `http:
  - method: GET
    path:
      - "{{BaseURL}}/.git/config"
    matchers-condition: and
    matchers:
      - type: word
        words: ["[core]"]
      - type: status
        status: [200]
    extractors:
      - type: regex
        group: 1
        regex: ['url = (\\S+)']
`,
      ),
    );
    const a = await scanAll([t], [srv.url]);
    expect(a.findings).toHaveLength(1);
    const f = a.findings[0];
    expect(f).toMatchObject({
      subclass: 'exploit_scanner',
      templateId: 'git-config',
      severity: 'medium',
      severityOrdering: 3,
      host: '127.0.0.1',
      matchedAt: `${srv.url}/.git/config`,
    });
    expect(f?.evidence?.request).toContain('GET /.git/config HTTP/1.1');
    expect(f?.evidence?.response).toContain('[core]');
    expect(f?.evidence?.response).not.toContain('hunter2secret');
    expect(f?.extracted[0]).not.toContain('hunter2secret');
    expect(f?.evidence?.curl).toBe(
      `curl -i -s -k '${srv.url}/.git/config' -H 'User-Agent: Mozilla/5.0 (compatible; perimeter-scan/0.1)'`,
    );
    const b = await scanAll([t], [srv.url]);
    expect(b.findings[0]?.fingerprint).toBe(f?.fingerprint);
  });

  it('sends traversal paths unnormalised', async () => {
    const t = compileOrThrow(
      tpl(
        'raw-path',
        'http:\n  - path:\n      - "{{BaseURL}}/icons/.%2e/%2e%2e/etc/passwd"\n      - "{{BaseURL}}/public/plugins/x/../../../etc/passwd"\n    matchers:\n      - type: status\n        status: [404]\n',
      ),
    );
    const before = seen.length;
    await scanAll([t], [srv.url]);
    expect(seen.slice(before).map((s) => s.url)).toEqual([
      '/icons/.%2e/%2e%2e/etc/passwd',
      '/public/plugins/x/../../../etc/passwd',
    ]);
  });

  it('does not match when a matcher fails', async () => {
    const t = compileOrThrow(
      tpl(
        'nf',
        'http:\n  - path: ["{{BaseURL}}/nothing"]\n    matchers:\n      - type: status\n        status: [200]\n',
      ),
    );
    expect((await scanAll([t], [srv.url])).findings).toHaveLength(0);
  });

  it('follows redirects only when asked, honours max-redirects and host-redirects', async () => {
    const body = (opts: string, p = '/redirect') =>
      compileOrThrow(
        tpl(
          'redir',
          `http:\n  - path: ["{{BaseURL}}${p}"]\n${opts}    matchers:\n      - type: word\n        words: ["final page"]\n`,
        ),
      );
    expect((await scanAll([body('')], [srv.url])).findings).toHaveLength(0);
    expect((await scanAll([body('    redirects: true\n')], [srv.url])).findings).toHaveLength(1);
    expect((await scanAll([body('    host-redirects: true\n')], [srv.url])).findings).toHaveLength(1);
    // A redirect to another host is not followed with host-redirects.
    const other = body('    host-redirects: true\n', '/redirect?to=http://localhost:1/final');
    expect((await scanAll([other], [srv.url])).findings).toHaveLength(0);
    const loop = compileOrThrow(
      tpl(
        'loop',
        'http:\n  - path: ["{{BaseURL}}/loop"]\n    redirects: true\n    max-redirects: 3\n    matchers:\n      - type: status\n        status: [302]\n',
      ),
    );
    const before = seen.length;
    expect((await scanAll([loop], [srv.url])).findings).toHaveLength(1);
    expect(seen.length - before).toBe(4);
  });

  it('runs raw requests, reuses cookies and feeds internal extractors to later requests', async () => {
    const t = compileOrThrow(
      tpl(
        'login-flow',
        `http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        user=admin&pass=admin
      - |
        GET /private HTTP/1.1
        Host: {{Hostname}}

      - |
        GET /echo?q={{token}} HTTP/1.1
        Host: {{Hostname}}
        X-Token: {{token}}

    cookie-reuse: true
    req-condition: true
    extractors:
      - type: regex
        name: token
        internal: true
        part: body
        regex: ['tok-[0-9]+']
    matchers:
      - type: dsl
        dsl:
          - 'status_code_1 == 200 && contains(body_2, "welcome back") && contains(body_3, "echo:tok-21:tok-21")'
`,
      ),
    );
    const { findings } = await scanAll([t], [srv.url]);
    expect(findings).toHaveLength(1);
    const login = seen.find((s) => s.url === '/login' && s.body !== '');
    expect(login?.body).toBe('user=admin&pass=admin');
  });

  it('stops at the first match', async () => {
    const t = compileOrThrow(
      tpl(
        'first',
        `http:
  - path:
      - "{{BaseURL}}/final"
      - "{{BaseURL}}/final?second"
    stop-at-first-match: true
    matchers:
      - type: word
        words: ["final"]
`,
      ),
    );
    const before = seen.length;
    const { findings } = await scanAll([t], [srv.url]);
    expect(findings).toHaveLength(1);
    expect(seen.length - before).toBe(1);
  });

  const attackCases: [string, string, string[]][] = [
    ['batteringram', 'batteringram', ['/echo?q=a:a', '/echo?q=b:b']],
    ['pitchfork', 'pitchfork', ['/echo?q=a:1', '/echo?q=b:2']],
    ['clusterbomb', 'clusterbomb', ['/echo?q=a:1', '/echo?q=a:2', '/echo?q=b:1', '/echo?q=b:2']],
  ];
  it.each(attackCases)('payloads with %s', async (_n, attack, urls) => {
    const payloads =
      attack === 'batteringram' ? '      x: [a, b]\n' : '      x: [a, b]\n      y: ["1", "2"]\n';
    const second = attack === 'batteringram' ? '{{x}}' : '{{y}}';
    const t = compileOrThrow(
      tpl(
        `p-${attack}`,
        `http:\n  - path: ["{{BaseURL}}/echo?q={{x}}:${second}"]\n    attack: ${attack}\n    payloads:\n${payloads}    matchers:\n      - type: word\n        words: ["echo:"]\n`,
      ),
    );
    const before = seen.length;
    const { findings } = await scanAll([t], [srv.url]);
    expect(seen.slice(before).map((s) => decodeURIComponent(s.url))).toEqual(urls);
    expect(findings.length).toBeGreaterThan(0);
  });

  it('evaluates boolean flows: the second request only runs when the first matched', async () => {
    const flow = (firstPath: string) =>
      compileOrThrow(
        tpl(
          'flowed',
          `flow: http(1) && http(2)
http:
  - path: ["{{BaseURL}}${firstPath}"]
    matchers:
      - type: word
        internal: true
        words: ["login"]
  - path: ["{{BaseURL}}/json"]
    matchers:
      - type: word
        words: ["7.10.2"]
    extractors:
      - type: json
        json: [".version.number"]
`,
        ),
      );
    const hit = await scanAll([flow('/login')], [srv.url]);
    expect(hit.findings).toHaveLength(1);
    expect(hit.findings[0]?.extracted).toEqual(['7.10.2']);
    const before = seen.length;
    const miss = await scanAll([flow('/nothing')], [srv.url]);
    expect(miss.findings).toHaveLength(0);
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/nothing']);
  });

  it('reports one finding per named matcher with or-condition and variables in templates', async () => {
    const t = compileOrThrow(
      tpl(
        'named',
        `variables:
  q: "{{to_upper('abc')}}"
http:
  - path: ["{{BaseURL}}/echo?q={{q}}"]
    headers:
      X-Token: "{{base64('u:p')}}"
    matchers:
      - type: word
        name: query
        words: ["echo:ABC"]
      - type: word
        name: token
        words: ["dTpw"]
      - type: word
        name: missing
        words: ["zzz"]
`,
      ),
    );
    const { findings } = await scanAll([t], [srv.url]);
    expect(findings.map((f) => f.matcherName).sort()).toEqual(['query', 'token']);
    expect(new Set(findings.map((f) => f.fingerprint)).size).toBe(2);
  });

  it("keeps each run's variables its own: a template's own Path and extracted values never reach the next run on the input", async () => {
    // Runs that write no variables read the input's shared ones (newRunState): a run that shadows
    // a built-in or extracts a name must write over them, not into them.
    const writer = compileOrThrow(
      tpl(
        'writer',
        `variables:
  Path: "/shadowed"
http:
  - path: ["{{BaseURL}}/echo?q={{Path}}"]
    extractors:
      - type: regex
        name: Host
        internal: true
        regex: ["echo:[a-z/]+"]
    matchers:
      - type: word
        words: ["echo:/shadowed"]
`,
      ),
    );
    const reader = compileOrThrow(
      tpl(
        'reader',
        `http:
  - path: ["{{BaseURL}}/echo?q=[{{Path}}]{{Host}}"]
    matchers:
      - type: word
        words: ["echo:[]127.0.0.1"]
`,
      ),
    );
    expect([writer.ownVariables, reader.ownVariables]).toEqual([true, false]);
    const { findings } = await scanAll([writer, reader], [srv.url], { concurrency: 1 });
    expect(findings.map((f) => f.templateId).sort()).toEqual(['reader', 'writer']);
  });
  it('caps the response size', async () => {
    const t = compileOrThrow(
      tpl(
        'big',
        'http:\n  - path: ["{{BaseURL}}/big"]\n    matchers:\n      - type: dsl\n        dsl: ["len(body) == 1000"]\n',
      ),
    );
    expect((await scanAll([t], [srv.url], { maxResponseBytes: 1000 })).findings).toHaveLength(1);
  });

  it('skips an unresponsive host after its error budget and lists it in the summary', async () => {
    const dead = await startHttp(() => {});
    const deadUrl = dead.url;
    await dead.close();
    const t = compileOrThrow(
      tpl(
        'many',
        'http:\n  - path: ["{{BaseURL}}/a", "{{BaseURL}}/b", "{{BaseURL}}/c", "{{BaseURL}}/d", "{{BaseURL}}/e"]\n    matchers:\n      - type: status\n        status: [200]\n',
      ),
    );
    const { scanner } = await scanAll([t, { ...t, id: 'many-2' }], [deadUrl], { hostErrorBudget: 2 });
    expect(scanner.summary.unresponsiveHosts).toHaveLength(1);
    expect(scanner.summary.unresponsiveHosts[0]?.host).toBe(deadUrl.replace('http://', ''));
    expect(scanner.summary.requests).toBe(0);
  });

  it('ends promptly when the scan is aborted', async () => {
    const slow = await startHttp((_req, res) => {
      setTimeout(() => res.end('late'), 5000).unref();
    });
    const t = compileOrThrow(
      tpl(
        'slow',
        'http:\n  - path: ["{{BaseURL}}/a", "{{BaseURL}}/b"]\n    matchers:\n      - type: word\n        words: ["late"]\n',
      ),
    );
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const started = performance.now();
    const { findings } = await scanAll(
      Array.from({ length: 10 }, (_v, i) => ({ ...t, id: `slow-${i}` })),
      [slow.url],
      { signal: ac.signal, timeoutMs: 10000 },
    );
    expect(findings).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
    await slow.close();
  });

  it('respects the rate limit on a host', async () => {
    const t = compileOrThrow(
      tpl(
        'rated',
        'http:\n  - path: ["{{BaseURL}}/final", "{{BaseURL}}/final?2", "{{BaseURL}}/final?3", "{{BaseURL}}/final?4", "{{BaseURL}}/final?5"]\n    matchers:\n      - type: status\n        status: [200]\n',
      ),
    );
    const started = performance.now();
    await scanAll([t], [srv.url], { rateLimit: 20 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });
});
