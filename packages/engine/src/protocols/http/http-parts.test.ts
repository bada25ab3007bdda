import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl } from '../../../test/template-helpers.ts';
import type { HttpResponseData } from './http-client.ts';
import { httpEventValues } from './http-parts.ts';

// Derived parts (raw/response, request, header/all_headers, title) are built only when the
// template's text names them: a template that reads one must still see it.

let srv: Awaited<ReturnType<typeof startHttp>>;

beforeAll(async () => {
  srv = await startHttp((_req, res) => {
    res.setHeader('X-Powered-By', 'PHP/7.2');
    res.end('<html><head><title> Admin Panel </title></head><body>hello</body></html>');
  });
});

afterAll(async () => {
  await srv.close();
});

const response: HttpResponseData = {
  url: 'http://127.0.0.1:8080/a?b=1',
  status: 200,
  statusText: 'OK',
  headers: ['server', 'nginx'],
  body: Buffer.from('<title>T</title>x'),
  truncated: false,
  durationMs: 2,
};
const init = { method: 'GET', url: 'http://127.0.0.1:8080/a?b=1', headers: { 'User-Agent': 'ua' } };

describe('http response parts', () => {
  it('compiles which derived parts a template can read', () => {
    const plain = compileOrThrow(
      tpl(
        'p',
        'http:\n  - path: ["{{BaseURL}}/"]\n    matchers:\n      - type: word\n        words: ["x"]\n',
      ),
    );
    expect(plain.httpParts).toEqual({ raw: false, request: false, header: false, title: false });
    const reads = compileOrThrow(
      tpl(
        'q',
        'http:\n  - path: ["{{BaseURL}}/"]\n    matchers:\n      - type: word\n        part: ALL\n        words: ["x"]\n      - type: dsl\n        dsl: ["contains(title, \\"x\\") && len(all_headers_1) > 0 && contains(request, \\"GET\\")"]\n',
      ),
    );
    expect(reads.httpParts).toEqual({ raw: true, request: true, header: true, title: true });
  });

  it('builds every part without a wanted set, and only the wanted derived parts with one', () => {
    const all = httpEventValues(init, response);
    expect(all.raw).toBe('HTTP/1.1 200 OK\r\nserver: nginx\r\n\r\n<title>T</title>x');
    expect(all.response).toBe(all.raw);
    expect(all.header).toBe('HTTP/1.1 200 OK\r\nserver: nginx\r\n');
    expect(all.all_headers).toBe(all.header);
    expect(all.request).toBe('GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ua\r\n\r\n');
    expect(all.title).toBe('T');
    const some = httpEventValues(init, response, undefined, {
      raw: false,
      request: false,
      header: true,
      title: false,
    });
    expect(some.header).toBe(all.header);
    expect(some.raw).toBeUndefined();
    expect(some.request).toBeUndefined();
    expect(some.title).toBeUndefined();
    expect(some.body).toBe(all.body);
    expect(some.status_code).toBe(200);
    expect(some.server).toBe('nginx');
  });

  it('gives the same own parts, in the same order, over a reused layer as over none', () => {
    const layer = { n: '1', BaseURL: 'http://127.0.0.1:8080' };
    const wanted = { raw: false, request: true, header: true, title: false };
    const own = httpEventValues(init, response, undefined, wanted);
    // Two responses over the layer (the second made by its remembered constructor).
    for (const res of [response, { ...response, status: 404, durationMs: 5, body: Buffer.from('y') }]) {
      const over = httpEventValues(init, res, layer, wanted, true);
      expect(Object.getPrototypeOf(over)).toBe(layer);
      expect(Object.keys(over)).toEqual(Object.keys(own));
      expect(over.n).toBe('1');
      const plain = httpEventValues(init, res, undefined, wanted);
      expect({ ...over }).toEqual({ ...plain });
    }
    expect(Object.keys(own).slice(0, 15)).toEqual([
      'body',
      'header',
      'all_headers',
      'raw',
      'response',
      'status_code',
      'content_length',
      'content_type',
      'request',
      'host',
      'matched',
      'url',
      'duration',
      'title',
      'server',
    ]);
  });

  it('matches on title, header, raw and request when the template reads them', async () => {
    const t = compileOrThrow(
      tpl(
        'parts',
        `http:
  - path: ["{{BaseURL}}/"]
    matchers-condition: and
    matchers:
      - type: dsl
        dsl: ["title == 'Admin Panel'", "contains(request, 'GET / HTTP/1.1')"]
        condition: and
      - type: word
        part: header
        words: ["X-Powered-By: PHP/7.2"]
        case-insensitive: true
      - type: word
        part: response
        words: ["hello"]
`,
      ),
    );
    const r = await scanAll([t], [srv.url]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]?.evidence?.response).toContain('<title> Admin Panel </title>');
  });
});
