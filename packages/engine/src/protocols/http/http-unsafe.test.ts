import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, tpl } from '../../../test/template-helpers.ts';

// `unsafe: true` raw requests (sent byte for byte over a socket, as nuclei's rawhttp does),
// a `101 Switching Protocols` answer, and the engine's own scope (requests only to the
// input's host without a scope policy) — each against raw TCP servers on 127.0.20.x.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface RawServer {
  port: number;
  /** Every connection's bytes, in order of arrival. */
  received: Buffer[];
  connections: number;
}

/** A TCP server: `answer(bytes, n)` is called with what connection n has received so far. */
async function rawServer(
  host: string,
  answer: (received: Buffer, n: number, socket: net.Socket) => void,
): Promise<RawServer> {
  const state: RawServer = { port: 0, received: [], connections: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const n = state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    state.received[n] = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      state.received[n] = Buffer.concat([state.received[n] as Buffer, chunk]);
      answer(state.received[n] as Buffer, n, socket);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as net.AddressInfo).port;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return state;
}

const SMUGGLE = `http:
  - raw:
      - |+
        POST / HTTP/1.1
        Host: {{Hostname}}
        Content-Length: 6
        Transfer-Encoding: chunked

        0

        G

      - |+
        POST / HTTP/1.1
        Host: {{Hostname}}
        Content-Length: 6
        Transfer-Encoding: chunked

        0

        G

    unsafe: true
    matchers:
      - type: dsl
        dsl:
          - 'contains(body_2, "Unrecognized method GPOST")'
`;

describe('unsafe raw requests', () => {
  it('sends the bytes exactly as the template writes them and reads each answer', async () => {
    const host = '127.0.20.1';
    const server = await rawServer(host, (received, n, socket) => {
      if (!received.includes('\n\n0\n\nG\n\n')) return;
      const body = n === 1 ? 'Unrecognized method GPOST' : 'first';
      socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    });
    const template = compileOrThrow(tpl('smuggle', SMUGGLE));
    const { findings } = await scanAll([template], [`http://${host}:${server.port}`]);
    expect(findings.map((f) => f.templateId)).toEqual(['smuggle']);
    const expected = `POST / HTTP/1.1\nHost: ${host}:${server.port}\nContent-Length: 6\nTransfer-Encoding: chunked\n\n0\n\nG\n\n`;
    expect(server.received.map((b) => b.toString('latin1'))).toEqual([expected, expected]);
  });

  it('reads a lenient answer (LF line ends, no length, ends at close) and, with read-all, all of it', async () => {
    const host = '127.0.20.2';
    const server = await rawServer(host, (received, _n, socket) => {
      if (!received.includes('\n\n')) return;
      socket.end(
        'HTTP/1.0 200 Fine\nServer: Odd\n\nfirst body\nHTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n',
      );
    });
    const source = (id: string, readAll: boolean) =>
      tpl(
        id,
        `http:\n  - raw:\n      - |+\n        GET /x HTTP/1.1\n        Host: {{Hostname}}\n\n    unsafe: true\n${readAll ? '    read-all: true\n' : ''}    matchers-condition: and\n    matchers:\n      - type: word\n        part: header\n        words: ["Server: Odd"]\n      - type: word\n        words: ["HTTP/1.1 400 Bad Request"]\n      - type: status\n        status: [200]\n`,
      );
    const { findings } = await scanAll(
      [compileOrThrow(source('read-all', true)), compileOrThrow(source('first-only', false))],
      [`http://${host}:${server.port}`],
    );
    // Without read-all the answer ends where the server closed it too (no length, no chunks).
    expect(findings.map((f) => f.templateId).sort()).toEqual(['first-only', 'read-all']);
  });

  it('follows a redirect with an ordinary request when the template asks for redirects', async () => {
    const host = '127.0.20.11';
    const server = await rawServer(host, (received, _n, socket) => {
      const text = received.toString('latin1');
      if (!/\n\r?\n/.test(text)) return;
      if (text.startsWith('GET /next ')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nlanded');
      else socket.end('HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n');
    });
    const template = compileOrThrow(
      tpl(
        'unsafe-redirect',
        `http:\n  - raw:\n      - |+\n        GET /start HTTP/1.1\n        Host: {{Hostname}}\n\n    unsafe: true\n    redirects: true\n    matchers:\n      - type: word\n        words: ["landed"]\n`,
      ),
    );
    const { findings } = await scanAll([template], [`http://${host}:${server.port}`]);
    expect(findings.map((f) => f.templateId)).toEqual(['unsafe-redirect']);
    expect(server.received.map((b) => b.toString('latin1').split(' ')[1])).toEqual(['/start', '/next']);
  });

  it('decodes a chunked answer and ends at its last chunk (the connection stays open)', async () => {
    const host = '127.0.20.12';
    const server = await rawServer(host, (received, _n, socket) => {
      if (/\n\r?\n/.test(received.toString('latin1')))
        socket.write(
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
        );
    });
    const template = compileOrThrow(
      tpl(
        'chunked',
        `http:\n  - raw:\n      - |+\n        GET / HTTP/1.1\n        Host: {{Hostname}}\n\n    unsafe: true\n    matchers:\n      - type: dsl\n        dsl: ['body == "hello world"']\n`,
      ),
    );
    const started = performance.now();
    const { findings } = await scanAll([template], [`http://${host}:${server.port}`], { timeoutMs: 5000 });
    expect(findings.map((f) => f.templateId)).toEqual(['chunked']);
    expect(performance.now() - started).toBeLessThan(4000);
  });

  it('settles within the time limit when the server accepts and never answers', async () => {
    const host = '127.0.20.3';
    const server = await rawServer(host, () => {});
    const template = compileOrThrow(
      tpl(
        'silent',
        `http:\n  - raw:\n      - |\n        GET / HTTP/1.1\n        Host: {{Hostname}}\n\n    unsafe: true\n    matchers:\n      - type: status\n        status: [200]\n`,
      ),
    );
    const started = performance.now();
    const { findings, scanner } = await scanAll([template], [`http://${host}:${server.port}`], {
      timeoutMs: 500,
    });
    expect(findings).toEqual([]);
    expect(scanner.summary.incomplete.request_failed).toBe(1);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('101 Switching Protocols', () => {
  it('reaches the matchers as a response (status, headers in the server spelling)', async () => {
    const host = '127.0.20.4';
    const server = await rawServer(host, (received, _n, socket) => {
      if (!received.includes('\r\n\r\n')) return;
      socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n');
    });
    const template = compileOrThrow(
      tpl(
        'switch-protocol',
        `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}"\n    matchers:\n      - type: dsl\n        dsl:\n          - 'status_code == 101'\n          - 'contains(to_lower(header), "switching protocols")'\n          - 'contains(header, "Connection: Upgrade")'\n          - 'upgrade == "h2c"'\n        condition: and\n`,
      ),
    );
    const { findings } = await scanAll([template], [`http://${host}:${server.port}`]);
    expect(findings.map((f) => f.templateId)).toEqual(['switch-protocol']);
  });

  it('reads a 101 without an Upgrade header too', async () => {
    const host = '127.0.20.8';
    const server = await rawServer(host, (received, _n, socket) => {
      if (received.includes('\r\n\r\n')) socket.end('HTTP/1.1 101 Switching Protocols\r\nX-Odd: 1\r\n\r\n');
    });
    const template = compileOrThrow(
      tpl(
        'bare-101',
        `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}"\n    matchers:\n      - type: status\n        status: [101]\n`,
      ),
    );
    const { findings } = await scanAll([template], [`http://${host}:${server.port}`]);
    expect(findings.map((f) => f.templateId)).toEqual(['bare-101']);
  });
});

describe('scope without a policy', () => {
  const annotated = (id: string, other: string, unsafe: boolean) =>
    tpl(
      id,
      `http:\n  - raw:\n      - |+\n        @Host: ${other}\n        GET / HTTP/1.1\n        Host: {{Hostname}}\n\n${unsafe ? '    unsafe: true\n' : ''}    matchers:\n      - type: status\n        status: [200]\n`,
    );

  it('refuses a request to a host other than the input, unless other hosts are allowed', async () => {
    const other = await rawServer('127.0.20.9', (received, _n, socket) => {
      if (/\n\r?\n/.test(received.toString('latin1')))
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    });
    const input = await rawServer('127.0.20.5', (received, _n, socket) => {
      if (/\n\r?\n/.test(received.toString('latin1')))
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    });
    const templates = [
      compileOrThrow(annotated('elsewhere', `http://127.0.20.9:${other.port}`, false)),
      compileOrThrow(annotated('elsewhere-unsafe', `http://127.0.20.9:${other.port}`, true)),
    ];
    const target = `http://127.0.20.5:${input.port}`;
    const refused = await scanAll(templates, [target]);
    expect(refused.findings).toEqual([]);
    expect(other.connections).toBe(0);
    expect(refused.scanner.summary.incomplete.invalid_request).toBe(2);

    const allowed = await scanAll(templates, [target], { allowOtherHosts: true });
    expect(allowed.findings.map((f) => f.templateId).sort()).toEqual(['elsewhere', 'elsewhere-unsafe']);
    expect(other.connections).toBe(2);
  });

  it('does not follow a redirect to another host; the redirect itself is the response', async () => {
    const other = await rawServer('127.0.20.9', (received, _n, socket) => {
      if (received.includes('\r\n\r\n')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    });
    const input = await rawServer('127.0.20.6', (received, _n, socket) => {
      if (received.includes('\r\n\r\n'))
        socket.end(
          `HTTP/1.1 302 Found\r\nLocation: http://127.0.20.9:${other.port}/\r\nContent-Length: 0\r\n\r\n`,
        );
    });
    const template = compileOrThrow(
      tpl(
        'redirected',
        `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/"\n    redirects: true\n    matchers:\n      - type: status\n        status: [302]\n`,
      ),
    );
    const { findings } = await scanAll([template], [`http://127.0.20.6:${input.port}`]);
    expect(findings.map((f) => f.templateId)).toEqual(['redirected']);
    expect(other.connections).toBe(0);
  });
});
