import type { ScopePolicy } from '@perimeter/engine';
import { guardedRequest, type HostResolver } from '../../lib/guarded-request.ts';
import { signatureHeaders } from './notifications-fns.ts';

export interface WebhookResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/**
 * POSTs a signed JSON body through the guarded request (scope policy, one lookup, the checked
 * address connected to, no redirects); never throws.
 */
export async function postWebhook(
  url: string,
  secret: string,
  body: string,
  headers: Record<string, string>,
  opts: { policy: ScopePolicy; timeoutMs?: number; resolve?: HostResolver },
): Promise<WebhookResult> {
  try {
    const res = await guardedRequest(
      url,
      {
        method: 'POST',
        timeoutMs: opts.timeoutMs ?? 10_000,
        maxBytes: 64 * 1024,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Perimeter-Webhook/1',
          ...headers,
          ...signatureHeaders(secret, body),
        },
        body,
      },
      opts.policy,
      opts.resolve,
    );
    const code = res.statusCode;
    const ok = code >= 200 && code < 300;
    const error = ok
      ? null
      : code >= 300 && code < 400
        ? `HTTP ${code} (redirects are not followed)`
        : `HTTP ${code}`;
    return { ok, statusCode: code, error };
  } catch (err) {
    return { ok: false, statusCode: null, error: (err as Error).message };
  }
}
