import type { TemplateFinding } from '@perimeter/engine';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingsExploitScanner, scans } from '../src/db/schema/index.ts';
import { markUnseenFixed, upsertFindings } from '../src/modules/findings/findings-write-repo.ts';
import { databaseNow } from '../src/modules/scans/scans-repo.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, createScan, seedScan, signUp } from './support/scan-lab.ts';

/** new → open → fixed → regressed → open, and what a user's "resolved" means across it. */
let t: TestApp;
let api: Api;
let userId: string;
let targetId: string;

beforeAll(async () => {
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
  ({ api, userId } = await signUp(t, 'business'));
  ({ targetId } = await seedScan(t, api, userId, 'life.example.com'));
});
afterAll(async () => t?.close());

const finding = (fp: string): TemplateFinding => ({
  subclass: 'exploit_scanner',
  fingerprint: fp,
  templateId: `tpl-${fp}`,
  name: `Finding ${fp}`,
  severity: 'medium',
  severityOrdering: 3,
  host: 'www.life.example.com',
  mainDomain: 'life.example.com',
  subdomain: 'www',
  matchedAt: 'http://www.life.example.com/',
  extracted: [],
  references: [],
  tags: [],
});

/** One completed scan that saw exactly these fingerprints. */
async function scanSeeing(...fps: string[]): Promise<string> {
  const db = t.runtime.ctx.db;
  const scan = await createScan(api, targetId, {
    scan_type: 'custom',
    custom_scan_config: { classes: [], subclasses: ['exploit_scanner'] },
  });
  const started = await databaseNow(db);
  await new Promise((r) => setTimeout(r, 5));
  await upsertFindings(db, scan.id, userId, {
    exploit_scanner: fps.map((fp) => ({ targetId, finding: finding(fp) })),
    exploit_db: [],
    leakcheck: [],
  });
  await db.update(scans).set({ status: 'done' }).where(eq(scans.id, scan.id));
  await markUnseenFixed(db, scan.id, [targetId], ['exploit_scanner'], started);
  return scan.id;
}

async function statusOf(fp: string) {
  const [row] = await t.runtime.ctx.db
    .select()
    .from(findingsExploitScanner)
    .where(eq(findingsExploitScanner.fingerprint, fp));
  return row;
}

describe('finding lifecycle', () => {
  it('moves through new, open, fixed, regressed and open again', async () => {
    const s1 = await scanSeeing('a', 'b');
    expect((await statusOf('a'))?.status).toBe('new');
    expect((await statusOf('a'))?.firstScanId).toBe(s1);
    await scanSeeing('a', 'b');
    expect((await statusOf('a'))?.status).toBe('open');
    const s3 = await scanSeeing('a');
    const b = await statusOf('b');
    expect(b?.status).toBe('fixed');
    expect(b?.fixedScanId).toBe(s3);
    expect((await statusOf('a'))?.status).toBe('open');
    // The user had marked it fixed; it comes back: regressed and no longer resolved.
    await api.post('/main/resolve_abstract_scan_event', {
      scan_subclass: 'exploit_scanner',
      event_id: b?.id,
      reason: 'fixed',
    });
    const s4 = await scanSeeing('a', 'b');
    const back = await statusOf('b');
    expect(back).toMatchObject({ status: 'regressed', resolved: false, resolvedReason: null, fixedAt: null });
    const events = await api.post<{ data: { items: { id: string; status: string }[] } }>(
      '/main/get_one_user_abstract_scan_events',
      { id: s4, scan_subclass: 'exploit_scanner', severity: ['medium'] },
    );
    expect(events.body.data.items.map((e) => e.status).sort()).toEqual(['open', 'regressed']);
    await scanSeeing('a', 'b');
    expect((await statusOf('b'))?.status).toBe('open');
    // Accepted risk survives being seen again; the first-seen time never moves.
    await api.post('/main/resolve_abstract_scan_event', {
      scan_subclass: 'exploit_scanner',
      event_id: back?.id,
      reason: 'accepted_risk',
    });
    await scanSeeing('a', 'b');
    const kept = await statusOf('b');
    expect(kept).toMatchObject({ resolved: true, resolvedReason: 'accepted_risk', status: 'open' });
    expect(kept?.firstSeen.getTime()).toBe(b?.firstSeen.getTime());
    expect(kept?.lastSeen.getTime()).toBeGreaterThan(b?.lastSeen.getTime() ?? 0);
  });

  it('a scan of other subclasses leaves these findings alone', async () => {
    const db = t.runtime.ctx.db;
    const scan = await createScan(api, targetId, {
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: ['leakcheck'] },
    });
    await markUnseenFixed(db, scan.id, [targetId], ['leakcheck'], new Date(Date.now() + 60_000));
    expect((await statusOf('a'))?.status).toBe('open');
  });
});
