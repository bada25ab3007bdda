import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl } from '../../../test/template-helpers.ts';
import {
  compileAnnotations,
  MAX_ANNOTATION_TIMEOUT_MS,
  parseGoDuration,
} from '../../templates/raw-annotations.ts';
import { parseTarget, targetVariables } from '../../templates/target-variables.ts';
import { compileTemplateSource } from '../../templates/template-compile.ts';
import type { CompiledHttpRequest, RawHttpSpec } from '../../templates/template-types.ts';
import { buildHttpRequest } from './http-executor.ts';

/** A raw request template; `head` holds the annotation lines. */
const rawTpl = (
  id: string,
  head: string,
  request = 'GET /a HTTP/1.1\n        Host: {{Hostname}}',
  extra = '',
) =>
  tpl(
    id,
    `http:\n  - raw:\n      - |\n        ${head.split('\n').join('\n        ')}\n        ${request}\n\n${extra}    matchers:\n      - type: status\n        status: [200]\n`,
  );

describe('Go durations of @timeout', () => {
  it.each([
    ['5s', 5000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['2h', 7_200_000],
    ['250us', 0.25],
    ['0', 0],
    ['5', 5000],
    ['1.5', 1500],
    ['s', undefined],
    ['5 s', undefined],
    ['5x', undefined],
    ['', undefined],
  ])('%s → %s ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });
});

describe('compiling annotations', () => {
  it.each([
    [{ host: 'https://login.example:443' }, { host: 'https://login.example:443' }],
    [{ host: '127.0.0.1:8080' }, { host: '127.0.0.1:8080' }],
    [{ host: '{{Hostname}}' }, { host: '{{Hostname}}' }],
    [{ 'tls-sni': 'request.host' }, { tlsSni: 'request.host' }],
    [{ 'tls-sni': 'sni.example' }, { tlsSni: 'sni.example' }],
    [{ timeout: '25s' }, { timeoutMs: 25_000 }],
    [{ timeout: '10m' }, { timeoutMs: MAX_ANNOTATION_TIMEOUT_MS }],
    [{ once: '' }, { once: true }],
    [{ 'x-unknown': 'kept, ignored' }, {}],
  ])('%j → %j', (annotations, compiled) => {
    expect(compileAnnotations(annotations)).toEqual(compiled);
  });

  it.each([
    ['@timeout: soon', /@timeout 'soon' is not a duration/],
    ['@timeout: 0s', /is not a duration/],
    ['@Host:', /@Host needs a value/],
    ['@Host: https://a.example/path', /is not scheme:\/\/host/],
    ['@tls-sni:', /@tls-sni needs a value/],
  ])('%s is refused before any traffic', (head, reason) => {
    const r = compileTemplateSource(rawTpl('bad-annotation', head), 'bad.yaml');
    expect(r.status).toBe('invalid');
    if (r.status !== 'invalid') return;
    expect(r.field).toMatch(/raw/);
    expect(r.reason).toMatch(reason);
  });
});

describe('requests built from annotated raw requests', () => {
  const vars = targetVariables(parseTarget('https://app.example:8443/base'));
  const build = (head: string, request?: string) => {
    const t = compileOrThrow(rawTpl('build', head, request));
    const req = t.requests[0] as CompiledHttpRequest;
    return buildHttpRequest(req, req.specs[0] as RawHttpSpec, vars);
  };

  it.each([
    // annotation lines, expected URL, servername, timeout, explicit Host header
    ['', 'https://app.example:8443/a', undefined, undefined, undefined],
    ['@Host: https://login.example:443', 'https://login.example:443/a', undefined, undefined, undefined],
    ['@Host: other.example:9000', 'https://other.example:9000/a', undefined, undefined, undefined],
    ['@Host: http://plain.example', 'http://plain.example/a', undefined, undefined, undefined],
    ['@tls-sni: sni.example', 'https://app.example:8443/a', 'sni.example', undefined, undefined],
    ['@tls-sni: request.host', 'https://app.example:8443/a', 'app.example', undefined, undefined],
    ['@timeout: 3s', 'https://app.example:8443/a', undefined, 3000, undefined],
    ['@Host: login.example\n@timeout: 750ms', 'https://login.example/a', undefined, 750, undefined],
  ])('%j', (head, url, servername, timeoutMs, hostHeader) => {
    const init = build(head);
    expect(init.url).toBe(url);
    expect(init.servername).toBe(servername);
    expect(init.timeoutMs).toBe(timeoutMs);
    expect(init.headers.Host).toBe(hostHeader);
  });

  it.each([
    // request line as written, method and URL sent (nuclei: method, target, the rest ignored)
    [
      'POST /wp-admin/admin-ajax.php HTTP/1.1 HTTP/1.1',
      'POST',
      'https://app.example:8443/wp-admin/admin-ajax.php',
    ],
    ['GET /api/.%09./info HTTP/1.1 # Mitigation bypass', 'GET', 'https://app.example:8443/api/.%09./info'],
    ['GET /file=<!DOCTYPE html>', 'GET', 'https://app.example:8443/file=<!DOCTYPE'],
    ['get /lower HTTP/1.0', 'GET', 'https://app.example:8443/lower'],
    ['GET HTTP/1.1', 'GET', 'https://app.example:8443/base'],
  ])('request line %j', (line, method, url) => {
    const init = build('', `${line}\n        Host: {{Hostname}}`);
    expect(init.method).toBe(method);
    expect(init.url).toBe(url);
  });

  it('@tls-sni: request.host takes a virtual host from the Host header', () => {
    const init = build('@tls-sni: request.host', 'GET / HTTP/1.1\n        Host: vhost.internal:8443');
    expect(init.servername).toBe('vhost.internal');
    expect(init.headers.Host).toBe('vhost.internal:8443');
  });
});

describe('annotations against servers on 127.0.0.1', () => {
  let input: Awaited<ReturnType<typeof startHttp>>;
  let other: Awaited<ReturnType<typeof startHttp>>;
  let tls: https.Server;
  let tlsPort = 0;
  const hits: string[] = [];
  const sni: (string | false)[] = [];

  beforeAll(async () => {
    const handler =
      (name: string) => (req: { url?: string }, res: { statusCode: number; end: (s: string) => void }) => {
        hits.push(`${name}${req.url}`);
        if (req.url === '/slow') {
          setTimeout(() => res.end('late'), 1500);
          return;
        }
        res.statusCode = name === 'other' || req.url !== '/only-other' ? 200 : 404;
        res.end(`${name} answered`);
      };
    input = await startHttp(handler('input'));
    other = await startHttp(handler('other'));
    tls = https.createServer(
      {
        cert: readFileSync(new URL('../../../../lab/certs/expired-selfsigned.crt', import.meta.url)),
        key: readFileSync(new URL('../../../../lab/certs/expired-selfsigned.key', import.meta.url)),
      },
      (_req, res) => res.end('tls answered'),
    );
    tls.on('secureConnection', (s: TLSSocket & { servername?: string | false }) => {
      sni.push(s.servername ?? false);
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    tlsPort = (tls.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await input.close();
    await other.close();
    tls.closeAllConnections();
    await new Promise<void>((resolve) => tls.close(() => resolve()));
  });

  it('@Host sends the request to the annotated host:port, and the finding says where', async () => {
    const t = compileOrThrow(
      rawTpl(
        'host-annotation',
        `@Host: 127.0.0.1:${other.port}`,
        'GET /only-other HTTP/1.1\n        Host: {{Hostname}}',
      ),
    );
    const { findings } = await scanAll([t], [input.url]);
    expect(hits).toContain('other/only-other');
    expect(hits).not.toContain('input/only-other');
    expect(findings.map((f) => f.matchedAt)).toEqual([`http://127.0.0.1:${other.port}/only-other`]);
  });

  it('@timeout ends a slow request early (the client default is longer)', async () => {
    const t = compileOrThrow(
      rawTpl('timeout-annotation', '@timeout: 300ms', 'GET /slow HTTP/1.1\n        Host: {{Hostname}}'),
    );
    const { findings, scanner } = await scanAll([t], [input.url], { timeoutMs: 5000 });
    // The answer comes after 1.5 s, well inside the client's 5 s: only the annotation's 300 ms
    // makes it an error (no elapsed-time check, which a loaded machine could break).
    expect(findings).toEqual([]);
    expect(scanner.summary.errors).toBeGreaterThan(0);
  });

  it('@timeout longer than the client default lets a slow answer arrive', async () => {
    const t = compileOrThrow(
      rawTpl('timeout-longer', '@timeout: 5s', 'GET /slow HTTP/1.1\n        Host: {{Hostname}}'),
    );
    // The answer comes after 1.5 s: past the client's 500 ms, inside the annotation's 5 s.
    const { findings, scanner } = await scanAll([t], [input.url], { timeoutMs: 500 });
    expect(scanner.summary.errors).toBe(0);
    expect(findings).toHaveLength(1);
  });

  it('@once sends a request once per template run while the payload loop repeats the others', async () => {
    const t = compileOrThrow(
      tpl(
        'once-annotation',
        `http:\n  - raw:\n      - |\n        @once\n        GET /once HTTP/1.1\n        Host: {{Hostname}}\n\n      - |\n        GET /each?p={{p}} HTTP/1.1\n        Host: {{Hostname}}\n\n    payloads:\n      p: [a, b, c]\n    matchers:\n      - type: status\n        status: [500]\n`,
      ),
    );
    await scanAll([t], [input.url]);
    expect(hits.filter((h) => h === 'input/once')).toHaveLength(1);
    expect(hits.filter((h) => h.startsWith('input/each?p='))).toHaveLength(3);
  });

  it.each([
    ['@tls-sni: sni-one.test', 'sni-one.test'],
    ['@tls-sni: request.host', 'vhost-two.test'],
  ])('%s sets the TLS server name', async (head, expected) => {
    const t = compileOrThrow(rawTpl('sni-annotation', head, 'GET / HTTP/1.1\n        Host: vhost-two.test'));
    const { findings } = await scanAll([t], [`https://127.0.0.1:${tlsPort}`]);
    expect(findings).toHaveLength(1);
    expect(sni.at(-1)).toBe(expected);
  });
});
