import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl } from '../../test/template-helpers.ts';
import { clusterKey, clusterTemplates, memberCount } from './template-cluster.ts';

let srv: Awaited<ReturnType<typeof startHttp>>;
const seen: string[] = [];

beforeAll(async () => {
  srv = await startHttp((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers['x-a'] ?? ''}`);
    if (req.url === '/app') res.end('<title>Acme App</title> version 2.4.1 build');
    else if (req.url === '/second') res.end('second page');
    else {
      res.statusCode = 404;
      res.end('not found');
    }
  }, '127.0.10.1');
});
afterAll(() => srv.close());

const get = (id: string, matchers: string, extra = '') =>
  compileOrThrow(
    tpl(
      id,
      `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/app"\n${extra}    matchers:\n${matchers}`,
    ),
  );
const word = (w: string) => `      - type: word\n        words: ["${w}"]\n`;

describe('request clustering', () => {
  it('sends an identical request once and runs every template’s matchers on the response', async () => {
    const templates = [
      get('acme-app', word('Acme App')),
      get('acme-version', word('2.4.1')),
      get('other-app', word('Other App')),
    ];
    const clustered = clusterTemplates(templates);
    expect(clustered).toHaveLength(1);
    expect(memberCount(clustered)).toBe(3);
    seen.length = 0;
    const { findings, scanner } = await scanAll(templates, [`${srv.url}/`]);
    expect(seen).toEqual(['GET /app ']);
    expect(findings.map((f) => f.templateId).sort()).toEqual(['acme-app', 'acme-version']);
    // Evidence is each finding's own, built from the shared response.
    expect(findings[0]?.evidence?.response).toContain('Acme App');
    expect(scanner.summary.tasks).toBe(3);
    expect(scanner.summary.requests).toBe(1);
  });

  it('keeps templates apart when anything that shapes the request or its use differs', () => {
    const base = get('a', word('x'));
    const variants = [
      get('headers', word('x'), '    headers:\n      X-A: "1"\n'),
      get('redirects', word('x'), '    redirects: true\n'),
      get('body', word('x'), '    body: "q=1"\n'),
      get('payloads', word('x'), '    payloads:\n      p: ["1", "2"]\n'),
      get('stop', word('x'), '    stop-at-first-match: true\n'),
      compileOrThrow(
        tpl(
          'vars',
          `variables:\n  v: "1"\nhttp:\n  - method: GET\n    path:\n      - "{{BaseURL}}/app"\n    matchers:\n${word('x')}`,
        ),
      ),
      compileOrThrow(
        tpl(
          'intrusive',
          `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/app"\n    matchers:\n${word('x')}`,
        ).replace('author: test', 'author: test\n  tags: rce'),
      ),
      compileOrThrow(
        tpl(
          'raw',
          `http:\n  - raw:\n      - |\n        GET /app HTTP/1.1\n        Host: {{Hostname}}\n    matchers:\n${word('x')}`,
        ),
      ),
    ];
    const keyOf = (t: (typeof variants)[number]) => clusterKey(t);
    // stop-at-first-match is decided per member, so it does not split a cluster.
    expect(keyOf(variants[4] as (typeof variants)[number])).toBe(keyOf(base));
    for (const v of variants.filter((t) => t.id !== 'stop')) expect(keyOf(v)).not.toBe(keyOf(base));
    expect(keyOf(variants[2] as (typeof variants)[number])).toBeUndefined();
    expect(keyOf(variants[3] as (typeof variants)[number])).toBeUndefined();
    expect(keyOf(variants[7] as (typeof variants)[number])).toBeUndefined();
    expect(clusterTemplates([base, ...variants])).toHaveLength(variants.length);
  });

  it('sends the later paths while a member with stop-at-first-match still has not matched', async () => {
    const two = (id: string, w: string, stop: boolean) =>
      compileOrThrow(
        tpl(
          id,
          `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/app"\n      - "{{BaseURL}}/second"\n${stop ? '    stop-at-first-match: true\n' : ''}    matchers:\n${word(w)}`,
        ),
      );
    // Both stop at their first match: the first matches /app, the second only /second.
    const early = two('early', 'Acme', true);
    const late = two('late', 'second page', true);
    expect(clusterTemplates([early, late])).toHaveLength(1);
    seen.length = 0;
    const { findings, scanner } = await scanAll([early, late], [`${srv.url}/`]);
    expect(seen).toEqual(['GET /app ', 'GET /second ']);
    expect(findings.map((f) => f.templateId).sort()).toEqual(['early', 'late']);
    expect(scanner.summary.requests).toBe(2);
    // Once every member has matched, nothing more is sent.
    seen.length = 0;
    await scanAll([early, two('early-too', 'version', true)], [`${srv.url}/`]);
    expect(seen).toEqual(['GET /app ']);
  });

  it('gives each member its own extracted values', async () => {
    const extracting = get(
      'extracts',
      word('Acme'),
      '    extractors:\n      - type: regex\n        name: ver\n        regex: ["[0-9]+\\\\.[0-9]+\\\\.[0-9]+"]\n',
    );
    const plain = get('plain', word('Acme'));
    const { findings } = await scanAll([extracting, plain], [`${srv.url}/`]);
    const byId = new Map(findings.map((f) => [f.templateId, f]));
    expect(byId.get('extracts')?.extracted).toEqual(['2.4.1']);
    expect(byId.get('plain')?.extracted).toEqual([]);
  });
});
