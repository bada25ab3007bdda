import type { Dispatcher } from 'undici';
import type { HttpRequestInit, PreparedRequest } from './http-client.ts';
import type { RequestGuard } from './http-request-guard.ts';

export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const canonicalNames = new Map<string, string>();

/** Go's CanonicalMIMEHeaderKey (what nuclei's responses hold): `x-powered-by` → `X-Powered-By`. */
export function canonicalHeaderName(name: string): string {
  let c = canonicalNames.get(name);
  if (c === undefined) {
    c = TOKEN.test(name)
      ? name
          .toLowerCase()
          .replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => dash + letter.toUpperCase())
      : name;
    if (canonicalNames.size < 4096) canonicalNames.set(name, c);
  }
  return c;
}

// Canonical names by the bytes a server sent: a small table, each slot one name's bytes and its
// canonical name (a header name's string costs more than the rest of its pair; the lookup makes
// none). A slot another name hashes to is taken over; a miss goes through the string.
const NAME_SLOTS = 256;
const slotBytes: (Uint8Array | undefined)[] = new Array(NAME_SLOTS).fill(undefined);
const slotNames: string[] = new Array(NAME_SLOTS).fill('');

/** `canonicalHeaderName` of a header name as received (latin1 bytes). */
export function canonicalHeaderNameOf(raw: Uint8Array): string {
  const n = raw.length;
  let h = n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ (raw[i] as number), 16777619);
  const slot = (h >>> 24) & (NAME_SLOTS - 1);
  const known = slotBytes[slot];
  if (known !== undefined && known.length === n) {
    let i = 0;
    while (i < n && known[i] === raw[i]) i++;
    if (i === n) return slotNames[slot] as string;
  }
  const name = canonicalHeaderName(Buffer.from(raw.buffer, raw.byteOffset, n).toString('latin1'));
  // A copy: undici's name is a view of the socket's read buffer, which is reused.
  slotBytes[slot] = new Uint8Array(raw);
  slotNames[slot] = name;
  return name;
}

/**
 * Collects one response from undici's dispatch callbacks into HttpResponseData and settles
 * the request's guard. undici's callback form with raw headers (its newer form only wraps
 * this one and builds a header object per response). Header names as nuclei's Go client shows
 * them (canonical MIME form, whatever case the server used); a repeated header's values stay
 * together, in order, where it first appeared. The body stops at `maxBytes`: the response
 * settles there, truncated, and the exchange is cut (the connection closes).
 */
/** Asks again over a plain socket (see `isRefusedUpgrade`). */
export interface UpgradeFallback {
  resendRaw(
    init: HttpRequestInit,
    prepared: PreparedRequest,
    guard: RequestGuard,
    maxBytes: number,
    started: number,
  ): void;
}

export class ResponseCollector implements Dispatcher.DispatchHandler {
  private status = 0;
  private statusText = '';
  private headers: string[] = NO_HEADERS;
  // Most bodies come in one chunk: a list only from the second (a list per response costs
  // more bytes than its chunk's Buffer object).
  private firstChunk: Buffer | undefined = undefined;
  private chunks: Buffer[] | undefined = undefined;
  private size = 0;
  private abortExchange: ((err?: Error) => void) | undefined = undefined;

  constructor(
    private readonly init: HttpRequestInit,
    private readonly prepared: PreparedRequest,
    private readonly guard: RequestGuard,
    private readonly maxBytes: number,
    private readonly started: number,
    /**
     * undici fails a request answered `101 Switching Protocols` that did not ask to upgrade
     * ('bad upgrade', or one of its parser's assertions when the answer has no Upgrade
     * header); nuclei reads that answer as the response: this asks again over a socket.
     */
    private readonly upgradeFallback: UpgradeFallback,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    // The scan's abort or the deadline ends the exchange (see RequestGuard).
    this.abortExchange = abort;
    this.guard.connected(abort);
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    this.status = statusCode;
    this.statusText = STATUS_TEXT[statusCode] ?? '';
    // Names and values flat, in a list made at its size (growing it by pushes allocates a
    // larger backing store than the few headers need).
    const list = new Array<string>(raw.length & ~1);
    let n = 0;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = canonicalHeaderNameOf(raw[i] as Buffer);
      const value = (raw[i + 1] as Buffer).toString('utf8');
      let at = n;
      for (let j = n - 2; j >= 0; j -= 2)
        if (list[j] === name) {
          // After the last header of the same name: later ones move one place on.
          for (at = n; at > j + 2; at -= 2) {
            list[at] = list[at - 2] as string;
            list[at + 1] = list[at - 1] as string;
          }
          break;
        }
      list[at] = name;
      list[at + 1] = value;
      n += 2;
    }
    this.headers = list;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.size + chunk.length > this.maxBytes) {
      this.keep(chunk.subarray(0, this.maxBytes - this.size));
      this.size = this.maxBytes;
      this.finish(true);
      this.abortExchange?.(new Error('response larger than the size limit'));
      return false;
    }
    this.keep(chunk);
    this.size += chunk.length;
    return true;
  }

  private keep(chunk: Buffer): void {
    if (this.chunks) this.chunks.push(chunk);
    else if (this.firstChunk) this.chunks = [this.firstChunk, chunk];
    else this.firstChunk = chunk;
  }

  onComplete(): void {
    this.finish(false);
  }

  onError(err: Error): void {
    if (isRefusedUpgrade(err))
      this.upgradeFallback.resendRaw(this.init, this.prepared, this.guard, this.maxBytes, this.started);
    else this.guard.settle(undefined, err);
  }

  private finish(truncated: boolean): void {
    const { firstChunk, chunks } = this;
    this.guard.settle(
      {
        url: this.init.url,
        status: this.status,
        statusText: this.statusText,
        headers: this.headers,
        body: chunks ? Buffer.concat(chunks, this.size) : (firstChunk ?? Buffer.alloc(0)),
        truncated,
        durationMs: performance.now() - this.started,
      },
      undefined,
    );
  }
}

/** Headers before any arrived (shared; replaced, never written to). */
const NO_HEADERS: string[] = [];

export function isRefusedUpgrade(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return (code === 'UND_ERR_SOCKET' && (err as Error).message === 'bad upgrade') || code === 'ERR_ASSERTION';
}

export const STATUS_TEXT: Record<number, string> = {
  101: 'Switching Protocols',
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};
