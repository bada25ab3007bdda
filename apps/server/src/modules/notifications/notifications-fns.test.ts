import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { backoffSeconds, signatureHeaders, signWebhook } from './notifications-fns.ts';

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
