import net from 'node:net';
import { idsOfText, plainAddress, printable } from './oob-fns.ts';
import { closer, type Listener, listening } from './oob-net.ts';
import type { Recorder } from './oob-recorder.ts';

/**
 * A minimal LDAP listener for JNDI-style call-backs (Log4Shell: `${jndi:ldap://<id>.<zone>/<path>}`).
 * It reads BER-encoded LDAPMessages (RFC 4511) only as far as needed: the message id, the operation,
 * a bind's name and a search's base object. A bind is answered with success so that JNDI clients go
 * on to send their search; a search is answered with an empty, successful SearchResultDone; nothing
 * is ever looked up or referred. The connection is recorded once (at the first search, an unbind,
 * or when it closes) when its messages carry a live id — the JNDI path is where an id can travel,
 * since the LDAP protocol does not repeat the host name (whose DNS lookup is recorded by the DNS
 * listener).
 */
const MAX_BYTES = 16 * 1024;
const MAX_MESSAGES = 8;
const IDLE_MS = 5000;

interface Tlv {
  /** Offset of the tag byte. */
  at: number;
  tag: number;
  start: number;
  end: number;
}

/** One BER element at `at`; undefined when incomplete, null when malformed. */
export function readTlv(buf: Buffer, at: number): Tlv | undefined | null {
  if (at + 2 > buf.length) return undefined;
  const tag = buf[at] as number;
  let len = buf[at + 1] as number;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 3) return null;
    if (start + n > buf.length) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (buf[start + i] as number);
    start += n;
  }
  if (start + len > buf.length) return undefined;
  return { at, tag, start, end: start + len };
}

const children = (buf: Buffer, t: Tlv): Tlv[] => {
  const out: Tlv[] = [];
  for (let at = t.start; at < t.end; ) {
    const c = readTlv(buf, at);
    if (!c || c.end > t.end) break;
    out.push(c);
    at = c.end;
  }
  return out;
};

const intOf = (buf: Buffer, t: Tlv | undefined) => {
  if (!t) return 0;
  let v = 0;
  for (let i = t.start; i < t.end && i < t.start + 4; i++) v = v * 256 + (buf[i] as number);
  return v;
};

const lengthBytes = (n: number) =>
  n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
const element = (tag: number, body: Buffer) =>
  Buffer.concat([Buffer.from([tag]), lengthBytes(body.length), body]);
function integer(n: number): Buffer {
  const bytes: number[] = [];
  do {
    bytes.unshift(n & 0xff);
    n = Math.floor(n / 256);
  } while (n > 0);
  if ((bytes[0] as number) & 0x80) bytes.unshift(0);
  return element(0x02, Buffer.from(bytes));
}

/** An LDAPResult of success under `tag` (0x61 BindResponse, 0x65 SearchResultDone) for message `id`. */
export function successResponse(id: number, tag: number): Buffer {
  const result = Buffer.from([0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00]);
  return element(0x30, Buffer.concat([integer(id), element(tag, result)]));
}

const OPS: Record<number, string> = {
  96: 'BindRequest',
  66: 'UnbindRequest',
  99: 'SearchRequest',
  119: 'ExtendedRequest',
  80: 'AbandonRequest',
};

/** A message read: its id, operation and readable rendering. */
export function parseMessage(
  buf: Buffer,
  msg: Tlv,
): { id: number; op: number; text: string; names: string[] } {
  const [idT, opT] = children(buf, msg);
  const id = intOf(buf, idT);
  const op = opT?.tag ?? 0;
  const name = OPS[op] ?? `operation 0x${op.toString(16)}`;
  let text = `#${id} ${name}`;
  const names: string[] = [];
  if (opT && (op === 0x60 || op === 0x63)) {
    const parts = children(buf, opT);
    const field = op === 0x60 ? parts[1] : parts[0];
    const value = field ? buf.toString('latin1', field.start, field.end) : '';
    names.push(value);
    text +=
      op === 0x60
        ? ` version=${intOf(buf, parts[0])} name=${JSON.stringify(value)}`
        : ` base=${JSON.stringify(value)}`;
  }
  return { id, op, names, text: `${text}\n${printable(buf.subarray(msg.at, msg.end), 2048)}` };
}

export async function startLdap(host: string, port: number, recorder: Recorder): Promise<Listener> {
  const server = net.createServer((socket) => {
    const remote = plainAddress(socket.remoteAddress);
    let buf = Buffer.alloc(0);
    const seen: string[] = [];
    const names: string[] = [];
    const sent: string[] = [];
    let recorded = false;
    const record = () => {
      if (recorded || !seen.length) return;
      recorded = true;
      const rawRequest = seen.join('\n');
      // Ids from the names the messages carry (a bind DN, a search base), not from the byte dump.
      const ids = idsOfText(names.join('\n'));
      if (ids.length)
        void recorder.record({
          ids,
          protocol: 'ldap',
          remoteAddress: remote,
          rawRequest,
          rawResponse: sent.join('\n'),
        });
    };
    const reply = (out: Buffer, text: string) => {
      sent.push(text);
      if (!socket.destroyed) socket.write(out);
    };
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.on('error', () => {});
    socket.on('close', record);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length > MAX_BYTES) return socket.destroy();
      for (;;) {
        const msg = readTlv(buf, 0);
        if (msg === null || (msg && msg.tag !== 0x30)) return socket.destroy();
        if (!msg) return;
        const parsed = parseMessage(buf, msg);
        buf = buf.subarray(msg.end);
        seen.push(parsed.text);
        names.push(...parsed.names);
        if (parsed.op === 0x60) reply(successResponse(parsed.id, 0x61), `#${parsed.id} BindResponse success`);
        else if (parsed.op === 0x63) {
          reply(successResponse(parsed.id, 0x65), `#${parsed.id} SearchResultDone success`);
          record();
        } else if (parsed.op === 0x42) {
          record();
          return socket.end();
        }
        if (seen.length >= MAX_MESSAGES) {
          record();
          return socket.end();
        }
      }
    });
  });
  const close = closer(server);
  return { protocol: 'ldap', address: await listening(server, port, host), close };
}
