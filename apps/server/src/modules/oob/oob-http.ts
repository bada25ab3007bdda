import http from 'node:http';
import https from 'node:https';
import { idsOfName, idsOfText, plainAddress, RAW_LIMIT } from './oob-fns.ts';
import { closer, type Listener, listening } from './oob-net.ts';
import type { Recorder } from './oob-recorder.ts';

/** The one thing the HTTP listeners serve, to every request: nothing is proxied or looked up. */
export const HTTP_BODY = 'perimeter out-of-band interaction server\n';
const RESPONSE_HEAD = `HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(HTTP_BODY)}\r\n\r\n`;

/**
 * Answers every request with the fixed body and records it when it carries a live id: in the Host
 * under the zone first, else anywhere in its target (a path such as `/x/<id>` from an SSRF payload).
 */
function handler(zone: string, recorder: Recorder, protocol: 'http' | 'https') {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (size < RAW_LIMIT) chunks.push(c);
      size += c.length;
    });
    req.on('error', () => {});
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(HTTP_BODY);
      const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
      const headers = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        headers.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      const body = Buffer.concat(chunks).toString('latin1');
      const raw = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n${headers.join('\r\n')}\r\n\r\n${body}`;
      const ids = [...idsOfName(host, zone), ...idsOfText(`${req.url ?? ''}\n${body}`)];
      if (ids.length)
        void recorder.record({
          ids,
          protocol: 'http',
          remoteAddress: plainAddress(req.socket.remoteAddress),
          rawRequest: protocol === 'https' ? `[https]\r\n${raw}` : raw,
          rawResponse: `${RESPONSE_HEAD}${HTTP_BODY}`,
        });
    });
  };
}

export async function startHttp(
  host: string,
  port: number,
  zone: string,
  recorder: Recorder,
  tls?: { cert: Buffer; key: Buffer },
): Promise<Listener> {
  const protocol = tls ? 'https' : 'http';
  const onRequest = handler(zone, recorder, protocol);
  const server = tls
    ? https.createServer({ cert: tls.cert, key: tls.key }, onRequest)
    : http.createServer(onRequest);
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.maxHeadersCount = 100;
  server.on('clientError', (_err, socket) => socket.destroy());
  const close = closer(server);
  return { protocol, address: await listening(server, port, host), close };
}
