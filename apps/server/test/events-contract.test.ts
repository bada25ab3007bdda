import { dataEnvelope, ZEventsPage } from '@perimeter/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, type TestApp } from './support/app.ts';
import { signUpWithBulkFindings } from './support/bulk-user.ts';
import { benchCases } from './support/events-cases.ts';

/**
 * The events pages are sent as built (src/server/serialize.ts), not through zod's encode: every
 * case's page must be what the schema's encode gives back unchanged — no field the schema lacks
 * (the encode would strip it), every value of its type (the encode would throw) — for a plan that
 * sees finding details and one that does not.
 */
let t: TestApp;
let token: string;
let userId: string;
let scanId: string;

beforeAll(async () => {
  t = await createTestApp();
  const user = await signUpWithBulkFindings(t, 3_000);
  ({ token, userId } = user);
  scanId = user.bulk.scanId;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('events pages as sent', () => {
  const schema = dataEnvelope(ZEventsPage);

  it.each(['enterprise', 'trial'])(
    'are their schema’s encode unchanged, every case (%s plan)',
    async (plan) => {
      await t.runtime.ctx.database.pool.query('update users set plan = $2 where id = $1', [userId, plan]);
      const api = client(t.app, token);
      let items = 0;
      for (const c of benchCases()) {
        const path = `/main/${c.oneScan ? 'get_one' : 'get_all'}_user_abstract_scan_events${c.offset ? `?offset=${c.offset}` : ''}`;
        const res = await api.post(path, c.oneScan ? { ...c.body, id: scanId } : c.body);
        expect(res.status, c.label).toBe(200);
        expect(schema.encode(res.body as never), c.label).toEqual(res.body);
        const page = (res.body as { data: { items: unknown[]; details_hidden: boolean } }).data;
        expect(page.details_hidden, c.label).toBe(plan === 'trial');
        items += page.items.length;
      }
      expect(items).toBeGreaterThan(1_000);
    },
  );

  it('fails on a field the schema lacks (the guard itself)', () => {
    const page = { data: { items: [], total: 0, total_exact: true, details_hidden: false, extra: 1 } };
    expect(schema.encode(page as never)).not.toEqual(page);
  });
});
