import net from 'node:net';
import tls from 'node:tls';
import type { DslValue } from '../../operators/dsl/dsl-functions.ts';
import { interpolate } from '../../operators/dsl/dsl-interpolate.ts';
import { JARM_HOST, JARM_VALUE } from '../../operators/dsl/dsl-interpreter.ts';
import { HostSkippedError } from '../../templates/politeness.ts';
import type { RunContext } from '../../templates/run-types.ts';
import { noteIncomplete, type ProtocolExecutor } from '../../templates/template-runner.ts';
import type { CompiledNetworkRequest } from '../../templates/template-types.ts';
import { jarmFingerprint } from '../ssl/jarm.ts';

// Wait this long for a first byte after sending, then this long for more once data flows.
const FIRST_BYTE_MS = 3000;
const MORE_DATA_MS = 300;

interface Exchange {
  data: Buffer;
  perInput: Buffer[];
  /** What each input sent. */
  sent: Buffer[];
}

/**
 * An input's bytes, or a function that makes them when the input's turn comes from what the
 * earlier inputs read (nuclei fills an input in only then: a named read can feed it).
 */
export type ExchangeInput = { data: Buffer | ((received: readonly Buffer[]) => Buffer); read?: number };

/** Connects, sends each input in turn and reads what comes back (bounded by read size and time). */
export function exchange(
  address: { host: string; port: number; tls: boolean; servername?: string },
  inputs: ExchangeInput[],
  readSize: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = address.tls
      ? tls.connect({
          host: address.host,
          port: address.port,
          rejectUnauthorized: false,
          ...(address.servername ? { servername: address.servername } : {}),
        })
      : net.connect({ host: address.host, port: address.port });
    const chunks: Buffer[] = [];
    const perInput: Buffer[] = [];
    const sent: Buffer[] = [];
    let total = 0;
    let current: Buffer[] = [];
    let step = -1;
    let idle: NodeJS.Timeout | undefined;
    let settled = false;
    const hardTimer = setTimeout(() => done(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => done(new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    function done(err: Error | null): void {
      if (settled) return;
      settled = true;
      clearTimeout(hardTimer);
      if (idle) clearTimeout(idle);
      signal?.removeEventListener('abort', onAbort);
      if (step >= 0) perInput.push(Buffer.concat(current));
      socket.destroy();
      if (err && !connected) reject(err);
      else resolve({ data: Buffer.concat(chunks), perInput, sent });
    }
    let connected = false;
    function nextStep(): void {
      if (step >= 0) perInput.push(Buffer.concat(current));
      current = [];
      step++;
      if (step >= Math.max(inputs.length, 1)) {
        done(null);
        return;
      }
      const input = inputs[step];
      const data = typeof input?.data === 'function' ? input.data(perInput) : input?.data;
      if (data) sent.push(data);
      if (data && data.length > 0) socket.write(data);
      armIdle();
    }
    function armIdle(): void {
      if (idle) clearTimeout(idle);
      idle = setTimeout(nextStep, current.length > 0 ? MORE_DATA_MS : FIRST_BYTE_MS);
    }
    socket.on(address.tls ? 'secureConnect' : 'connect', () => {
      connected = true;
      nextStep();
    });
    socket.on('data', (chunk: Buffer) => {
      const room = readSize - total;
      const part = chunk.subarray(0, Math.max(0, room));
      chunks.push(part);
      current.push(part);
      total += part.length;
      if (total >= readSize) {
        done(null);
        return;
      }
      const want = inputs[step]?.read;
      if (want !== undefined && Buffer.concat(current).length >= want) nextStep();
      else armIdle();
    });
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(null));
  });
}

function addresses(
  req: CompiledNetworkRequest,
  vars: Record<string, DslValue>,
  targetPort: number | undefined,
): { host: string; port: number; tls: boolean }[] {
  const out: { host: string; port: number; tls: boolean }[] = [];
  for (const h of req.hosts) {
    const r = interpolate(h, vars);
    if (r.unresolved.length > 0) continue;
    let text = r.text.trim();
    const isTls = text.startsWith('tls://');
    text = text.replace(/^tls:\/\//, '');
    const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(text);
    if (!m) continue;
    const host = m[1] as string;
    const explicit = m[2] ? Number(m[2]) : undefined;
    // The input's port wins when the scan found it open; the template's ports are a filter.
    if (targetPort !== undefined) {
      if (req.ports.length === 0 || req.ports.includes(targetPort) || explicit === targetPort)
        out.push({ host, port: targetPort, tls: isTls });
    } else if (explicit !== undefined && req.ports.length === 0)
      out.push({ host, port: explicit, tls: isTls });
    else for (const port of req.ports) out.push({ host, port, tls: isTls });
  }
  const seen = new Set<string>();
  return out.filter((a) => {
    const k = `${a.tls}|${a.host}|${a.port}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Non-printable bytes shown as dots in evidence. */
function printableText(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    out += c === 9 || c === 10 || c === 13 || (c >= 32 && c < 127) ? ch : '.';
  }
  return out;
}

/**
 * Input `n`'s bytes once the earlier inputs have read: their named reads (`name:`) and what
 * the internal extractors find in them are variables here, as in nuclei.
 */
function inputBytes(
  req: CompiledNetworkRequest,
  n: number,
  vars: Record<string, DslValue>,
  received: readonly Buffer[],
): Buffer {
  const input = req.inputs[n] as CompiledNetworkRequest['inputs'][number];
  const text = input.data as string;
  let scope = vars;
  const reads: Record<string, DslValue> = {};
  let named = false;
  for (let j = 0; j < n; j++) {
    const name = req.inputs[j]?.name;
    if (!name) continue;
    reads[name] = (received[j] ?? Buffer.alloc(0)).toString('latin1');
    named = true;
  }
  if (named) {
    scope = { ...vars, ...reads };
    for (const ex of req.operators.extractors) {
      if (!ex.internal || !ex.name) continue;
      const found = ex.extract({ values: reads, defaultPart: 'data' })[0];
      if (found !== undefined) scope[ex.name] = found;
    }
  }
  return Buffer.from(interpolate(text, scope).text, input.hex ? 'hex' : 'latin1');
}

function connectHost(host: string, ctx: RunContext): string {
  return ctx.resolve?.(host) ?? host;
}

/** network/tcp: one exchange per host × port; parts data, raw, request, host, and named inputs. */
export const networkExecutor: ProtocolExecutor = async function* (req, vars, ctx, state) {
  if (req.protocol !== 'network') return;
  const hostVars = { ...vars, Hostname: state.target.hostname, Host: state.target.hostname };
  for (const addr of addresses(req, hostVars, state.target.port)) {
    const endpoint = `${addr.host}:${addr.port}`;
    // Only the input's own host, as nuclei scopes a template to its input.
    if (!ctx.allowOtherHosts && addr.host.toLowerCase() !== state.target.hostname.toLowerCase()) {
      noteIncomplete(state, 'invalid_request');
      state.errors.push(`tcp ${endpoint}: out of scope (not the input's host)`);
      continue;
    }
    if (ctx.hosts.isBlocked(endpoint)) throw new HostSkippedError(endpoint);
    const inputs: ExchangeInput[] = req.inputs.map((i, n) => ({
      data: typeof i.data === 'string' ? (received) => inputBytes(req, n, vars, received) : i.data,
      ...(i.read !== undefined ? { read: i.read } : {}),
    }));
    await ctx.rate.acquire(endpoint, ctx.signal);
    const release = await ctx.hosts.acquire(endpoint);
    let ex: Exchange;
    try {
      ex = await exchange(
        { host: connectHost(addr.host, ctx), port: addr.port, tls: addr.tls, servername: addr.host },
        inputs,
        req.readSize,
        ctx.timeoutMs,
        ctx.signal,
      );
    } catch (err) {
      if (!ctx.signal.aborted) ctx.hosts.recordError(endpoint, (err as Error).message);
      state.errors.push(`tcp ${endpoint}: ${(err as Error).message}`);
      continue;
    } finally {
      release();
    }
    const data = ex.data.toString('latin1');
    const request = ex.sent.map((b) => b.toString('latin1')).join('');
    const values: Record<string, DslValue> = {
      data,
      raw: data,
      body: data,
      request,
      host: addr.host,
      matched: endpoint,
      ip: connectHost(addr.host, ctx),
      port: addr.port,
    };
    req.inputs.forEach((inp, i) => {
      if (inp.name) values[inp.name] = (ex.perInput[i] ?? Buffer.alloc(0)).toString('latin1');
    });
    // `jarm(Hostname)` in a matcher: the TLS fingerprint of this service, taken once here.
    if (req.jarm) {
      const release2 = await ctx.hosts.acquire(endpoint);
      try {
        values[JARM_VALUE] = await jarmFingerprint(connectHost(addr.host, ctx), addr.port, addr.host, {
          timeoutMs: ctx.timeoutMs,
          signal: ctx.signal,
        });
        values[JARM_HOST] = addr.host;
      } finally {
        release2();
      }
    }
    const printable = printableText(data);
    yield {
      event: { values, bytes: { data: ex.data, raw: ex.data, body: ex.data }, defaultPart: 'data' },
      matchedAt: endpoint,
      endpoint,
      path: '',
      request: printableText(request),
      response: printable.slice(0, 4096),
      curl: `printf %s ${JSON.stringify(request)} | nc ${addr.tls ? '--ssl ' : ''}${addr.host} ${addr.port}`,
    };
  }
};
