import type net from 'node:net';
import type tls from 'node:tls';
import { connectGuarded } from '../scope/guarded-net.js';
import type { ScopePolicy } from '../scope/scope-policy.js';
import {
  parseRawHttp,
  type RecognisedService,
  recogniseBanner,
  recogniseMysqlHandshake,
  recogniseServerHeader,
} from './service-recognition.js';

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

type ProbeName = 'null' | 'http' | 'tls' | 'redis';

const HTTP_PORTS = new Set([
  80, 81, 82, 88, 591, 3000, 5000, 5601, 7001, 8000, 8008, 8080, 8081, 8086, 8088, 8888, 9000, 9090, 9200,
  10000,
]);
const TLS_PORTS = new Set([443, 444, 465, 636, 993, 995, 2376, 4443, 5986, 6443, 7443, 8443, 9443, 10250]);

function probeOrder(port: number): ProbeName[] {
  if (TLS_PORTS.has(port)) return ['tls', 'null', 'http'];
  if (HTTP_PORTS.has(port)) return ['http', 'null', 'tls'];
  if (port === 6379) return ['redis', 'null', 'http'];
  return ['null', 'http', 'tls', 'redis'];
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
  payload: string | null,
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

function httpRequest(ip: string, ua: string): string {
  return `GET / HTTP/1.0\r\nHost: ${ip.includes(':') ? `[${ip}]` : ip}\r\nUser-Agent: ${ua}\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
}

function fromHttp(text: string, isTls: boolean): RecognisedService | null {
  const parsed = parseRawHttp(text);
  if (!parsed) return null;
  return recogniseServerHeader(parsed.headers.server, isTls ? 'https' : 'http');
}

function recogniseData(data: Buffer): RecognisedService | null {
  return recogniseMysqlHandshake(data) ?? recogniseBanner(data.toString('latin1'));
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
    const payload =
      probe === 'http' || probe === 'tls' ? httpRequest(ip, ua) : probe === 'redis' ? 'INFO\r\n' : null;
    const isTls = probe === 'tls';
    const tlsInfo = isTls ? (socket as tls.TLSSocket).getProtocol() : null;
    const data = await exchange(socket, payload, readTimeoutMs, options.signal);
    if (!data.length) continue;
    const text = data.toString('latin1');
    firstBanner ??= printable(data);
    const recognised =
      probe === 'http' || probe === 'tls'
        ? (fromHttp(text, isTls) ?? recogniseData(data))
        : recogniseData(data);
    if (!recognised) continue;
    // Redis recognised without a version (e.g. from an HTTP probe's error): ask INFO.
    if (recognised.service === 'redis' && !recognised.version && probe !== 'redis') {
      const info = await identifyRedis(policy, ip, port, connectTimeoutMs, readTimeoutMs, options.signal);
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

async function identifyRedis(
  policy: ScopePolicy,
  ip: string,
  port: number,
  connectTimeoutMs: number,
  readTimeoutMs: number,
  signal?: AbortSignal,
): Promise<RecognisedService | null> {
  try {
    const socket = await connectGuarded(policy, { address: ip, port, timeoutMs: connectTimeoutMs, signal });
    const data = await exchange(socket, 'INFO\r\n', readTimeoutMs, signal);
    return recogniseBanner(data.toString('latin1'));
  } catch {
    return null;
  }
}
