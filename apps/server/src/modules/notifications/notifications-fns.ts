import { createHmac } from 'node:crypto';

export const WEBHOOK_EVENTS = ['scan.finished', 'findings.new_critical_high'] as const;
export type TWebhookEvent = (typeof WEBHOOK_EVENTS)[number] | 'webhook.test';

/** HMAC-SHA256 over `${timestamp}.${body}`, hex. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeaders(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const signature = signWebhook(secret, timestamp, body);
  return {
    'x-perimeter-timestamp': String(timestamp),
    'x-perimeter-signature': `t=${timestamp},v1=${signature}`,
  };
}

/** Retry n (1-based) waits base·2^(n-1) seconds — the same curve pg-boss' retryBackoff uses. */
export function backoffSeconds(base: number, attempt: number): number {
  return base * 2 ** Math.max(0, attempt - 1);
}
