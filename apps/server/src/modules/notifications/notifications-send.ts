import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress, signatureHeaders } from './notifications-fns.ts';

export interface WebhookResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/**
 * Resolves like the system does but refuses private and reserved addresses (unless allowed), and
 * the check applies to the address actually connected to — no DNS-rebinding window.
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
      if (bad) return callback(new Error(`refusing to call a private address (${bad.address})`), '', 0);
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** POSTs a signed JSON body; never throws. */
export function postWebhook(
  url: string,
  secret: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowPrivate: boolean; timeoutMs?: number },
): Promise<WebhookResult> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ ok: false, statusCode: null, error: 'invalid URL' });
      return;
    }
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    // Connections to a literal address skip the lookup, so check it here.
    if (isIP(literal) && !opts.allowPrivate && isPrivateAddress(literal)) {
      resolve({ ok: false, statusCode: null, error: `refusing to call a private address (${literal})` });
      return;
    }
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(opts.allowPrivate),
        timeout: opts.timeoutMs ?? 10_000,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Perimeter-Webhook/1',
          ...headers,
          ...signatureHeaders(secret, body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          resolve({
            ok: code >= 200 && code < 300,
            statusCode: code,
            error: code >= 300 ? `HTTP ${code}` : null,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve({ ok: false, statusCode: null, error: err.message }));
    req.end(body);
  });
}
