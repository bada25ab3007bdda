import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLeakIndex } from '../leaks/local-leak-index.js';
import type { ScanEvent } from '../pipeline/events.js';
import { scan } from '../pipeline/scan.js';
import type { ScanConfig } from '../pipeline/scan-config.js';
import { BUILTIN_TEMPLATES_DIR } from '../templates/template-stage.js';
import { importFeedFile, importNvd20 } from '../vulndb/vuln-importers.js';
import { MemoryVulnStore } from '../vulndb/vuln-store.js';
import { createFindingStages } from './finding-stages.js';
import { datasetPath } from './test-datasets.js';
import type { CveFinding, Finding, LeakFinding, TemplateFinding } from './types.js';

interface LabMap {
  templates: Record<string, string>;
  cveMatching: string[];
  unlistedLabFindings: { templateId: string; hosts: string[] }[];
}
const labMap = JSON.parse(readFileSync(path.join(BUILTIN_TEMPLATES_DIR, 'lab-map.json'), 'utf8')) as LabMap;

const cveDir = datasetPath('cve');
const retireDir = datasetPath('retirejs');
const datasets = Boolean(cveDir && retireDir);

let lab: Lab;
let store: MemoryVulnStore;
const LEAK_KEY = 'f'.repeat(64);

async function fullScan(): Promise<{ findings: Finding[]; events: ScanEvent[]; ms: number }> {
  const leaks = new LocalLeakIndex(LEAK_KEY);
  for (const l of lab.expected().leakCorpus) leaks.add(l);
  const ports = [...new Set([...Object.values(lab.portMap), 3306, 6379, 8080, 3000])].sort((a, b) => a - b);
  const config: ScanConfig = {
    dns: { servers: [`${lab.dns.host}:${lab.dns.port}`], timeoutMs: 1000, retries: 1 },
    scope: { allowPrivate: true, allow: ['127.0.0.0/8'] },
    discovery: { ctUrl: lab.ctUrl },
    ports: { list: ports, bannerTimeoutMs: 800 },
    extraStages: createFindingStages({
      templates: { rateLimit: 0, timeoutMs: 4000 },
      vulndb: { store },
      leaks: { sources: [leaks] },
    }),
  };
  const started = performance.now();
  const events: ScanEvent[] = [];
  for await (const e of scan(lab.domains, config)) events.push(e);
  const findings = events.flatMap((e) => (e.type === 'finding' ? [e.finding] : []));
  return { findings, events, ms: performance.now() - started };
}

let first: Awaited<ReturnType<typeof fullScan>>;

beforeAll(async () => {
  if (!datasets) return;
  lab = await startLab({ subnet: '127.0.79', dnsPort: 0 });
  store = new MemoryVulnStore();
  await store.add(await importFeedFile(path.join(cveDir as string, 'nvd-json-1.1/nvdcve-1.1-sample.json')));
  for (const f of ['CVE-2021-41773.json', 'CVE-2021-43798.json'])
    await store.add(
      importNvd20(JSON.parse(readFileSync(path.join(cveDir as string, 'nvd-json-2.0-examples', f), 'utf8'))),
    );
  await store.add(await importFeedFile(path.join(retireDir as string, 'jsrepository-v5.json')));
  first = await fullScan();
  console.log(
    `full lab scan (all classes): ${(first.ms / 1000).toFixed(1)} s, ${first.findings.length} findings`,
  );
}, 120_000);

afterAll(async () => {
  await lab?.stop();
});

describe.skipIf(!datasets)('known-answer: full scan of the lab (all classes)', () => {
  it('runs every stage to the end', () => {
    const summary = first.events.at(-1);
    expect(summary?.type).toBe('summary');
    if (summary?.type !== 'summary') return;
    expect(summary.summary.stages.map((s) => `${s.name}:${s.status}`)).toEqual([
      'subdomains:done',
      'dns:done',
      'ports:done',
      'http:done',
      'fingerprint:done',
      'templates:done',
      'cve-matching:done',
      'leaks:done',
    ]);
  });

  it('exploit_scanner: every planted issue, and only planted or listed ones', () => {
    const expected = lab.expected();
    const templates = first.findings.filter((f): f is TemplateFinding => f.subclass === 'exploit_scanner');
    const found = [...new Set(templates.map((f) => `${f.templateId}@${f.host}`))].sort();
    const planted = Object.entries(labMap.templates).map(
      ([id, t]) => `${t}@${expected.findings.find((f) => f.id === id)?.host}`,
    );
    const unlisted = labMap.unlistedLabFindings.flatMap((u) => u.hosts.map((h) => `${u.templateId}@${h}`));
    expect(found.filter((f) => !planted.includes(f) && !unlisted.includes(f))).toEqual([]);
    expect(planted.filter((p) => !found.includes(p))).toEqual([]);
  });

  it('exploit_db: every planted CVE the loaded feeds know is reported on its host', async () => {
    const expected = lab.expected();
    const cves = first.findings.filter((f): f is CveFinding => f.subclass === 'exploit_db');
    const missing: string[] = [];
    let checked = 0;
    for (const id of labMap.cveMatching) {
      const issue = expected.findings.find((f) => f.id === id);
      for (const cve of issue?.cves ?? []) {
        if (!(await store.get(cve))) continue;
        checked++;
        if (!cves.some((f) => f.cve === cve && f.host === issue?.host && f.version === issue?.version))
          missing.push(`${id}: ${cve} on ${issue?.host}`);
      }
    }
    console.log(`planted CVEs present in the loaded feeds: ${checked}; exploit_db findings: ${cves.length}`);
    expect(checked).toBeGreaterThan(0);
    expect(missing).toEqual([]);
    for (const f of cves) {
      expect(f.lastCheckTs).toMatch(/^\d{4}-/);
      expect(['critical', 'high', 'medium', 'low', 'info', 'unknown']).toContain(f.severity);
    }
  });

  it('leakcheck: exactly the leak corpus, masked', () => {
    const expected = lab.expected();
    const leaks = first.findings.filter((f): f is LeakFinding => f.subclass === 'leakcheck');
    const want = expected.leakCorpus
      .map((l) => `${l.email} ${l.leakDate} ${[...l.sources].sort().join('|')}`)
      .sort();
    expect(leaks.map((l) => `${l.email} ${l.leakDate} ${l.sources.join('|')}`).sort()).toEqual(want);
    for (const l of leaks) {
      const clear =
        expected.leakCorpus.find((c) => c.email === l.email && c.leakDate === l.leakDate)?.password ?? '';
      expect(l.password).not.toBe(clear);
      expect(l.password.length).toBe([...clear].length);
      expect(JSON.stringify(l)).not.toContain(clear);
    }
  });

  it('a second scan reports the same fingerprints', async () => {
    const second = await fullScan();
    const fp = (r: Awaited<ReturnType<typeof fullScan>>) =>
      [...new Set(r.findings.map((f) => `${f.subclass}:${f.fingerprint}`))].sort();
    expect(fp(second)).toEqual(fp(first));
  }, 120_000);
});
