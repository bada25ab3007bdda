import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  backoffSeconds,
  countsBySeverity,
  newFindingsLink,
  signatureHeaders,
  signWebhook,
} from './notifications-fns.ts';
import { scanFinishedMail } from './notifications-templates.ts';

describe('webhook signature', () => {
  it('is HMAC-SHA256 over "timestamp.body"', () => {
    const body = '{"event":"scan.finished"}';
    const expected = createHmac('sha256', 'whsec_x').update(`1700000000.${body}`).digest('hex');
    expect(signWebhook('whsec_x', 1700000000, body)).toBe(expected);
    expect(signatureHeaders('whsec_x', body, 1700000000)).toEqual({
      'x-perimeter-timestamp': '1700000000',
      'x-perimeter-signature': `t=1700000000,v1=${expected}`,
    });
    expect(signWebhook('whsec_x', 1700000001, body)).not.toBe(expected);
  });
  it('backs off exponentially', () => {
    expect([1, 2, 3, 6].map((n) => backoffSeconds(10, n))).toEqual([10, 20, 40, 320]);
  });
});

describe('mail contents', () => {
  it('lists severities critical first, whatever order the findings came in', () => {
    const counts = { low: 2, informational: 1, critical: 1, high: 3 };
    expect(countsBySeverity(counts).map(([s]) => s)).toEqual(['critical', 'high', 'low', 'informational']);
    const mail = scanFinishedMail('en', {
      name: 'A',
      targets: 'x.example',
      link: 'http://p/s',
      counts,
      newCriticalHigh: [],
    });
    expect(mail.text).toContain('Findings: 1 critical, 3 high, 2 low, 1 informational.');
  });

  it('links a new-findings mail to the tab holding them, the most severe one first', () => {
    const cve = { subclass: 'exploit_db' as const, severity: 'critical' };
    const vuln = { subclass: 'exploit_scanner' as const, severity: 'high' };
    const leak = { subclass: 'leakcheck' as const, severity: 'high' };
    expect(newFindingsLink('http://p', 's1', [cve, vuln])).toBe(
      'http://p/events/cve/s1?severity=critical,high',
    );
    expect(newFindingsLink('http://p', 's1', [vuln])).toBe(
      'http://p/events/vulnerabilities/s1?severity=critical,high',
    );
    expect(newFindingsLink('http://p', 's1', [leak])).toBe('http://p/events/leaks/s1?severity=critical,high');
  });
});
