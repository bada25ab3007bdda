import net from 'node:net';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { AbortedError, Channel, RateLimiter } from '../lib/async.ts';
import { isSelfConnectedSocket } from '../scope/guarded-net.ts';
import { ScopeError, type ScopePolicy } from '../scope/scope-policy.ts';
import { rawConnect, rawScan, tcpWrapBinding } from './raw-tcp.ts';

export interface ConnectScanOptions {
  /** Connections in flight at once for this host. */
  concurrency?: number;
  timeoutMs?: number;
  /** New connections per second to this host (0 = unlimited). */
  ratePerSecond?: number;
  signal?: AbortSignal;
  /** Called after each port is settled (for progress). */
  onSettled?: (done: number, total: number) => void;
  /**
   * Worker threads for large lists (more than 4096 ports). Default 1 (the calling thread):
   * on a busy machine more threads did not help (see docs/benchmarks.md).
   */
  threads?: number;
  /** Source address to connect from (the kernel's choice when absent). */
  sourceAddress?: string;
  /**
   * Called for each TCP self-connect discarded: connecting from a local address to itself on
   * an ephemeral port can "succeed" with nothing listening (see raw-tcp.ts).
   */
  onSelfConnect?: (port: number) => void;
}

const WORKER_URL = new URL('./raw-scan-worker.mjs', import.meta.url);

/** Splits a big scan over worker threads; each reports its open ports when done. */
function scanWithWorkers(
  address: string,
  ports: readonly number[],
  threads: number,
  concurrency: number,
  timeoutMs: number,
  out: Channel<number>,
  signal?: AbortSignal,
): void {
  const shares: number[][] = Array.from({ length: threads }, () => []);
  for (const [i, p] of ports.entries()) shares[i % threads]?.push(p);
  const workers = shares.map(
    (share) =>
      new Worker(WORKER_URL, {
        workerData: {
          address,
          ports: share,
          concurrency: Math.ceil(concurrency / threads),
          timeoutMs,
          ipv6: net.isIPv6(address),
        },
      }),
  );
  let remaining = workers.length;
  const stopAll = (err?: Error) => {
    for (const w of workers) void w.terminate();
    signal?.removeEventListener('abort', onAbort);
    out.close(err);
  };
  const onAbort = () => stopAll(new AbortedError());
  signal?.addEventListener('abort', onAbort, { once: true });
  for (const w of workers) {
    w.once('message', (open: number[]) => {
      for (const p of open) out.push(p);
      void w.terminate();
      if (--remaining === 0) stopAll();
    });
    w.once('error', (e) => stopAll(e));
  }
}

/**
 * TCP connect scan of one address: yields each open port as soon as it is found. The scope
 * policy is checked once for the address before any connect().
 */
export function scanTcpPorts(
  policy: ScopePolicy,
  address: string,
  ports: readonly number[],
  options: ConnectScanOptions = {},
): AsyncIterable<number> {
  const decision = policy.check(address);
  if (!decision.allowed) throw new ScopeError(address, decision.reason);
  const concurrency = Math.max(1, options.concurrency ?? 1000);
  const timeoutMs = options.timeoutMs ?? 1500;
  const limiter = new RateLimiter(options.ratePerSecond ?? 0);
  const out = new Channel<number>();
  const binding = tcpWrapBinding();
  const threads = Math.min(options.threads ?? 1, os.availableParallelism());
  const { sourceAddress, onSelfConnect } = options;
  if (
    binding &&
    threads > 1 &&
    ports.length > 4096 &&
    !options.ratePerSecond &&
    !options.onSettled &&
    !sourceAddress &&
    !onSelfConnect
  ) {
    if (options.signal?.aborted) out.close(new AbortedError());
    else scanWithWorkers(address, ports, threads, concurrency, timeoutMs, out, options.signal);
    return out;
  }
  if (binding && !options.ratePerSecond) {
    // Fast path: no per-port bookkeeping beyond the connect request itself.
    const scan = rawScan(
      binding,
      address,
      ports,
      { concurrency, timeoutMs, ipv6: net.isIPv6(address), source: sourceAddress, onSelfConnect },
      (port) => out.push(port),
      () => {
        options.signal?.removeEventListener('abort', abortRaw);
        out.close(options.signal?.aborted ? new AbortedError() : undefined);
      },
      options.onSettled,
    );
    const abortRaw = () => scan.cancel();
    if (options.signal?.aborted) scan.cancel();
    else options.signal?.addEventListener('abort', abortRaw, { once: true });
    return out;
  }
  type Attempt = { cancel(): void };
  const inFlight = new Map<Attempt, number>();
  const ipv6 = net.isIPv6(address);
  let next = 0;
  let settled = 0;
  let finished = false;

  const finish = (err?: Error) => {
    if (finished) return;
    finished = true;
    clearInterval(sweeper);
    options.signal?.removeEventListener('abort', onAbort);
    for (const s of inFlight.keys()) s.cancel();
    inFlight.clear();
    out.close(err);
  };
  const onAbort = () => finish(new AbortedError());

  const settle = (attempt: Attempt, open: boolean, port: number) => {
    if (!inFlight.delete(attempt)) return;
    attempt.cancel();
    if (open) out.push(port);
    settled++;
    options.onSettled?.(settled, ports.length);
    if (settled === ports.length) finish();
    else launch();
  };

  const start = (port: number) => {
    const deadline = Date.now() + timeoutMs;
    if (binding) {
      // The callback always runs asynchronously, after `attempt` is assigned.
      const attempt: Attempt = rawConnect(
        binding,
        address,
        port,
        ipv6,
        (open) => settle(attempt, open, port),
        () => onSelfConnect?.(port),
        sourceAddress,
      );
      inFlight.set(attempt, deadline);
      return;
    }
    const socket = net.connect({
      host: address,
      port,
      family: ipv6 ? 6 : 4,
      ...(sourceAddress ? { localAddress: sourceAddress } : {}),
    });
    const attempt: Attempt = { cancel: () => socket.destroy() };
    inFlight.set(attempt, deadline);
    socket.once('connect', () => {
      const selfConnected = isSelfConnectedSocket(socket);
      if (selfConnected) onSelfConnect?.(port);
      settle(attempt, !selfConnected, port);
    });
    socket.once('error', () => settle(attempt, false, port));
  };

  const launch = () => {
    if (finished) return;
    while (inFlight.size < concurrency && next < ports.length) {
      const port = ports[next++] as number;
      if (options.ratePerSecond) {
        // Rate-limited: start asynchronously, keeping the slot reserved.
        const placeholder: Attempt = { cancel: () => {} };
        inFlight.set(placeholder, Number.POSITIVE_INFINITY);
        limiter.acquire(options.signal).then(
          () => {
            inFlight.delete(placeholder);
            if (!finished) start(port);
          },
          () => {},
        );
      } else start(port);
    }
  };

  // One timer for all sockets instead of one per connection.
  const sweeper = setInterval(
    () => {
      // Let completions already pending be delivered before expiring (see raw-tcp.ts).
      const now = Date.now();
      const expired = [...inFlight].filter(([, deadline]) => deadline <= now).map(([a]) => a);
      if (!expired.length) return;
      setImmediate(() => {
        for (const a of expired) settle(a, false, 0);
      });
    },
    Math.min(250, Math.max(20, timeoutMs / 4)),
  );

  if (options.signal?.aborted) finish(new AbortedError());
  else {
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (ports.length === 0) finish();
    else launch();
  }
  return out;
}
