import net from 'node:net';
import { AbortedError, Channel, RateLimiter } from '../lib/async.js';
import { ScopeError, type ScopePolicy } from '../scope/scope-policy.js';
import { rawConnect, tcpWrapBinding } from './raw-tcp.js';

export interface ConnectScanOptions {
  /** Connections in flight at once for this host. */
  concurrency?: number;
  timeoutMs?: number;
  /** New connections per second to this host (0 = unlimited). */
  ratePerSecond?: number;
  signal?: AbortSignal;
  /** Called after each port is settled (for progress). */
  onSettled?: (done: number, total: number) => void;
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
  type Attempt = { cancel(): void };
  const inFlight = new Map<Attempt, number>();
  const ipv6 = net.isIPv6(address);
  const binding = tcpWrapBinding();
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
      const attempt: Attempt = rawConnect(binding, address, port, ipv6, (open) =>
        settle(attempt, open, port),
      );
      inFlight.set(attempt, deadline);
      return;
    }
    const socket = net.connect({ host: address, port, family: ipv6 ? 6 : 4 });
    const attempt: Attempt = { cancel: () => socket.destroy() };
    inFlight.set(attempt, deadline);
    socket.once('connect', () => settle(attempt, true, port));
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
        limiter.wait(options.signal).then(
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
      const now = Date.now();
      for (const [attempt, deadline] of inFlight) {
        if (deadline <= now) settle(attempt, false, 0);
      }
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
