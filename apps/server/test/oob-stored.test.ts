import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { upsertFindings } from '../src/modules/findings/findings-write-repo.ts';
import { randomToken } from '../src/modules/oob/oob-fns.ts';
import { expireOob } from '../src/modules/oob/oob-jobs.ts';
import { PgOobProvider } from '../src/modules/oob/oob-provider.ts';
import { oobNotices, oobScanConfig } from '../src/modules/oob/oob-service.ts';
import { useOobServer, ZONE } from './support/oob-fixture.ts';

/**
 * What the out-of-band server (docs/oob.md, on 127.0.72.1 here) stores: strangers' ids are dropped;
 * one tenant never sees another's interactions; expired correlations stop accepting and are deleted;
 * late call-backs are listed on the scan for its owner only; a finding's call-backs reach the events
 * API and the report. How each protocol is answered: oob-server.test.ts.
 */
const lab = useOobServer('127.0.72.1');

describe('what is stored', () => {
  it('drops call-backs whose id starts with no registered correlation, and counts them', async () => {
    const before = await lab.storedRows();
    const dropped = lab.oob.recorder.counts.unregistered;
    const stranger = randomToken(33);
    await lab.udpQuery(`${stranger}.${ZONE}`);
    await lab.udpQuery(`not-an-id.${ZONE}`);
    await lab.httpGet(`${randomToken(33)}.${ZONE}`);
    // The HTTP listener records after answering: wait for the count.
    for (let i = 0; i < 100 && lab.oob.recorder.counts.unregistered < dropped + 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    await lab.oob.recorder.flush();
    expect(await lab.storedRows()).toBe(before);
    expect(lab.oob.recorder.counts.unregistered).toBe(dropped + 2);
    // A known correlation with an unknown nonce is stored: the correlation is what gates storage.
    expect(await lab.alice.provider.poll([stranger])).toEqual([]);
  });

  it('one tenant never sees another: polls are scoped to the correlation, the late list to the owner', async () => {
    const id = lab.alice.provider.newId();
    await lab.udpQuery(`${id}.${ZONE}`);
    expect(await lab.polled(lab.alice.provider, id)).toHaveLength(1);
    expect(await lab.bob.provider.poll([id])).toEqual([]);
    expect(
      await lab.bob.provider.poll([id.toUpperCase(), `${lab.bob.provider.correlationId}${id.slice(20)}`]),
    ).toEqual([]);
    const late = await lab.bob.api.get(`/main/get_abstract_scan_late_interactions?id=${lab.alice.scanId}`);
    expect(late.status).toBe(404);
  });

  it('lists call-backs that arrived after the scan ended on the scan, for its owner', async () => {
    // Bob's scan ended a minute ago; one call-back came before the end, two after.
    await lab.sql.query(`update scans set finished_at = now() - interval '1 minute' where id = $1`, [
      lab.bob.scanId,
    ]);
    const before = lab.bob.provider.newId();
    await lab.udpQuery(`${before}.${ZONE}`);
    await lab.polled(lab.bob.provider, before);
    await lab.sql.query(`update oob_interactions set at = now() - interval '2 minutes' where full_id = $1`, [
      before,
    ]);
    const after = lab.bob.provider.newId();
    await lab.udpQuery(`${after}.${ZONE}`, 'AAAA');
    await lab.httpGet(`${after}.${ZONE}`);
    await lab.polled(lab.bob.provider, after, 2);
    const res = await lab.bob.api.get<{ data: { count: number; items: { id: string; protocol: string }[] } }>(
      `/main/get_abstract_scan_late_interactions?id=${lab.bob.scanId}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.count).toBe(2);
    expect(res.body.data.items.map((i) => [i.id, i.protocol]).sort()).toEqual([
      [after, 'dns'],
      [after, 'http'],
    ]);
    const bad = await lab.bob.api.get('/main/get_abstract_scan_late_interactions?id=not-a-uuid');
    expect(bad.status).toBe(400);
  });

  it('expired correlations stop accepting call-backs and are deleted with their interactions', async () => {
    const ctx = lab.t.runtime.ctx;
    const scanId = lab.alice.scanId;
    const old = await PgOobProvider.register(ctx.db, {
      domain: ZONE,
      scanId,
      userId: lab.alice.userId,
      retentionHours: 1,
    });
    const kept = old.newId();
    await lab.udpQuery(`${kept}.${ZONE}`);
    expect(await lab.polled(old, kept)).toHaveLength(1);
    // Registered already expired (so no look-up or refresh ever caches it live): accepts nothing.
    const expired = randomToken(20);
    await lab.sql.query(
      `insert into oob_correlations (id, scan_id, user_id, expires_at) values ($1, $2, $3, now() - interval '1 second')`,
      [expired, scanId, lab.alice.userId],
    );
    await lab.sql.query(
      `update oob_correlations set expires_at = now() - interval '1 second' where id = $1`,
      [old.correlationId],
    );
    const late = expired + randomToken(13);
    await lab.udpQuery(`${late}.${ZONE}`);
    await lab.oob.recorder.flush();
    const rows = await lab.sql.query('select count(*)::int as n from oob_interactions where full_id = $1', [
      late,
    ]);
    expect(rows.rows[0].n).toBe(0);
    expect(await expireOob(ctx)).toBe(2);
    expect(await old.poll([kept])).toEqual([]);
    const left = await lab.sql.query('select count(*)::int as n from oob_correlations where id = any($1)', [
      [old.correlationId, expired],
    ]);
    expect(left.rows[0].n).toBe(0);
    // Alice's live correlation keeps its rows.
    expect((await lab.sql.query('select count(*)::int as n from oob_correlations')).rows[0].n).toBe(2);
  });
});

describe('evidence', () => {
  it('a finding proved by call-backs shows them in the events API and the report data (the PDF reads the same)', async () => {
    // Evidence is shown on paid plans (the Trial plan hides finding details).
    await lab.sql.query(`update users set plan = 'business' where id = $1`, [lab.alice.userId]);
    const id = lab.alice.provider.newId();
    await lab.udpQuery(`${id}.${ZONE}`);
    const interactions = await lab.polled(lab.alice.provider, id);
    const target = await lab.sql.query('select target_id from scan_targets where scan_id = $1', [
      lab.alice.scanId,
    ]);
    const domain = 'alice-oob.example.com';
    await upsertFindings(lab.t.runtime.ctx.db, lab.alice.scanId, lab.alice.userId, {
      exploit_scanner: [
        {
          targetId: target.rows[0].target_id,
          finding: {
            subclass: 'exploit_scanner',
            fingerprint: `fp-oob-${lab.alice.scanId}`,
            templateId: 'blind-ssrf',
            name: 'Blind SSRF',
            severity: 'high',
            severityOrdering: 4,
            matchedAt: `http://www.${domain}/?u=${id}.${ZONE}`,
            extracted: [],
            references: [],
            tags: ['ssrf', 'oast'],
            mainDomain: domain,
            subdomain: 'www',
            host: `www.${domain}`,
            evidence: { request: 'GET /', response: '200', curl: 'curl', interactions, late: true } as never,
          },
        },
      ],
      exploit_db: [],
      leakcheck: [],
    });
    const events = await lab.alice.api.post<{
      data: {
        items: { template_id: string; evidence: { interactions?: unknown[]; late?: boolean } | null }[];
      };
    }>('/main/get_all_user_abstract_scan_events', { scan_subclass: 'exploit_scanner' });
    expect(events.status).toBe(200);
    const ssrf = events.body.data.items.find((e) => e.template_id === 'blind-ssrf');
    expect(ssrf?.evidence?.late).toBe(true);
    expect(ssrf?.evidence?.interactions).toEqual([
      {
        id,
        protocol: 'dns',
        remote_address: interactions[0]?.remoteAddress,
        at: interactions[0]?.at,
        raw_request: interactions[0]?.rawRequest,
        raw_response: interactions[0]?.rawResponse,
        q_type: 'A',
      },
    ]);
    const report = await lab.alice.api.get<{
      data: { findings: { name: string; how_to_reproduce: { interactions?: { id: string }[] } | null }[] };
    }>(`/main/get_user_events_data_report?id=${lab.alice.scanId}`);
    expect(report.status).toBe(200);
    const inReport = report.body.data.findings.find((f) => f.name === 'Blind SSRF');
    expect(inReport?.how_to_reproduce?.interactions?.map((i) => i.id)).toEqual([id]);
    const pdf = await lab.t.app.inject({
      method: 'POST',
      url: '/api/main/get_user_events_file_report',
      headers: { authorization: `Bearer ${lab.alice.token}` },
      payload: { id: lab.alice.scanId, format: 'pdf' },
    });
    expect(pdf.statusCode).toBe(200);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-oob-pdf-'));
    try {
      writeFileSync(path.join(dir, 'r.pdf'), pdf.rawPayload);
      const text = execFileSync('pdftotext', [path.join(dir, 'r.pdf'), '-'], { encoding: 'utf8' });
      expect(text).toContain('Out-of-band interactions');
      expect(text).toContain(`DNS A · ${interactions[0]?.remoteAddress}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('scan wiring', () => {
  it('registers a correlation for a scan running templates and passes the provider; nothing otherwise', async () => {
    const ctx = lab.t.runtime.ctx;
    const cfg = await oobScanConfig(ctx, {
      id: lab.alice.scanId,
      userId: lab.alice.userId,
      subclasses: ['exploit_scanner'],
    });
    const id = cfg.oob?.provider.newId() ?? '';
    const row = await lab.sql.query('select scan_id, user_id from oob_correlations where id = $1', [
      id.slice(0, 20),
    ]);
    expect(row.rows).toEqual([{ scan_id: lab.alice.scanId, user_id: lab.alice.userId }]);
    expect(
      await oobScanConfig(ctx, { id: lab.alice.scanId, userId: lab.alice.userId, subclasses: ['leakcheck'] }),
    ).toEqual({});
    expect(oobNotices(ctx, ['exploit_scanner'])).toEqual([]);
    const unset = {
      ...ctx,
      config: { ...ctx.config, env: { ...ctx.config.env, PERIMETER_OOB_DOMAIN: undefined } },
    };
    expect(oobNotices(unset, ['exploit_scanner'])).toEqual(['oob_not_configured']);
    expect(
      await oobScanConfig(unset, {
        id: lab.alice.scanId,
        userId: lab.alice.userId,
        subclasses: ['exploit_scanner'],
      }),
    ).toEqual({});
  });
});
