import net from 'node:net';
import tls from 'node:tls';
import { buildConnector } from 'undici';
import { AbortedError } from '../lib/async.ts';
import { ScopeError, type ScopePolicy } from './scope-policy.ts';

export interface GuardedConnectOptions {
  /** An IP address (names are resolved by the caller through the scan's resolver). */
  address: string;
  port: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Wraps the connection in TLS (certificate errors are accepted: we report them instead). */
  tls?: { servername?: string };
}

/**
 * A TCP self-connect: from a local address to itself on an ephemeral port, the kernel can pick
 * the destination port as the source port and the socket "connects" to itself with nothing
 * listening (see ports/raw-tcp.ts). Such a connection is no service.
 */
export function isSelfConnectedSocket(socket: net.Socket): boolean {
  return (
    socket.localPort !== undefined &&
    socket.localPort === socket.remotePort &&
    socket.localAddress === socket.remoteAddress
  );
}

/**
 * The one way the engine opens a TCP connection: the scope policy is checked right before
 * connect(), so no packet goes to a refused address whatever the caller did before.
 */
export function connectGuarded(policy: ScopePolicy, opts: GuardedConnectOptions): Promise<net.Socket> {
  const decision = policy.check(opts.address);
  if (!decision.allowed) return Promise.reject(new ScopeError(opts.address, decision.reason));
  if (opts.signal?.aborted) return Promise.reject(new AbortedError());
  return new Promise((resolve, reject) => {
    const socket: net.Socket = opts.tls
      ? tls.connect({
          host: opts.address,
          port: opts.port,
          servername: opts.tls.servername && !net.isIP(opts.tls.servername) ? opts.tls.servername : undefined,
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host: opts.address, port: opts.port });
    const readyEvent = opts.tls ? 'secureConnect' : 'connect';
    const cleanup = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      socket.off(readyEvent, onReady);
    };
    let settled = false;
    const onError = (err: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      socket.destroy();
      reject(err);
    };
    const onAbort = () => onError(new AbortedError());
    const onReady = () => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(socket);
    };
    // setImmediate: after an event-loop stall, a connect that did complete is seen first.
    const timer = setTimeout(
      () => setImmediate(() => onError(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' }))),
      opts.timeoutMs,
    );
    socket.once('error', onError);
    socket.once('connect', () => {
      if (isSelfConnectedSocket(socket))
        onError(Object.assign(new Error('TCP self-connect: nothing listens'), { code: 'ECONNREFUSED' }));
    });
    socket.once(readyEvent, onReady);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export type HostResolver = (hostname: string) => Promise<string[]>;

/**
 * An undici connector that resolves names through the scan's resolver, checks the scope
 * policy on the address it is about to use, and keeps the name for SNI and Host.
 */
export function createGuardedConnector(
  policy: ScopePolicy,
  resolveHost: HostResolver,
  timeoutMs: number,
): buildConnector.connector {
  const base = buildConnector({ rejectUnauthorized: false, timeout: timeoutMs });
  return (options, callback) => {
    const hostname = options.hostname.replace(/^\[|\]$/g, '');
    const addresses: Promise<string[]> = net.isIP(hostname)
      ? Promise.resolve([hostname])
      : resolveHost(hostname);
    addresses.then(
      (list) => {
        const address = list.find((a) => policy.isAllowed(a));
        if (!address) {
          const first = list[0];
          const reason = first
            ? ((policy.check(first) as { reason?: string }).reason ?? 'refused')
            : 'does not resolve';
          callback(new ScopeError(first ?? hostname, reason), null);
          return;
        }
        base(
          { ...options, hostname: address, servername: net.isIP(hostname) ? undefined : hostname },
          callback,
        );
      },
      (err: Error) => callback(err, null),
    );
  };
}
