import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../lib/config/env.ts';
import { templatePoliteness } from './scans-jobs.ts';

describe('how fast a scan’s templates send requests', () => {
  it('at the engine’s default politeness unless the operator sets a rate', () => {
    // No rateLimit: the engine's TemplateScanner applies its default of 150 requests/s per host.
    expect(templatePoliteness(loadEnv({}))).toEqual({});
    expect(templatePoliteness(loadEnv({ PERIMETER_TEMPLATE_RATE_LIMIT: '40' }))).toEqual({ rateLimit: 40 });
    expect(templatePoliteness(loadEnv({ PERIMETER_TEMPLATE_RATE_LIMIT: '0' }))).toEqual({ rateLimit: 0 });
    expect(
      templatePoliteness(
        loadEnv({ PERIMETER_TEMPLATE_RATE_LIMIT: '150', PERIMETER_TEMPLATE_RATE_LIMIT_PER: 'scan' }),
      ),
    ).toEqual({ rateLimit: 150, rateLimitPer: 'scan' });
    expect(templatePoliteness(loadEnv({ PERIMETER_TEMPLATE_RATE_LIMIT_PER: 'host' }))).toEqual({
      rateLimitPer: 'host',
    });
  });

  it('refuses a rate that is not a whole number of requests per second at start-up', () => {
    expect(() => loadEnv({ PERIMETER_TEMPLATE_RATE_LIMIT: '-1' })).toThrow(/PERIMETER_TEMPLATE_RATE_LIMIT/);
    expect(() => loadEnv({ PERIMETER_TEMPLATE_RATE_LIMIT: 'fast' })).toThrow(/PERIMETER_TEMPLATE_RATE_LIMIT/);
    expect(() => loadEnv({ PERIMETER_TEMPLATE_RATE_LIMIT_PER: 'target' })).toThrow(
      /PERIMETER_TEMPLATE_RATE_LIMIT_PER/,
    );
  });
});
