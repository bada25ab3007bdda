import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ExpectedScanFinding, LAB_CVE_FEED_PATH, type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLeakIndex } from '../leaks/local-leak-index.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import { scan } from '../pipeline/scan.ts';
import type { ScanConfig } from '../pipeline/scan-config.ts';
import { BUILTIN_TEMPLATES_DIR } from '../templates/template-stage.ts';
import { importNvd20 } from '../vulndb/vuln-importers.ts';
import { MemoryVulnStore } from '../vulndb/vuln-store.ts';
import { createFindingStages } from './finding-stages.ts';
import type { Finding } from './types.ts';

interface LabMap {
  templates: Record<string, string>;
  cveMatching: string[];
  unlistedLabFindings: { templateId: string; hosts: string[] }[];
}
const labMap = JSON.parse(readFileSync(path.join(BUILTIN_TEMPLATES_DIR, 'lab-map.json'), 'utf8')) as LabMap;

/** Port and path of where a template matched: a URL, `host:port`, or a DNS name (neither). */
function locationOf(matchedAt: string): string {
  if (matchedAt.includes('://')) {
    const scheme = matchedAt.slice(0, matchedAt.indexOf(':'));
    const rest = matchedAt.slice(matchedAt.indexOf('://') + 3);
    const slash = rest.indexOf('/');
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    const port = /:(\d+)$/.exec(authority)?.[1] ?? (scheme === 'https' ? '443' : '80');
    // The path as sent (the URL class would resolve `/../`).
    return `:${port}${slash === -1 ? '/' : rest.slice(slash)}`;
  }
  const port = /:(\d+)$/.exec(matchedAt)?.[1];
  return port ? `:${port}` : '';
}

/** One line per finding, the same shape for what the scan reported and for expected.json. */
function keyOf(f: Finding | ExpectedScanFinding): string {
  switch (f.subclass) {
    case 'exploit_scanner':
      return 'matchedAt' in f
        ? `exploit_scanner ${f.templateId} ${f.host}${locationOf(f.matchedAt)}`
        : `exploit_scanner ${f.templateId} ${f.host}${f.port ? `:${f.port}` : ''}${f.path ?? ''}`;
    case 'exploit_db':
      return `exploit_db ${f.cve} ${f.host}:${f.port ?? ''} ${f.tech} ${f.version}`;
    case 'leakcheck':
      return `leakcheck ${f.email} ${f.leakDate} ${[...f.sources].sort().join('|')} ${f.mainDomain}`;
  }
}

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
  lab = await startLab({ subnet: '127.0.79', dnsPort: 0 });
  // The product's own data: the CVE feed the lab publishes, no shared datasets.
  store = new MemoryVulnStore();
  await store.add(importNvd20(JSON.parse(readFileSync(LAB_CVE_FEED_PATH, 'utf8'))));
  first = await fullScan();
  console.log(
    `full lab scan (all classes): ${(first.ms / 1000).toFixed(1)} s, ${first.findings.length} findings`,
  );
}, 120_000);

afterAll(async () => {
  await lab?.stop();
});

describe('known-answer: full scan of the lab (all classes)', () => {
  it('runs every stage to the end', () => {
    const summary = first.events.at(-1);
    expect(summary?.type).toBe('summary');
    if (summary?.type !== 'summary') return;
    // Every stage done and whole: a probe or handshake that got no answer would make one partial.
    const whole = (s: (typeof summary.summary.stages)[number]) =>
      `${s.name}:${s.status}${s.partial ? ` partial: ${s.skipped.map((k) => `${k.reason} (${k.count})`).join(', ')}` : ''}`;
    expect(summary.summary.stages.map(whole)).toEqual([
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

  it('reports exactly the findings of expected.json: none missing, none extra', () => {
    const expected = lab.expected().scanFindings.map(keyOf).sort();
    const found = first.findings.map(keyOf).sort();
    // A finding reported twice would hide behind a set comparison.
    expect(new Set(found).size).toBe(found.length);
    expect(found.filter((k) => !expected.includes(k))).toEqual([]);
    expect(expected.filter((k) => !found.includes(k))).toEqual([]);
    expect(found).toEqual(expected);
    for (const subclass of ['exploit_scanner', 'exploit_db', 'leakcheck']) {
      expect(found.filter((k) => k.startsWith(subclass)).length, subclass).toBeGreaterThan(0);
    }
  });

  it('every planted issue is among them, with its template id or CVEs', () => {
    const expected = lab.expected();
    const reported = expected.scanFindings;
    for (const issue of expected.findings) {
      const mine = reported.flatMap((f) => (f.subclass !== 'leakcheck' && f.planted === issue.id ? [f] : []));
      if (issue.subclass === 'exploit_scanner') {
        expect(issue.templateId, issue.id).toBeTruthy();
        expect(
          mine.map((f) => (f.subclass === 'exploit_scanner' ? f.templateId : '')),
          issue.id,
        ).toEqual([issue.templateId]);
        expect(mine[0]?.host).toBe(issue.host);
      } else {
        expect(mine.map((f) => (f.subclass === 'exploit_db' ? f.cve : '')).sort(), issue.id).toEqual(
          [...(issue.cves ?? [])].sort(),
        );
        for (const f of mine)
          expect(`${f.host} ${f.subclass === 'exploit_db' ? f.version : ''}`).toBe(
            `${issue.host} ${issue.version}`,
          );
      }
    }
  });

  it('findings carry what the spec asks for each family; leak passwords are masked', () => {
    const expected = lab.expected();
    for (const f of first.findings) {
      expect(f.fingerprint.length, keyOf(f)).toBeGreaterThan(8);
      if (f.subclass === 'exploit_scanner') {
        expect(f.name.length).toBeGreaterThan(0);
        expect(f.evidence?.curl.length ?? 0, f.templateId).toBeGreaterThan(0);
      }
      if (f.subclass === 'exploit_db') {
        expect(f.lastCheckTs).toMatch(/^\d{4}-/);
        expect(f.infoCreatedTs).toMatch(/^\d{4}-/);
        expect(f.cvssScore).toBeGreaterThan(0);
        expect(['critical', 'high', 'medium', 'low']).toContain(f.severity);
      }
      if (f.subclass === 'leakcheck') {
        const clear =
          expected.leakCorpus.find((c) => c.email === f.email && c.leakDate === f.leakDate)?.password ?? '';
        expect(f.password).not.toBe(clear);
        expect(f.password.length).toBe([...clear].length);
        expect(JSON.stringify(f)).not.toContain(clear);
      }
    }
  });

  it('templates/lab-map.json (read by the server tests) agrees with expected.json', () => {
    const expected = lab.expected();
    const planted = Object.fromEntries(
      expected.findings.filter((f) => f.templateId).map((f) => [f.id, f.templateId as string]),
    );
    expect(labMap.templates).toEqual(planted);
    expect([...labMap.cveMatching].sort()).toEqual(
      expected.findings
        .filter((f) => f.subclass === 'exploit_db')
        .map((f) => f.id)
        .sort(),
    );
    const unlisted = expected.scanFindings.flatMap((f) =>
      f.subclass === 'exploit_scanner' && !f.planted ? [`${f.templateId}@${f.host}`] : [],
    );
    expect(
      labMap.unlistedLabFindings.flatMap((u) => u.hosts.map((h) => `${u.templateId}@${h}`)).sort(),
    ).toEqual(unlisted.sort());
  });

  it('a second scan reports the same fingerprints', async () => {
    const second = await fullScan();
    const fp = (r: Awaited<ReturnType<typeof fullScan>>) =>
      [...new Set(r.findings.map((f) => `${f.subclass}:${f.fingerprint}`))].sort();
    expect(fp(second)).toEqual(fp(first));
  }, 120_000);
});
