import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, tpl } from '../../../test/template-helpers.ts';
import type { HttpResponseData } from './http-client.ts';
import { HttpClient } from './http-client.ts';
import type { RequestGuard } from './http-request-guard.ts';
import { canonicalHeaderName, canonicalHeaderNameOf, ResponseCollector } from './http-response-collector.ts';

// Response header names in the parts a template reads are spelled as nuclei's Go client
// reads them: the server's name in canonical MIME form. A server that already spells them
// canonically (nearly all) is shown exactly as it sent them.

let server: net.Server;
let base = '';

const RESPONSE = [
  'HTTP/1.1 302 Found',
  'Server: EC2ws',
  'Location: /next',
  'content-type: text/plain',
  'X-AspNet-Version: 4.0.30319',
  'Set-Cookie: a=1',
  'set-cookie: b=2',
  'Content-Length: 5',
  '',
  'hello',
].join('\r\n');

beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.on('data', () => socket.write(RESPONSE));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.205.7', resolve));
  base = `http://127.0.205.7:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('response header names', () => {
  it('are canonical MIME names as Go reads them', () => {
    expect(canonicalHeaderName('content-type')).toBe('Content-Type');
    expect(canonicalHeaderName('Server')).toBe('Server');
    expect(canonicalHeaderName('x-powered-by')).toBe('X-Powered-By');
    expect(canonicalHeaderName('WWW-Authenticate')).toBe('Www-Authenticate');
    // Not a token: left as it came.
    expect(canonicalHeaderName('bad name')).toBe('bad name');
  });

  it('are the same read from the bytes received, whatever names came before', () => {
    for (const name of ['content-type', 'Server', 'bad name', 'WWW-Authenticate', 'x-é', ''])
      expect(canonicalHeaderNameOf(Buffer.from(name, 'latin1'))).toBe(canonicalHeaderName(name));
    // Names that differ in one letter, many sharing a slot of the table, each asked for twice,
    // every one in the same bytes: undici's view of a read buffer that is reused.
    const letters = 'abcdefghijklmnopqrstuvwxyzA-';
    const bytes = Buffer.alloc(5);
    for (let round = 0; round < 2; round++)
      for (const a of letters)
        for (const b of letters)
          for (const c of 'xyzX') {
            const name = `q${a}-${b}${c}`;
            bytes.write(name, 'latin1');
            expect(canonicalHeaderNameOf(bytes)).toBe(canonicalHeaderName(name));
          }
  });

  it("put a repeated header's values together, where it first came, the others in arrival order", () => {
    let got: HttpResponseData | undefined;
    const guard = {
      settle: (res: HttpResponseData) => (got = res),
      connected: () => {},
    } as unknown as RequestGuard;
    const init = { method: 'GET', url: 'http://127.0.0.1/', headers: {} };
    const collector = new ResponseCollector(init, { path: '/', headers: {} }, guard, 1000, 0, {
      resendRaw: () => {},
    });
    const raw = [
      'set-cookie',
      'a=1',
      'X-One',
      '1',
      'Vary',
      'x',
      'Set-Cookie',
      'b=2',
      'x-one',
      '2',
      'set-cookie',
      'c=3',
    ];
    collector.onHeaders(
      200,
      raw.map((t) => Buffer.from(t, 'latin1')),
    );
    collector.onComplete();
    expect(got?.headers).toEqual([
      'Set-Cookie',
      'a=1',
      'Set-Cookie',
      'b=2',
      'Set-Cookie',
      'c=3',
      'X-One',
      '1',
      'X-One',
      '2',
      'Vary',
      'x',
    ]);
  });

  it('keep the server spelling of canonical names and every value of a repeated header', async () => {
    const client = new HttpClient({ timeoutMs: 3000 });
    try {
      const res = await client.send({ method: 'GET', url: `${base}/`, headers: {} });
      expect(res.headers).toEqual([
        'Server',
        'EC2ws',
        'Location',
        '/next',
        'Content-Type',
        'text/plain',
        'X-Aspnet-Version',
        '4.0.30319',
        'Set-Cookie',
        'a=1',
        'Set-Cookie',
        'b=2',
        'Content-Length',
        '5',
      ]);
    } finally {
      await client.close();
    }
  });

  it('let case-sensitive matchers on header and raw fire, and named parts stay lowercase', async () => {
    const matcher = (id: string, part: string, words: string[]) =>
      compileOrThrow(
        tpl(
          id,
          `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/"\n    matchers-condition: and\n    matchers:\n      - type: word\n        part: ${part}\n        words: ${JSON.stringify(words)}\n`,
        ),
      );
    const templates = [
      matcher('server-header', 'header', ['Server: EC2ws']),
      matcher('location-raw', 'raw', ['Location: /next']),
      matcher('content-type-header', 'header', ['Content-Type: text/plain']),
      matcher('lowercase-spelling', 'header', ['content-type: text/plain']),
      matcher('named-part', 'server', ['EC2ws']),
      compileOrThrow(
        tpl(
          'dsl-header',
          `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/"\n    matchers:\n      - type: dsl\n        dsl:\n          - 'contains(header, "Set-Cookie: b=2") && content_type == "text/plain" && status_code == 302'\n`,
        ),
      ),
      compileOrThrow(
        tpl(
          'regex-header',
          `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/"\n    matchers:\n      - type: regex\n        part: header\n        regex: ["(?m)^Location: /next"]\n`,
        ),
      ),
    ];
    const { findings } = await scanAll(templates, [base]);
    expect(findings.map((f) => f.templateId).sort()).toEqual([
      'content-type-header',
      'dsl-header',
      'location-raw',
      'named-part',
      'regex-header',
      'server-header',
    ]);
  });
});
