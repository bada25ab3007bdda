import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../templates/run-types.ts';
import { isRequestAllowed } from './http-executor.ts';

describe('isRequestAllowed without a scope policy', () => {
  const ctx = {} as RunContext;

  it("lets a request go to the input's host name, in any case and on any port", () => {
    expect(isRequestAllowed('http://example.test/a', 'example.test', ctx)).toBe(true);
    expect(isRequestAllowed('https://Example.TEST:8443/a', 'example.test', ctx)).toBe(true);
    expect(isRequestAllowed('http://example.test/a', 'EXAMPLE.test', ctx)).toBe(true);
    expect(isRequestAllowed('http://127.0.5.10:80/?n=1', '127.0.5.10', ctx)).toBe(true);
  });

  it('refuses another host, unless the run allows other hosts', () => {
    expect(isRequestAllowed('http://other.test/', 'example.test', ctx)).toBe(false);
    expect(isRequestAllowed('http://example.test.other.test/', 'example.test', ctx)).toBe(false);
    expect(isRequestAllowed('http://127.0.5.11/', '127.0.5.10', ctx)).toBe(false);
    expect(
      isRequestAllowed('http://other.test/', 'example.test', { allowOtherHosts: true } as RunContext),
    ).toBe(true);
  });
});
