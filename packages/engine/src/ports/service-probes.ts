import type net from 'node:net';
import type tls from 'node:tls';
import { connectGuarded } from '../scope/guarded-net.ts';
import type { ScopePolicy } from '../scope/scope-policy.ts';
import {
  followUpPaths,
  type HttpAnswer,
  parseHttpAnswer,
  recogniseBadRequestAnswer,
  recogniseHttpAnswer,
  recogniseHttpBody,
} from './http-identification.ts';
import { FALLBACK_PROBES, PORT_PROBES, PROTOCOL_PROBES } from './protocol-probes.ts';
import {
  type RecognisedService,
  recogniseBanner,
  recogniseMysqlHandshake,
  recogniseTelnet,
} from './service-recognition.ts';

export interface ServiceInfo extends RecognisedService {
  ip: string;
  port: number;
  transport: 'tcp';
  tls: boolean;
  /** First bytes the service sent (printable, truncated). */
  banner?: string;
  source: 'builtin' | 'nmap';
}

export interface ProbeOptions {
  connectTimeoutMs?: number;
  /** How long to wait for a greeting or an answer. */
  readTimeoutMs?: number;
  signal?: AbortSignal;
  userAgent?: string;
}

type ProbeName = 'null' | 'http' | 'tls' | 'redis' | keyof typeof PROTOCOL_PROBES;

const HTTP_PORTS = new Set([
  80, 81, 82, 88, 591, 2375, 2379, 3000, 3128, 5000, 5601, 7001, 8000, 8008, 8080, 8081, 8086, 8088, 8118,
  8500, 8888, 9000, 9090, 9200, 10000,
]);
const TLS_PORTS = new Set([
  443, 444, 465, 636, 990, 993, 995, 2376, 4443, 5986, 6443, 7443, 8443, 9443, 10250,
]);

function probeOrder(port: number): ProbeName[] {
  const hinted = PORT_PROBES[port] as ProbeName | undefined;
  if (hinted) return [hinted, 'null', 'http', 'tls'];
  if (TLS_PORTS.has(port)) return ['tls', 'null', 'http'];
  if (HTTP_PORTS.has(port)) return ['http', 'null', 'tls'];
  if (port === 6379) return ['redis', 'null', 'http'];
  return ['null', 'http', 'tls', 'redis', ...(FALLBACK_PROBES as ProbeName[])];
}

function printable(buf: Buffer, max = 512): string {
  return buf
    .subarray(0, max)
    .toString('latin1')
    .replace(/[^\x20-\x7e\r\n\t]/g, '.')
    .trim();
}

/** Writes `payload` (if any) and collects what comes back until idle, closed, or full. */
function exchange(
  socket: net.Socket,
  payload: string | Buffer | null,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(idle);
      signal?.removeEventListener('abort', done);
      socket.removeAllListeners('data');
      socket.destroy();
      resolve(Buffer.concat(chunks));
    };
    // setImmediate: after an event-loop stall, data already received is read first.
    const timer = setTimeout(() => setImmediate(done), timeoutMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size >= 16_384) return done();
      clearTimeout(idle);
      idle = setTimeout(() => setImmediate(done), 150); // a greeting rarely comes in pieces further apart than this
    });
    socket.once('end', done);
    socket.once('close', done);
    socket.once('error', done);
    signal?.addEventListener('abort', done, { once: true });
    if (payload !== null) socket.write(payload);
  });
}

function httpRequest(ip: string, ua: string, path = '/'): string {
  return `GET ${path} HTTP/1.0\r\nHost: ${ip.includes(':') ? `[${ip}]` : ip}\r\nUser-Agent: ${ua}\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
}

/** A request no HTTP server accepts (a header line without a colon): proxies answer it themselves. */
function badRequest(ip: string): string {
  return `GET / HTTP/1.1\r\nHost: ${ip.includes(':') ? `[${ip}]` : ip}\r\nNo header here\r\nConnection: close\r\n\r\n`;
}

function recogniseData(data: Buffer): RecognisedService | null {
  return recogniseMysqlHandshake(data) ?? recogniseTelnet(data) ?? recogniseBanner(data.toString('latin1'));
}

interface Target {
  policy: ScopePolicy;
  ip: string;
  port: number;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  signal?: AbortSignal;
}

/** One connection, one payload, the answer (empty when it could not connect or said nothing). */
async function ask(t: Target, payload: string | Buffer | null, tls: boolean): Promise<Buffer> {
  try {
    const socket = await connectGuarded(t.policy, {
      address: t.ip,
      port: t.port,
      timeoutMs: t.connectTimeoutMs,
      signal: t.signal,
      ...(tls ? { tls: {} } : {}),
    });
    return await exchange(socket, payload, t.readTimeoutMs, t.signal);
  } catch (e) {
    if ((e as { code?: string }).code === 'scope_refused') throw e;
    return Buffer.alloc(0);
  }
}

/**
 * An HTTP port: the answer to `/`, then a request only a proxy answers itself (HAProxy's
 * page), an error page when the product or its version is still unknown (Tomcat, nginx with
 * server_tokens off), and the API paths the first answer points at.
 */
async function identifyHttp(
  t: Target,
  first: HttpAnswer,
  tls: boolean,
  ua: string,
): Promise<RecognisedService> {
  const service = tls ? 'https' : 'http';
  let r = recogniseHttpAnswer(first, service);
  if (r.service === 'http-proxy') return r;
  const bad = parseHttpAnswer((await ask(t, badRequest(t.ip), tls)).toString('latin1'));
  const front = bad && recogniseBadRequestAnswer(bad, service);
  if (front) return front;
  if (!r.product || !r.version) {
    const missing = `/perimeter-${Math.random().toString(36).slice(2, 10)}`;
    const page = parseHttpAnswer((await ask(t, httpRequest(t.ip, ua, missing), tls)).toString('latin1'));
    const fromPage = page && recogniseHttpBody(page, service);
    if (fromPage && (!r.product || fromPage.product === r.product)) r = fromPage;
  }
  // The Kubernetes API names itself at `/` (a 403 Status) and its version only at /version.
  if (!r.product || !r.version) {
    for (const path of followUpPaths(first)) {
      const page = parseHttpAnswer((await ask(t, httpRequest(t.ip, ua, path), tls)).toString('latin1'));
      const found = page && recogniseHttpAnswer(page, service);
      if (found?.product && (!r.product || (found.product === r.product && found.version))) return found;
    }
  }
  return r;
}

/**
 * Identifies the service on an open port with a few probes (greeting, HTTP, TLS, Redis),
 * in an order that depends on the port, stopping at the first recognised answer. null when no
 * probe could connect at all: the port was not open after all (e.g. a TCP self-connect).
 */
export async function identifyService(
  policy: ScopePolicy,
  ip: string,
  port: number,
  options: ProbeOptions = {},
): Promise<ServiceInfo | null> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
  const readTimeoutMs = options.readTimeoutMs ?? 1500;
  const ua = options.userAgent ?? 'Mozilla/5.0 (compatible; Perimeter/0.1)';
  const base = { ip, port, transport: 'tcp' as const, source: 'builtin' as const };
  let firstBanner: string | undefined;
  let connected = false;

  const target: Target = { policy, ip, port, connectTimeoutMs, readTimeoutMs, signal: options.signal };
  for (const probe of probeOrder(port)) {
    if (options.signal?.aborted) break;
    let socket: net.Socket;
    try {
      socket = await connectGuarded(policy, {
        address: ip,
        port,
        timeoutMs: connectTimeoutMs,
        signal: options.signal,
        ...(probe === 'tls' ? { tls: {} } : {}),
      });
    } catch (e) {
      if ((e as { code?: string }).code === 'scope_refused') throw e;
      continue;
    }
    connected = true;
    const protocol = PROTOCOL_PROBES[probe];
    const payload =
      probe === 'http' || probe === 'tls'
        ? httpRequest(ip, ua)
        : probe === 'redis'
          ? 'INFO\r\n'
          : (protocol?.payload ?? null);
    const isTls = probe === 'tls';
    const tlsInfo = isTls ? (socket as tls.TLSSocket).getProtocol() : null;
    const data = await exchange(socket, payload, readTimeoutMs, options.signal);
    if (!data.length) continue;
    const text = data.toString('latin1');
    firstBanner ??= printable(data);
    const http = probe === 'http' || probe === 'tls' ? parseHttpAnswer(text) : null;
    const recognised = http
      ? await identifyHttp(target, http, isTls, ua)
      : protocol
        ? protocol.recognise(data)
        : recogniseData(data);
    if (!recognised) continue;
    // Redis recognised without a version (e.g. from an HTTP probe's error): ask INFO.
    if (recognised.service === 'redis' && !recognised.version && probe !== 'redis') {
      const info = recogniseBanner((await ask(target, 'INFO\r\n', false)).toString('latin1'));
      if (info) Object.assign(recognised, info);
    }
    const out: ServiceInfo = { ...base, ...recognised, tls: isTls, banner: printable(data) };
    if (isTls && recognised.service !== 'https') out.service = `ssl/${recognised.service}`;
    if (isTls && tlsInfo === null) out.tls = false;
    return out;
  }
  if (!connected && !options.signal?.aborted) return null;
  return firstBanner
    ? { ...base, service: 'unknown', tls: false, banner: firstBanner }
    : { ...base, service: 'unknown', tls: false };
}
