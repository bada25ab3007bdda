import { SCAN_MESSAGE_CODES } from '@perimeter/contracts';
import { describe, expect, it } from 'vitest';
import { scanMessage, scanMessageOf } from './scan-messages.ts';

describe('scan messages', () => {
  it('reads every message back as the code and parameters it was written with', () => {
    const params = {
      canceled_by_user: {},
      worker_lost: {},
      scan_failed: { reason: 'connection refused (a: b).' },
      plan_subdomain_limit: { plan: 'Business', subdomains: 200, skipped: 7 },
      target_disabled: { target: 'acme.test' },
      target_unverified: { target: '10.0.0.0/24' },
      ownership_unavailable: { target: 'acme.test', detail: 'The DNS lookup timed out.' },
      ownership_lost: { target: 'acme.test', detail: 'No TXT record _perimeter.acme.test.' },
    };
    for (const code of SCAN_MESSAGE_CODES) {
      const text = scanMessage(code, params[code]);
      expect(text).not.toContain('undefined');
      expect(scanMessageOf(text), code).toEqual({ message_code: code, message_params: params[code] });
    }
  });

  it('gives no code to other text or to no message', () => {
    expect(scanMessageOf(null)).toEqual({});
    expect(scanMessageOf('Something the engine said.')).toEqual({});
    expect(scanMessageOf(`${scanMessage('canceled_by_user')} And more.`)).toEqual({});
  });
});
