import { randomFillSync } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type RecordType } from 'dns-packet';
import { AbortedError } from '../lib/async.ts';

export interface DnsServer {
  host: string;
  port: number;
}

export class DnsError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'DnsError';
  }
}

/** Lower-case, without one trailing dot. */
export function lower(name: string): string {
  const l = name.toLowerCase();
  return l.endsWith('.') ? l.slice(0, -1) : l;
}

/**
 * What the kernel reports on a connected UDP socket when an ICMP error comes back from its server
 * (port or host unreachable): it concerns every query in flight to that server, not one datagram.
 */
const SERVER_UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN']);

/** Room for a few thousand answers (each datagram costs the buffer ~1 kB, whatever its size). */
const RECV_BUFFER_BYTES = 4 << 20;

export interface DnsQueryOptions {
  /** The recursion-desired flag: set unless `false`. */
  recursion?: boolean;
  /** Aborting rejects the query with an AbortedError. */
  signal?: AbortSignal;
}

interface Pending {
  id: number;
  /** The query as it goes out. */
  wire: Buffer;
  /** Its question as a server reads it (a view of `wire`): an answer must repeat it. */
  question: Buffer;
  /** How an answer is read (it throws on a malformed one, which is then ignored). */
  decode: (answer: Buffer, questionLength: number) => unknown;
  resolve(answer: unknown): void;
  reject(e: Error): void;
  /** performance.now() past which the query has timed out. */
  deadline: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** What the resolver reads of an answer. */
export interface DnsAnswers {
  /** The header's flags, as dns-packet decodes them (without QR). */
  flags: number;
  rcode: string;
  answers: Answer[];
}

/** dns-packet's decoder of one resource record (exported by the library, not by its typings). */
const recordCodec = (
  dnsPacket as unknown as {
    answer: { decode: ((buf: Buffer, offset: number) => Answer) & { bytes: number } };
  }
).answer;

/** Response codes' names as dns-packet gives them, read from its decoding of a bare header. */
const rcodeNames: string[] = [];

function rcodeName(code: number): string {
  rcodeNames[code] ??= String(
    (dnsPacket.decode(Buffer.from([0, 0, 0x80, code, 0, 0, 0, 0, 0, 0, 0, 0])) as { rcode?: string }).rcode,
  );
  return rcodeNames[code] as string;
}

/**
 * The flags, rcode and answer records of an answer whose one question has been checked
 * (echoesQuestion), each record decoded by dns-packet: its question, authority and additional
 * records (an NXDOMAIN's SOA), which the resolver never read, are not decoded. Most of a brute
 * force's answers are NXDOMAIN: decoding the whole packet was an eighth of the client's CPU.
 */
export function decodeAnswers(answer: Buffer, questionLength: number): DnsAnswers {
  if (answer.readUInt16BE(4) !== 1) {
    const whole = dnsPacket.decode(answer) as DecodedPacket & { rcode?: string };
    return { flags: whole.flags ?? 0, rcode: whole.rcode ?? 'NOERROR', answers: whole.answers ?? [] };
  }
  const flags = answer.readUInt16BE(2);
  const answers = new Array<Answer>(answer.readUInt16BE(6));
  let at = 12 + questionLength;
  for (let i = 0; i < answers.length; i++) {
    answers[i] = recordCodec.decode(answer, at);
    at += recordCodec.decode.bytes;
  }
  return { flags: flags & 0x7fff, rcode: rcodeName(flags & 0xf), answers };
}

const decodeWhole = (answer: Buffer): DecodedPacket => dnsPacket.decode(answer);

/** Record type codes as dns-packet writes them, by the type asked ('*' is ANY's 255). */
const typeCodes = new Map<string, number>();

/** Letters, digits, '_', '-' and '*': what a label of a plain name is made of. */
function isPlainChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 42
  );
}

/**
 * The query dns-packet encodes for a plain name (labels of 1–63 plain characters, one trailing dot
 * at most), written directly: encoding it through the library was 6 % of a brute force's profile.
 * Undefined for any other name, which the library encodes.
 */
function encodePlain(id: number, flags: number, name: string, typeCode: number): Buffer | undefined {
  const end = name.charCodeAt(name.length - 1) === 46 ? name.length - 1 : name.length;
  if (end === 0 || end > 250) return undefined;
  const buf = Buffer.allocUnsafe(12 + end + 2 + 4);
  buf.writeUInt16BE(id, 0);
  buf.writeUInt16BE(flags & 0x7fff, 2);
  buf.writeUInt16BE(1, 4);
  buf.writeUInt16BE(0, 6);
  buf.writeUInt32BE(0, 8);
  let lengthAt = 12;
  let at = 13;
  for (let i = 0; i < end; i++) {
    const c = name.charCodeAt(i);
    if (c === 46) {
      const length = at - lengthAt - 1;
      if (length < 1 || length > 63) return undefined;
      buf[lengthAt] = length;
      lengthAt = at++;
    } else if (isPlainChar(c)) buf[at++] = c;
    else return undefined;
  }
  const length = at - lengthAt - 1;
  if (length < 1 || length > 63) return undefined;
  buf[lengthAt] = length;
  buf[at++] = 0;
  buf.writeUInt16BE(typeCode, at);
  buf.writeUInt16BE(1, at + 2); // IN
  return buf;
}

/** One query (class IN) on the wire, as dns-packet encodes it. */
export function encodeQuery(id: number, flags: number, name: string, type: RecordType): Buffer {
  const code = typeCodes.get(type);
  const plain = code === undefined ? undefined : encodePlain(id, flags, name, code);
  if (plain) return plain;
  const buf = dnsPacket.encode({ id, type: 'query', flags, questions: [{ name, type, class: 'IN' }] });
  // The query ends with its one question's type and class.
  if (code === undefined) typeCodes.set(type, buf.readUInt16BE(buf.length - 4));
  return buf;
}

/**
 * The first question of an encoded query as a server reads it: its name up to the first empty
 * label, then type and class (a name with an empty label inside, 'a..b', ends there on the wire).
 */
export function questionOf(query: Buffer): Buffer {
  let at = 12;
  for (let length = query[at]; length !== 0; length = query[at]) {
    // Past 63 bytes a label is not one; past 254 a name is too long (what decoding rejects).
    if (length === undefined || length > 63 || at + length - 11 > 254)
      throw new DnsError('malformed query name', 'EBADNAME');
    at += length + 1;
  }
  if (at + 5 > query.length) throw new DnsError('malformed query name', 'EBADNAME');
  return query.subarray(12, at + 5);
}

/**
 * Whether an answer repeats the question asked: the same bytes, the name's ASCII letters in any
 * case (a server may echo a 0x20-randomised name in its own case; DNS names compare ASCII
 * case-insensitively only). Read from the answer's bytes, before it is decoded.
 */
export function echoesQuestion(answer: Buffer, question: Buffer): boolean {
  if (answer.length < 12 + question.length || answer.readUInt16BE(4) === 0) return false;
  const nameEnd = question.length - 4;
  for (let i = 0; i < question.length; i++) {
    let a = answer[12 + i] as number;
    let q = question[i] as number;
    if (i < nameEnd) {
      if (a >= 65 && a <= 90) a |= 0x20;
      if (q >= 65 && q <= 90) q |= 0x20;
    }
    if (a !== q) return false;
  }
  return true;
}

/** Query ids drawn from the system's CSPRNG a batch at a time (randomInt's checks cost each query). */
const randomIds = new Uint16Array(1024);
let nextRandomId = randomIds.length;

function randomId(): number {
  if (nextRandomId === randomIds.length) {
    randomFillSync(randomIds);
    nextRandomId = 0;
  }
  return randomIds[nextRandomId++] as number;
}

/**
 * One connected UDP socket to one DNS server, multiplexed by query id. Connected once, so a
 * send skips sendto's address lookup and route, and the kernel delivers only datagrams from
 * the server's address and port: an answer from anywhere else cannot settle a query. An answer
 * must also repeat the question it answers, or it is ignored like a spoofed one.
 */
export class DnsUdpSocket {
  private socket: dgram.Socket | undefined;
  private connected = false;
  private readonly pending = new Map<number, Pending>();
  /**
   * Queries not sent yet: made while connect() is under way (dgram refuses an address-less send
   * before it), or in this turn of the event loop, sent together after it (flush).
   */
  private queued: Pending[] = [];
  private flushScheduled = false;
  /** Queries in the order they were sent (their deadlines' order), with their ids, from `head`. */
  private expiring: Pending[] = [];
  private ids: number[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly server: DnsServer,
    private readonly timeoutMs: number,
  ) {}

  /** Any record type (class IN); resolves with the whole decoded answer, whatever its rcode. */
  query(name: string, type: RecordType, options: DnsQueryOptions = {}): Promise<DecodedPacket> {
    return this.ask(name, type, options, decodeWhole);
  }

  /** As query, resolving with the answer's flags, rcode and answer records only (decodeAnswers). */
  answers(name: string, type: RecordType, options: DnsQueryOptions = {}): Promise<DnsAnswers> {
    return this.ask(name, type, options, decodeAnswers);
  }

  private ask<T>(
    name: string,
    type: RecordType,
    options: DnsQueryOptions,
    decode: (answer: Buffer, questionLength: number) => T,
  ): Promise<T> {
    const { signal } = options;
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError());
      const id = this.newId();
      const wire = encodeQuery(id, options.recursion === false ? 0 : dnsPacket.RECURSION_DESIRED, name, type);
      const question = questionOf(wire);
      this.open();
      const p: Pending = {
        id,
        wire,
        question,
        decode,
        resolve: resolve as (answer: unknown) => void,
        reject,
        deadline: performance.now() + this.timeoutMs,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        p.onAbort = () => this.drop(id, p, new AbortedError());
        signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.pending.set(id, p);
      this.expiring.push(p);
      this.ids.push(id);
      this.armTimer();
      this.queued.push(p);
      if (this.connected && !this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * One timer per socket for the time-outs of its queries (a timer per query cost a brute force
   * a timer object and its list's upkeep for each of its thousands of questions). Queries expire
   * in the order they were sent (one time-out for all), so the timer waits for the oldest.
   */
  private armTimer(): void {
    if (this.timer) return;
    while (this.head < this.expiring.length && !this.isPending(this.head)) this.head++;
    if (this.head > 1024 && this.head * 2 > this.expiring.length) {
      this.expiring = this.expiring.slice(this.head);
      this.ids = this.ids.slice(this.head);
      this.head = 0;
    }
    const oldest = this.expiring[this.head];
    if (!oldest) {
      this.expiring = [];
      this.ids = [];
      this.head = 0;
      return;
    }
    this.timer = setTimeout(() => this.expire(), Math.max(0, Math.ceil(oldest.deadline - performance.now())));
  }

  private isPending(index: number): boolean {
    const p = this.expiring[index];
    return !!p && this.pending.get(this.ids[index] as number) === p;
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    const expired: { id: number; p: Pending }[] = [];
    for (; this.head < this.expiring.length; this.head++) {
      const p = this.expiring[this.head] as Pending;
      if (p.deadline > now) break;
      if (this.isPending(this.head)) expired.push({ id: this.ids[this.head] as number, p });
    }
    // setImmediate: after an event-loop stall, an answer already received is taken first.
    if (expired.length)
      setImmediate(() => {
        for (const { id, p } of expired)
          this.drop(id, p, new DnsError(`DNS timeout after ${this.timeoutMs} ms`, 'ETIMEOUT'));
      });
    this.armTimer();
  }

  /** Nothing is in flight any more: no timer keeps waiting for it. */
  private forgetTimeouts(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.expiring = [];
    this.ids = [];
    this.head = 0;
  }

  /** Settles a query that is no longer pending: its abort listener goes. */
  private settled(p: Pending): void {
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
  }

  /** Rejects what is in flight and closes the socket; a later query opens a new one. */
  close(): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.queued = [];
    this.forgetTimeouts();
    this.discard();
    for (const p of pending) {
      this.settled(p);
      p.reject(new AbortedError('resolver closed'));
    }
  }

  private newId(): number {
    for (let i = 0; i < 100; i++) {
      // Unpredictable: with the source port, all an off-path forger would have to guess.
      const id = randomId();
      if (id !== 0 && !this.pending.has(id)) return id;
    }
    throw new DnsError('too many DNS queries in flight', 'EBUSY');
  }

  private open(): dgram.Socket {
    if (this.socket) return this.socket;
    // A brute force keeps 200 queries in flight per scan and a worker's scans share this socket:
    // answers that arrive while the event loop is busy wait in the receive buffer, and past the
    // default (208 kB, ~200 datagrams) the kernel drops them (13 of 3,000 at concurrency 200 on
    // loopback), each a query that then waits its whole timeout. Capped by net.core.rmem_max.
    const socket = dgram.createSocket({
      type: net.isIPv6(this.server.host) ? 'udp6' : 'udp4',
      recvBufferSize: RECV_BUFFER_BYTES,
    });
    socket.on('message', (msg) => this.onMessage(msg));
    // A failed connect (lookup, bad address) and an ICMP error from the server (recvmsg) come here.
    socket.on('error', (e) => this.fail(socket, e));
    socket.once('connect', () => {
      if (socket !== this.socket) return;
      this.connected = true;
      this.flush();
    });
    socket.unref();
    try {
      socket.connect(this.server.port, this.server.host);
    } catch (e) {
      socket.close(); // a bad port: this attempt fails, the next one tries again
      throw e;
    }
    this.socket = socket;
    return socket;
  }

  /**
   * Sends what was asked in this turn of the event loop, after its I/O callbacks: the answers that
   * arrived together start their next queries together. Each datagram still costs a system call,
   * but a burst wakes a server that waits (on loopback: its process, from the sender's call) once,
   * not once a query — a brute force sending as each answer came in measured 2.7 times the send
   * cost of the same questions sent by a tight loop.
   */
  private flush(): void {
    this.flushScheduled = false;
    const socket = this.socket;
    if (!socket || !this.connected) return;
    const queued = this.queued;
    this.queued = [];
    for (const p of queued) if (this.pending.get(p.id) === p) this.send(socket, p);
  }

  private send(socket: dgram.Socket, p: Pending): void {
    socket.send(p.wire, (err) => {
      if (!err) return;
      // The socket's pending ICMP error can be reported by a send instead of recvmsg.
      if (SERVER_UNREACHABLE.has((err as NodeJS.ErrnoException).code ?? '')) return this.fail(socket, err);
      this.drop(p.id, p, err);
    });
  }

  /** Rejects one query with `err` unless it has already settled. */
  private drop(id: number, p: Pending, err: Error): void {
    if (this.pending.get(id) !== p) return;
    this.pending.delete(id);
    this.settled(p);
    p.reject(err);
  }

  private onMessage(msg: Buffer): void {
    // A response (QR set) to a query in flight, repeating its question; then readable, or ignored.
    if (msg.length < 12 || !((msg[2] as number) & 0x80)) return;
    const id = msg.readUInt16BE(0);
    const p = this.pending.get(id);
    if (!p || !echoesQuestion(msg, p.question)) return;
    let answer: unknown;
    try {
      answer = p.decode(msg, p.question.length);
    } catch {
      return;
    }
    this.pending.delete(id);
    this.settled(p);
    p.resolve(answer);
  }

  /**
   * Every query in flight to this server fails with `err` (each is a failed attempt the resolver
   * retries elsewhere). The kernel keeps one pending error per socket, so one report may stand for
   * several datagrams. A socket that never connected is dropped; the next query connects anew.
   */
  private fail(socket: dgram.Socket, err: NodeJS.ErrnoException): void {
    if (socket !== this.socket) return;
    if (!this.connected) this.discard();
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.queued = [];
    this.forgetTimeouts();
    // A DnsError with the system's code: 'name not resolved: ECONNREFUSED', not a bare 'error'.
    const code = err.code ?? 'EUNREACHABLE';
    const e = new DnsError(`DNS server ${this.server.host}:${this.server.port}: ${code}`, code);
    for (const p of pending) {
      this.settled(p);
      p.reject(e);
    }
  }

  private discard(): void {
    const socket = this.socket;
    this.socket = undefined;
    this.connected = false;
    try {
      socket?.close();
    } catch {
      // already closed
    }
  }
}
