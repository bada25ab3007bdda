import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type DecodedPacket, type Question, type RecordType } from 'dns-packet';
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
  /** The question as it went out (type and class as dns-packet decodes them), name lower-case. */
  question: Question;
  resolve(p: DecodedPacket): void;
  reject(e: Error): void;
  /** performance.now() past which the query has timed out. */
  deadline: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** A name made only of these reads back from the wire as written, less one trailing dot. */
const PLAIN_NAME = /^[A-Za-z0-9_*-]{1,63}(?:\.[A-Za-z0-9_*-]{1,63})*\.?$/;

/** A record type as an answer's question will carry it ('*' reads back as 'ANY'), by the type asked. */
const typesOnWire = new Map<string, Pick<Question, 'type' | 'class'>>();

/**
 * The question of a query as the wire carries it, as an answer's question will be decoded: what
 * decoding the encoded query gives, without decoding it for the common names.
 */
export function questionOnWire(name: string, type: RecordType, buf: Buffer): Question {
  const typed = typesOnWire.get(type);
  if (typed && name.length <= 250 && PLAIN_NAME.test(name))
    return { name: lower(name), type: typed.type, class: typed.class };
  const q = dnsPacket.decode(buf).questions?.[0] as Question;
  if (!typed) typesOnWire.set(type, { type: q.type, class: q.class });
  return { ...q, name: lower(q.name) };
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
  /** Queries made while connect() is under way (dgram refuses an address-less send before it). */
  private queued: { id: number; p: Pending; buf: Buffer }[] = [];
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
    const { signal } = options;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError());
      const id = this.newId();
      const buf = dnsPacket.encode({
        id,
        type: 'query',
        flags: options.recursion === false ? 0 : dnsPacket.RECURSION_DESIRED,
        questions: [{ name, type, class: 'IN' }],
      });
      // Read back from the wire form, as an answer's question will be: '*' is 'ANY', 'x.' is 'x'.
      const question = questionOnWire(name, type, buf);
      const socket = this.open();
      const p: Pending = {
        question,
        resolve,
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
      if (this.connected) this.send(socket, id, p, buf);
      else this.queued.push({ id, p, buf });
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
      const id = randomInt(1, 0x10000);
      if (!this.pending.has(id)) return id;
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
      const queued = this.queued;
      this.queued = [];
      for (const q of queued) if (this.pending.get(q.id) === q.p) this.send(socket, q.id, q.p, q.buf);
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

  private send(socket: dgram.Socket, id: number, p: Pending, buf: Buffer): void {
    socket.send(buf, (err) => {
      if (!err) return;
      // The socket's pending ICMP error can be reported by a send instead of recvmsg.
      if (SERVER_UNREACHABLE.has((err as NodeJS.ErrnoException).code ?? '')) return this.fail(socket, err);
      this.drop(id, p, err);
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
    let packet: DecodedPacket;
    try {
      packet = dnsPacket.decode(msg);
    } catch {
      return;
    }
    if (packet.id === undefined || packet.type !== 'response') return;
    const p = this.pending.get(packet.id);
    const q = packet.questions?.[0];
    if (!p || !q || !sameQuestion(q, p.question)) return;
    this.pending.delete(packet.id);
    this.settled(p);
    p.resolve(packet);
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

/** Names compared case-insensitively: a server may echo a 0x20-randomised name in its own case. */
function sameQuestion(q: Question, sent: Question): boolean {
  return q.type === sent.type && q.class === sent.class && lower(q.name) === sent.name;
}
