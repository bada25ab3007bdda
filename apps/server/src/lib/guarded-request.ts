import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ScopePolicy } from '@perimeter/engine';
import type { TEnv } from './config/index.ts';

/**
 * Every server-side request whose address a user can steer (webhooks, verification files) goes
 * through here. The engine's scope policy decides; the name is resolved once, every address it
 * gives must pass, and the socket connects to the address that was checked — no second lookup
 * a rebinding DNS server could answer differently. Redirects are never followed.
 */
export type HostResolver = (hostname: string) => Promise<string[]>;

export interface GuardedRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string | number>;
  body?: string;
  /** The whole request, connection to the last byte, and each silence within it. */
  timeoutMs: number;
  /** The response body is read up to this many bytes; a longer one fails the request. */
  maxBytes: number;
  /** Certificates are not checked for ownership proofs (the file is the proof). */
  rejectUnauthorized?: boolean;
}

export interface GuardedResponse {
  statusCode: number;
  body: string;
}

/** Refused before any connection: the address form, its range or the scheme. */
export class RefusedAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAddressError';
  }
}

/** The policy for user-steerable requests: private ranges only where the operator allows them. */
export function userFetchPolicy(env: Pick<TEnv, 'PERIMETER_ALLOW_PRIVATE_TARGETS'>): ScopePolicy {
  return new ScopePolicy({ allowPrivate: env.PERIMETER_ALLOW_PRIVATE_TARGETS });
}

const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The checked address of a URL: parsed by the WHATWG parser (so `2130706433`, `0x7f.1` and
 * `0177.0.0.1` become the dotted address they mean), resolved once, every answer checked.
 */
export async function checkedAddress(
  url: URL,
  policy: ScopePolicy,
  resolve: HostResolver = systemResolver,
): Promise<string> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RefusedAddressError(`refusing the ${url.protocol} scheme`);
  if (url.username || url.password) throw new RefusedAddressError('refusing credentials in the URL');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      throw new Error(`${host} does not resolve (${(err as Error).message})`);
    }
  }
  if (addresses.length === 0) throw new Error(`${host} does not resolve`);
  for (const address of addresses) {
    const decision = policy.check(address);
    if (!decision.allowed)
      throw new RefusedAddressError(
        `refusing to call ${address}${address === host ? '' : ` (${host})`}: ${decision.reason}`,
      );
  }
  return addresses[0] as string;
}

/** One request to a checked address; 3xx answers come back as they are (never followed). */
export async function guardedRequest(
  target: string,
  options: GuardedRequest,
  policy: ScopePolicy,
  resolve: HostResolver = systemResolver,
): Promise<GuardedResponse> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new RefusedAddressError('invalid URL');
  }
  const address = await checkedAddress(url, policy, resolve);
  const family = isIP(address);
  // The connection uses the address checked above, whatever the name would resolve to now.
  const pinned: LookupFunction = (_hostname, opts, callback) => {
    if (opts.all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<GuardedResponse>((resolvePromise, rejectPromise) => {
    let settled = false;
    const reject = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      rejectPromise(err);
    };
    // The whole exchange, not only each silence: an answer dripped a byte at a time ends too.
    const deadline = setTimeout(() => reject(new Error('timed out')), options.timeoutMs);
    const req = client.request(
      url,
      {
        method: options.method,
        lookup: pinned,
        timeout: options.timeoutMs,
        headers: options.headers,
        agent: false,
        ...(url.protocol === 'https:'
          ? {
              rejectUnauthorized: options.rejectUnauthorized ?? true,
              servername: isIP(host) ? undefined : host,
            }
          : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) reject(new Error('response too large'));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolvePromise({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => reject(new Error('timed out')));
    req.on('error', reject);
    req.end(options.body);
  });
}
