import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TEvent, TScan, TScanProgress } from '@perimeter/contracts';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTemplateSet, templateStatusLines } from '../src/modules/templates/templates-service.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  type Api,
  addVerifiedDomain,
  allEvents,
  createScan,
  labEnv,
  type PgBoss,
  signUp,
  startWorkers,
  waitForScan,
} from './support/scan-lab.ts';

/**
 * Honest completion through the server (issues #12 and #18 item 4): a check that times out makes
 * the scan partial — status, progress and detail say what was skipped and why — and keeps the
 * finding it found before; only a check that ran and came back negative fixes it. Template sets
 * are imported from a .tar.gz built here, and scans record which set versions they ran.
 * Lab on 127.0.210; no ports scanned, so only the DNS templates run and each scan takes seconds.
 */
const DOMAIN = 'acme.test';
const DMARC = `_dmarc.${DOMAIN}`;

let lab: Lab;
let t: TestApp;
let boss: PgBoss;
let api: Api;
let targetId: string;
let work: string;

const TEMPLATE = (id: string, tags: string, name = `${DOMAIN}`) => `id: ${id}
info:
  name: ${id}
  author: test
  severity: low
  tags: ${tags}
dns:
  - name: "{{FQDN}}"
    type: TXT
    matchers:
      - type: word
        part: answer
        words:
          - "v=spf1"
# ${name}
`;

/** A small set: runnable templates (one tagged fuzz, one its ignore list names), one skipped, one invalid. */
async function buildSet(): Promise<string> {
  const dir = path.join(work, 'acme-templates');
  await mkdir(path.join(dir, 'dns'), { recursive: true });
  await writeFile(path.join(dir, 'dns/spf-present.yaml'), TEMPLATE('partial-spf-present', 'dns,spf'));
  await writeFile(path.join(dir, 'dns/spf-fuzz.yaml'), TEMPLATE('partial-spf-fuzz', 'dns,fuzz'));
  await writeFile(path.join(dir, 'dns/spf-ignored.yaml'), TEMPLATE('partial-spf-ignored', 'dns'));
  await writeFile(path.join(dir, 'dns/no-protocol.yaml'), 'id: no-protocol\ninfo: {}\n');
  await writeFile(
    path.join(dir, 'dns/broken.yaml'),
    'id: broken\ninfo:\n  name: x\n  author: y\n  severity: high\nhttp:\n  - method: GET\n    path: ["{{BaseURL}}/"]\n    matchers:\n      - type: nope\n',
  );
  await writeFile(path.join(dir, '.nuclei-ignore'), 'tags:\n  - "dos"\nfiles:\n  - dns/spf-ignored.yaml\n');
  await writeFile(path.join(dir, 'VERSION'), 'v9.8.7\n');
  const archive = path.join(work, 'acme-templates.tar.gz');
  await promisify(execFile)('tar', ['-czf', archive, '-C', work, 'acme-templates']);
  return archive;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'perimeter-partial-'));
  lab = await startLab({ subnet: '127.0.210', dnsPort: 0 });
  t = await createTestApp(labEnv(lab, { PERIMETER_SCAN_PORTS: '1', PERIMETER_SCAN_WORDLIST_LIMIT: '3' }));
  boss = await startWorkers(t);
  ({ api } = await signUp(t, 'business'));
  targetId = await addVerifiedDomain(api, lab, DOMAIN);
}, 120_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
  await lab?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

async function runScan(
  templates?: Record<string, string[]>,
): Promise<{ progress: TScanProgress; scan: TScan }> {
  const scan = await createScan(api, targetId, {
    scan_type: 'custom',
    custom_scan_config: { classes: [], subclasses: ['exploit_scanner'], ...(templates ? { templates } : {}) },
  });
  const started = await api.post('/main/start_created_abstract_scan', { id: scan.id });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const progress = await waitForScan(api, scan.id, ['done', 'canceled'], 120_000);
  expect(progress.status, progress.message ?? '').toBe('done');
  const detail = await api.get<{ data: TScan }>(`/main/get_abstract_scan?id=${scan.id}`);
  expect(detail.status, JSON.stringify(detail.body)).toBe(200);
  return { progress, scan: detail.body.data };
}

const dmarcEvent = async (): Promise<TEvent | undefined> =>
  (await allEvents(api, 'exploit_scanner')).find(
    (e) => e.scan_subclass === 'exploit_scanner' && e.template_id === 'dmarc-policy-none',
  );

describe('template sets as data', () => {
  it('imports a .tar.gz, counts loaded/skipped/invalid with reasons, and re-import is idempotent', async () => {
    const archive = await buildSet();
    const first = await importTemplateSet(t.runtime.ctx, archive);
    expect(first.created).toBe(true);
    expect(first.set).toMatchObject({
      name: 'acme-templates',
      sourceVersion: 'v9.8.7',
      files: 7,
      loaded: 3,
      skipped: 1,
      invalid: 1,
      excludedTags: ['dos'],
      excludedFiles: ['dns/spf-ignored.yaml'],
    });
    expect(first.set.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.set.reasons).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'invalid', count: 1, examples: ['dns/broken.yaml'] }),
        expect.objectContaining({ kind: 'skipped', count: 1, examples: ['dns/no-protocol.yaml'] }),
      ]),
    );
    const again = await importTemplateSet(t.runtime.ctx, archive);
    expect(again).toMatchObject({ created: false, set: { contentHash: first.set.contentHash } });
    const status = (await templateStatusLines(t.runtime.ctx)).join('\n');
    expect(status).toContain(`acme-templates  v9.8.7  ${first.set.contentHash.slice(0, 12)}  active`);
    expect(status).toContain('files 7: loaded 3, skipped 1, invalid 1');
    expect(status).toMatch(/invalid 1: .*\(e\.g\. dns\/broken\.yaml\)/);
    await expect(importTemplateSet(t.runtime.ctx, path.join(work, 'missing'))).rejects.toThrow(
      /no such file or folder/,
    );
  });
});

describe('a check that times out is not a "no"', () => {
  it('scan 1 finds DMARC p=none, runs the imported set (fuzz and ignored files left out) and records its version', async () => {
    const { progress, scan } = await runScan();
    expect(progress.partial).toBeNull();
    expect(scan.partial).toBeNull();
    expect(scan.template_sets.map((s) => s.name)).toEqual(['built-in', 'acme-templates']);
    expect(scan.template_sets[1]).toMatchObject({ version: 'v9.8.7', templates: 3 });
    const found = new Set(
      (await allEvents(api, 'exploit_scanner', scan.id)).map((e) =>
        e.scan_subclass === 'exploit_scanner' ? e.template_id : '',
      ),
    );
    expect(found.has('dmarc-policy-none')).toBe(true);
    expect(found.has('partial-spf-present')).toBe(true);
    expect(found.has('partial-spf-fuzz')).toBe(false);
    expect(found.has('partial-spf-ignored')).toBe(false);
    expect((await dmarcEvent())?.status).toBe('new');
  });

  it('scan 2, its DMARC query timing out, is partial with the reason and keeps the finding', async () => {
    lab.silenceDns(DMARC, true);
    try {
      const { progress, scan } = await runScan();
      for (const partial of [progress.partial, scan.partial]) {
        const templates = partial?.stages.find((s) => s.stage === 'templates');
        expect(templates, JSON.stringify(partial)).toBeDefined();
        expect(templates?.status).toBe('done');
        expect(templates?.planned).toBeGreaterThan(templates?.ran ?? 0);
        const skip = templates?.skipped.find((k) => k.examples.includes(`dmarc-policy-none on ${DOMAIN}`));
        expect(skip?.reason, JSON.stringify(templates?.skipped)).toMatch(/timeout/);
      }
      const event = await dmarcEvent();
      expect(event?.status).not.toBe('fixed');
    } finally {
      lab.silenceDns(DMARC, false);
    }
  });

  it('scan 3, the check answering p=reject, is complete and fixes the finding', async () => {
    lab.replaceTxt(DMARC, ['v=DMARC1; p=reject']);
    try {
      const { progress, scan } = await runScan();
      expect(progress.partial).toBeNull();
      const event = await dmarcEvent();
      expect(event?.status).toBe('fixed');
      expect(scan.id).toBeDefined();
    } finally {
      lab.replaceTxt(DMARC, null);
    }
  });
});

describe('scan-time template selection', () => {
  it('a scan can bring back a tag excluded by default and narrow by severity', async () => {
    const { scan } = await runScan({ include_tags: ['fuzz'], severities: ['low'] });
    expect(scan.config.templates).toEqual({ include_tags: ['fuzz'], severities: ['low'] });
    const found = new Set(
      (await allEvents(api, 'exploit_scanner', scan.id)).map((e) =>
        e.scan_subclass === 'exploit_scanner' ? e.template_id : '',
      ),
    );
    // Both low; dmarc-policy-none is info and the ignore list still leaves its file out.
    expect([...found].sort()).toEqual(['partial-spf-fuzz', 'partial-spf-present']);
  });

  it('bad selections are refused with a clear detail', async () => {
    const res = await api.post<{ detail: string }>('/main/create_abstract_scan', {
      targets: [{ target_type: 'domain', user_target_id: targetId }],
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: ['exploit_scanner'], templates: { tags: ['bad tag!'] } },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBeTruthy();
  });
});
