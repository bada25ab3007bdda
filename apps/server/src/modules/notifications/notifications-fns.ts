import { createHmac } from 'node:crypto';
import { SEVERITIES } from '@perimeter/contracts';

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
/** Severity counts in the order a reader triages them: critical first, then high, medium… */
export function countsBySeverity(counts: Record<string, number>): Array<[string, number]> {
  const known = SEVERITIES.filter((s) => (counts[s] ?? 0) > 0).map(
    (s) => [s, counts[s] ?? 0] as [string, number],
  );
  const other = Object.entries(counts).filter(
    ([s, n]) => n > 0 && !(SEVERITIES as readonly string[]).includes(s),
  );
  return [...known, ...other];
}

const EVENTS_TAB = { exploit_scanner: 'vulnerabilities', exploit_db: 'cve', leakcheck: 'leaks' } as const;

/**
 * Where a "new critical and high findings" mail points: the events tab of this scan holding those
 * findings (the tab of the most severe one when they span several), filtered to critical and high.
 */
export function newFindingsLink(
  publicUrl: string,
  scanId: string,
  findings: ReadonlyArray<{ subclass: keyof typeof EVENTS_TAB; severity: string }>,
): string {
  const first = findings.find((f) => f.severity === 'critical') ?? findings[0];
  const tab = EVENTS_TAB[first?.subclass ?? 'exploit_scanner'];
  return `${publicUrl}/events/${tab}/${scanId}?severity=critical,high`;
}
