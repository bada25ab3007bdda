import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl } from '../../../test/template-helpers.ts';

// A network exchange reads in the middle (`read` + `name` on an input) and later inputs use
// what was read, through internal extractors, as nuclei fills each input in only when its
// turn comes; a `wait_for()` in a matcher waits; nothing goes to a host other than the
// input's. Servers on 127.0.21.x.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function tcpServer(
  host: string,
  onConnection: (socket: net.Socket) => void,
): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections };
}

/** A banner with a fresh token; `AUTH <token>` is answered OK, anything else NO. */
function tokenService(socket: net.Socket): void {
  const token = `t${Math.floor(Math.random() * 1e9)}`;
  socket.write(`HELLO token=${token}\r\n`);
  socket.on('data', (d) => {
    const line = d.toString('latin1').trim();
    socket.write(line === `AUTH ${token}` ? `OK ${token}\r\n` : `NO ${line}\r\n`);
  });
}

const TOKEN_TEMPLATE = `tcp:
  - inputs:
      - data: ""
        read: 64
        name: banner
      - data: "AUTH {{token}}\\r\\n"
        read: 64
        name: reply
    host: ["{{Hostname}}"]
    matchers-condition: and
    matchers:
      - type: word
        part: banner
        words: ["HELLO"]
      - type: regex
        part: reply
        regex: ["^OK t[0-9]+"]
    extractors:
      - type: regex
        name: token
        part: banner
        internal: true
        group: 1
        regex: ["token=(t[0-9]+)"]
`;

describe('network exchanges', () => {
  it('fills a later input from a named read of an earlier one', async () => {
    const server = await tcpServer('127.0.21.1', tokenService);
    const template = compileOrThrow(tpl('token-auth', TOKEN_TEMPLATE));
    const { findings } = await scanAll([template], [`127.0.21.1:${server.port}`]);
    expect(findings.map((f) => f.templateId)).toEqual(['token-auth']);
  });

  it('contacts no host but the input, unless other hosts are allowed', async () => {
    const other = await tcpServer('127.0.21.9', tokenService);
    const input = await tcpServer('127.0.21.2', (s) => s.end());
    const template = compileOrThrow(
      tpl('elsewhere', TOKEN_TEMPLATE.replace('["{{Hostname}}"]', `["127.0.21.9:${other.port}"]`)),
    );
    const refused = await scanAll([template], [`127.0.21.2`]);
    expect(refused.findings).toEqual([]);
    expect(other.connections()).toBe(0);
    expect(refused.scanner.summary.incomplete.invalid_request).toBe(1);
    expect(input.connections()).toBe(0);
    const allowed = await scanAll([template], ['127.0.21.2'], { allowOtherHosts: true });
    expect(allowed.findings.map((f) => f.templateId)).toEqual(['elsewhere']);
  });
});

describe('wait_for() in a matcher', () => {
  it('waits before deciding, then answers true', async () => {
    const server = await startHttp((_req, res) => res.end('ok'), '127.0.21.3');
    closers.push(server.close);
    const template = compileOrThrow(
      tpl(
        'waits',
        `http:\n  - method: GET\n    path: ["{{BaseURL}}/"]\n    matchers:\n      - type: dsl\n        dsl: ["wait_for(1) && status_code == 200"]\n`,
      ),
    );
    const started = performance.now();
    const { findings } = await scanAll([template], [server.url]);
    expect(findings.map((f) => f.templateId)).toEqual(['waits']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });
});
