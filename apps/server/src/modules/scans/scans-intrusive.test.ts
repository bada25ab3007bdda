import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../lib/config/env.ts';
import { intrusiveAllowList } from './scans-jobs.ts';

describe('where a scan may run intrusive templates', () => {
  it('the user’s verified peers and networks, plus what the operator allows', () => {
    const env = loadEnv({});
    expect(intrusiveAllowList(env, [])).toEqual([]);
    expect(intrusiveAllowList(env, ['203.0.113.7', '198.51.100.0/28'])).toEqual([
      '203.0.113.7',
      '198.51.100.0/28',
    ]);
    const operator = loadEnv({ PERIMETER_INTRUSIVE_ALLOW: '192.0.2.0/24, 2001:db8::/32' });
    expect(intrusiveAllowList(operator, ['203.0.113.7'])).toEqual([
      '192.0.2.0/24',
      '2001:db8::/32',
      '203.0.113.7',
    ]);
  });

  it('refuses a malformed operator list at start-up', () => {
    expect(() => loadEnv({ PERIMETER_INTRUSIVE_ALLOW: 'everywhere' })).toThrow(/CIDRs/);
  });
});
