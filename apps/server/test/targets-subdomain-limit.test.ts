import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { signUp } from './support/scan-lab.ts';

/**
 * Explicitly added subdomain targets count against the plan's subdomain limit (403 naming it);
 * subdomains a scan discovers are capped by the scan instead (scans-fns subdomainLimitMessage).
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
});
afterAll(async () => t?.close());

describe('subdomain limit on explicit adds', () => {
  it('enterprise (10,000 subdomains): the 10,001st subdomain target is a 403 naming the limit; a registrable domain is still accepted', async () => {
    const { api, userId } = await signUp(t, 'enterprise');
    // 10,000 subdomain targets of corp-limits.com, inserted directly (the API path is the same check).
    await t.runtime.ctx.database.pool.query(
      `insert into targets (user_id, target_type, value, display_name, main_domain, verification_token)
       select $1, 'domain', 'h' || i || '.corp-limits.com', 'h' || i || '.corp-limits.com', 'corp-limits.com', 'tok'
       from generate_series(1, 10000) i`,
      [userId],
    );
    const over = await api.post<{ detail: string }>('/main/user_target/add_targets', {
      targets: ['one-more.corp-limits.com'],
    });
    expect(over.status).toBe(403);
    expect(over.body.detail).toBe(
      'Plan limit reached: the Enterprise plan allows 10000 subdomains (you have 10000 as targets, adding 1).',
    );
    const apex = await api.post('/main/user_target/add_targets', { targets: ['corp-limits.com'] });
    expect(apex.status, JSON.stringify(apex.body)).toBe(201);
  });

  it('a subdomain target disabled frees its place', async () => {
    const { api, userId } = await signUp(t, 'enterprise');
    await t.runtime.ctx.database.pool.query(
      `insert into targets (user_id, target_type, value, display_name, main_domain, verification_token, disabled)
       select $1, 'domain', 'h' || i || '.corp-freed.com', 'h' || i || '.corp-freed.com', 'corp-freed.com', 'tok', i = 1
       from generate_series(1, 10000) i`,
      [userId],
    );
    const add = await api.post('/main/user_target/add_targets', { targets: ['new.corp-freed.com'] });
    expect(add.status, JSON.stringify(add.body)).toBe(201);
  });
});
