import net from 'node:net';
import tls from 'node:tls';

/**
 * HTTP over a plain or TLS socket, for what undici cannot do: `unsafe: true` raw requests
 * (nuclei sends them with its rawhttp client, byte for byte as the template writes them:
 * smuggling probes, bare LF line ends, duplicate or conflicting headers) and an answer
 * undici refuses to hand back (`101 Switching Protocols` to a plain request). The response
 * is read leniently (LF or CRLF line ends, any status line, a body by Content-Length,
 * chunks or until the server closes) within a time limit; what came before the limit is
 * kept.
 */

export interface RawExchangeTarget {
  tls: boolean;
  /** Address to connect to (already resolved, or a name for the system resolver). */
  host: string;
  port: number;
  /** TLS server name. */
  servername?: string;
}

export interface RawExchangeOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Read until the server closes (nuclei's `read-all`), whatever the headers announce. */
  readAll?: boolean;
  /** The request was HEAD: a response has no body whatever its headers say. */
  isHead?: boolean;
  signal?: AbortSignal;
}

export interface RawHttpResponse {
  status: number;
  statusText: string;
  /** Header pairs in arrival order, names as the server spelled them. */
  headers: [string, string][];
  body: Buffer;
  truncated: boolean;
}

/** Nothing that reads as an HTTP response came back within the time limit. */
export class RawExchangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RawExchangeError';
  }
}

interface Head {
  status: number;
  statusText: string;
  headers: [string, string][];
  /** Offset of the body in the bytes received. */
  bodyStart: number;
}

const STATUS_LINE = /^HTTP\/\d(?:\.\d)?\s+(\d{3})(?:[ \t]+([^\r\n]*))?/;

/** The status line and headers once the blank line after them has arrived. */
export function parseHead(data: Buffer): Head | undefined {
  // latin1: one char per byte, so offsets in the text are offsets in the buffer.
  const text = data.toString('latin1', 0, Math.min(data.length, 65536));
  const m = /\r?\n\r?\n/.exec(text);
  if (!m) return undefined;
  const lines = text.slice(0, m.index).split(/\r?\n/);
  const status = STATUS_LINE.exec(lines[0] ?? '');
  if (!status) return undefined;
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    headers.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
  }
  return {
    status: Number(status[1]),
    statusText: (status[2] ?? '').trim(),
    headers,
    bodyStart: m.index + m[0].length,
  };
}

function headerValue(headers: [string, string][], name: string): string | undefined {
  for (const [k, v] of headers) if (k.toLowerCase() === name) return v;
  return undefined;
}

/**
 * The body once it is complete, `undefined` while more is to come. Chunked bodies are
 * decoded; a malformed chunk ends the body where it is.
 */
function completeBody(head: Head, data: Buffer, options: RawExchangeOptions): Buffer | undefined {
  const rest = data.subarray(head.bodyStart);
  if (options.readAll) return undefined;
  if (
    options.isHead ||
    (head.status >= 100 && head.status < 200) ||
    head.status === 204 ||
    head.status === 304
  )
    return Buffer.alloc(0);
  if (/chunked/i.test(headerValue(head.headers, 'transfer-encoding') ?? '')) return dechunk(rest);
  const length = Number(headerValue(head.headers, 'content-length'));
  if (Number.isFinite(length) && length >= 0)
    return rest.length >= length ? rest.subarray(0, length) : undefined;
  return undefined;
}

/**
 * A chunked body decoded, or `undefined` until its last chunk has come; with `partial`, what
 * the chunks hold so far (the connection closed or the time ran out). A malformed size line
 * ends the body where it is.
 */
function dechunk(data: Buffer, partial = false): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\n', at);
    if (eol < 0) return partial ? Buffer.concat(parts) : undefined;
    const size = Number.parseInt(data.toString('latin1', at, eol).split(';')[0]?.trim() ?? '', 16);
    if (!Number.isFinite(size) || size === 0) return Buffer.concat(parts);
    const start = eol + 1;
    if (data.length < start + size) {
      if (!partial) return undefined;
      parts.push(data.subarray(start));
      return Buffer.concat(parts);
    }
    parts.push(data.subarray(start, start + size));
    at = start + size;
    if (data[at] === 0x0d) at++;
    if (data[at] === 0x0a) at++;
  }
}

/** What a connection that closed (or ran out of time) delivered, decoded as far as it goes. */
function partialBody(head: Head, data: Buffer, options: RawExchangeOptions): Buffer {
  const rest = data.subarray(head.bodyStart);
  if (!options.readAll && /chunked/i.test(headerValue(head.headers, 'transfer-encoding') ?? ''))
    return dechunk(rest, true) as Buffer;
  return rest;
}

/**
 * Connects, writes `request` as it is and reads one response. Settles within `timeoutMs`
 * whatever the server does; the socket is always destroyed at the end (no reuse: the bytes
 * may have left the connection in any state).
 */
export function rawHttpExchange(
  target: RawExchangeTarget,
  request: Buffer,
  options: RawExchangeOptions,
): Promise<RawHttpResponse> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const socket = target.tls
      ? tls.connect({
          host: target.host,
          port: target.port,
          rejectUnauthorized: false,
          ...(target.servername && !net.isIP(target.servername) ? { servername: target.servername } : {}),
        })
      : net.connect({ host: target.host, port: target.port });
    let data: Buffer = Buffer.alloc(0);
    let head: Head | undefined;
    let truncated = false;
    let settled = false;
    const timer = setTimeout(() => finish(), options.timeoutMs);
    const onAbort = () => fail(options.signal?.reason ?? new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    function cleanup(): void {
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
    }
    function fail(err: unknown): void {
      if (settled) return;
      cleanup();
      reject(err);
    }
    /** The connection closed or the time is up: hand back what makes a response. */
    function finish(): void {
      if (settled) return;
      head ??= parseHead(data);
      if (!head) {
        cleanup();
        reject(
          new RawExchangeError(
            data.length === 0
              ? `no response within ${options.timeoutMs} ms`
              : `not an HTTP response (${data.length} bytes within ${options.timeoutMs} ms)`,
          ),
        );
        return;
      }
      settle(head, partialBody(head, data, options));
    }
    function settle(h: Head, body: Buffer): void {
      cleanup();
      resolve({ status: h.status, statusText: h.statusText, headers: h.headers, body, truncated });
    }

    socket.on(target.tls ? 'secureConnect' : 'connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = options.maxBytes - data.length;
      if (chunk.length > room) {
        data = Buffer.concat([data, chunk.subarray(0, Math.max(0, room))]);
        truncated = true;
        finish();
        return;
      }
      data = data.length === 0 ? chunk : Buffer.concat([data, chunk]);
      head ??= parseHead(data);
      if (!head) return;
      const body = completeBody(head, data, options);
      if (body) settle(head, body);
    });
    socket.on('error', (err) => {
      if (data.length > 0) finish();
      else fail(err);
    });
    socket.on('close', () => finish());
  });
}
