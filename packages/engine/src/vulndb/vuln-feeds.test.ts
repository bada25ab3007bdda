import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedDataset } from '../../test/helpers.ts';
import { runCveStage } from './cve-stage.ts';
import { JsLibraryDetector } from './js-library-detect.ts';
import { compareVersions } from './version-compare.ts';
import { importFeed, importFeedFile, importNvd20, importRetireJs } from './vuln-importers.ts';
import { matchProduct } from './vuln-match.ts';
import { MemoryVulnStore } from './vuln-store.ts';

describe('NVD 1.1 sample', () => {
  const dir = sharedDataset('cve');
  const store = new MemoryVulnStore();
  beforeAll(async () => {
    if (dir) await store.add(await importFeedFile(path.join(dir, 'nvd-json-1.1/nvdcve-1.1-sample.json')));
  });

  it.skipIf(!dir)('imports 2,000 records with dates, scores and CWE', async () => {
    expect(await store.size()).toBe(2000);
    const r = await store.get('CVE-2016-6210');
    expect(r).toMatchObject({
      published: '2017-02-13T17:59:00.000Z',
      cvssScore: 5.9,
      severity: 'medium',
      source: 'nvd',
    });
    expect(r?.description).toMatch(/OpenSSH/);
  });

  it.skipIf(!dir)('matches OpenSSH 7.2p2 (update in the CPE) and not 7.3p1', async () => {
    const hit = (await matchProduct(store, { name: 'OpenSSH', version: '7.2p2' })).map((m) => m.record.id);
    expect(hit).toEqual(expect.arrayContaining(['CVE-2016-6210', 'CVE-2016-6515']));
    const later = (await matchProduct(store, { name: 'OpenSSH', version: '7.3p1' })).map((m) => m.record.id);
    expect(later).not.toContain('CVE-2016-6210');
  });

  it.skipIf(!dir)('matches nginx ranges at every edge of CVE-2009-2629', async () => {
    const ids = async (v: string) =>
      (await matchProduct(store, { name: 'nginx', version: v })).map((m) => m.record.id);
    // 0.1.0 <= v < 0.5.38, 0.6.0 <= v < 0.6.39, 0.7.0 <= v < 0.7.62, 0.8.0 <= v < 0.8.15 (cpe f5:nginx)
    expect(await ids('0.1.0')).toContain('CVE-2009-2629');
    expect(await ids('0.5.37')).toContain('CVE-2009-2629');
    expect(await ids('0.5.38')).not.toContain('CVE-2009-2629');
    expect(await ids('0.6.38')).toContain('CVE-2009-2629');
    expect(await ids('0.6.39')).not.toContain('CVE-2009-2629');
    expect(await ids('0.8.15')).not.toContain('CVE-2009-2629');
    expect(await ids('0.0.9')).not.toContain('CVE-2009-2629');
  });

  it.skipIf(!dir)('matches jQuery 1.12.4 to CVE-2015-9251 (end excluding 3.0.0) but not 3.0.0', async () => {
    expect(
      (await matchProduct(store, { name: 'jQuery', version: '1.12.4' })).map((m) => m.record.id),
    ).toContain('CVE-2015-9251');
    expect(
      (await matchProduct(store, { name: 'jQuery', version: '3.0.0' })).map((m) => m.record.id),
    ).not.toContain('CVE-2015-9251');
  });

  it.skipIf(!dir)('uses a detection CPE, and the CPE vendor aliases of a product', async () => {
    const viaCpe = await matchProduct(store, {
      name: 'web server',
      version: '0.5.37',
      cpe: 'cpe:2.3:a:nginx:nginx:*:*:*:*:*:*:*:*',
    });
    expect(viaCpe.map((m) => m.record.id)).toContain('CVE-2009-2629');
  });

  it.skipIf(!dir)('knows the latest version the feed mentions', async () => {
    const latest = await store.latestKnownVersion(['openbsd:openssh']);
    expect(latest && compareVersions(latest, '7.2')).toBeGreaterThan(0);
  });
});

describe('NVD 2.0 records', () => {
  const dir = sharedDataset('cve');
  it.skipIf(!dir)('imports CVE-2021-43798 and CVE-2021-41773 and matches their versions', async () => {
    const store = new MemoryVulnStore();
    for (const f of ['CVE-2021-43798.json', 'CVE-2021-41773.json'])
      await store.add(
        importNvd20(JSON.parse(readFileSync(path.join(dir as string, 'nvd-json-2.0-examples', f), 'utf8'))),
      );
    expect(await store.size()).toBe(2);
    const grafana = await store.get('CVE-2021-43798');
    expect(grafana).toMatchObject({
      cvssScore: 7.5,
      severity: 'high',
      published: '2021-12-07T19:15:07.633Z',
      cwe: ['CWE-22'],
    });
    const g = async (v: string) =>
      (await matchProduct(store, { name: 'Grafana', version: v })).map((m) => m.record.id);
    expect(await g('8.3.0')).toEqual(['CVE-2021-43798']);
    expect(await g('8.0.1')).toEqual(['CVE-2021-43798']);
    expect(await g('8.0.6')).toEqual(['CVE-2021-43798']);
    expect(await g('8.0.7')).toEqual([]);
    expect(await g('8.0.0')).toEqual([]);
    expect(await g('8.0.0-beta2')).toEqual(['CVE-2021-43798']);
    expect(await g('8.3.1')).toEqual([]);
    const a = async (v: string) =>
      (await matchProduct(store, { name: 'Apache HTTP Server', version: v })).map((m) => m.record.id);
    expect(await a('2.4.49')).toEqual(['CVE-2021-41773']);
    expect(await a('2.4.48')).toEqual([]);
    expect(await a('2.4.50')).toEqual([]);
    // A feed page wraps records as vulnerabilities[].cve.
    const page = {
      vulnerabilities: [
        {
          cve: JSON.parse(
            readFileSync(path.join(dir as string, 'nvd-json-2.0-examples/CVE-2021-41773.json'), 'utf8'),
          ),
        },
      ],
    };
    expect(importFeed(page).map((r) => r.id)).toEqual(['CVE-2021-41773']);
  });
});

describe('retire.js repository', () => {
  const dir = sharedDataset('retirejs');
  const store = new MemoryVulnStore();
  let repo: unknown;
  beforeAll(async () => {
    if (!dir) return;
    repo = JSON.parse(readFileSync(path.join(dir, 'jsrepository-v5.json'), 'utf8'));
    await store.add(importRetireJs(repo));
  });

  it.skipIf(!dir)('imports the v5, flat and master formats alike', () => {
    const v5 = importRetireJs(repo);
    const flat = importRetireJs(
      JSON.parse(readFileSync(path.join(dir as string, 'jsrepository.json'), 'utf8')),
    );
    const master = importRetireJs(
      JSON.parse(readFileSync(path.join(dir as string, 'jsrepository-master.json'), 'utf8')),
    );
    expect(v5.length).toBeGreaterThan(600);
    expect(flat.length).toBeGreaterThan(600);
    expect(master.length).toBeGreaterThan(400);
    expect(v5.find((r) => r.id === 'CVE-2020-11022')?.configurations[0]?.nodes[0]?.matches[0]).toMatchObject({
      product: 'jquery',
      versionStartIncluding: '1.12.0',
      versionEndExcluding: '3.5.0',
    });
  });

  it.skipIf(!dir)('matches jQuery 1.12.4 and the range edges of CVE-2020-11022', async () => {
    const ids = async (v: string) =>
      (await matchProduct(store, { name: 'jQuery', version: v })).map((m) => m.record.id);
    const old = await ids('1.12.4');
    expect(old).toEqual(
      expect.arrayContaining(['CVE-2015-9251', 'CVE-2019-11358', 'CVE-2020-11022', 'CVE-2020-11023']),
    );
    expect(await ids('3.4.1')).toContain('CVE-2020-11022');
    expect(await ids('3.5.0')).not.toContain('CVE-2020-11022');
    expect(await ids('1.12.0')).toContain('CVE-2020-11022');
    expect(await ids('1.11.3')).not.toContain('CVE-2020-11022');
    expect(await ids('1.9.0b1')).not.toContain('CVE-2012-6708');
    expect(await ids('1.8.3')).toContain('CVE-2012-6708');
  });

  it.skipIf(!dir)('detects libraries from URLs and content (retire.js test cases)', () => {
    const detector = new JsLibraryDetector(repo);
    expect(detector.fromUrl('http://www.acme.test/js/jquery-1.12.4.min.js')).toContainEqual({
      name: 'jquery',
      version: '1.12.4',
      jsLibrary: 'jquery',
    });
    expect(
      detector.fromContent('/*! jQuery v1.12.4 | (c) jQuery Foundation | jquery.org/license */'),
    ).toContainEqual({ name: 'jquery', version: '1.12.4', jsLibrary: 'jquery' });
    const cases = JSON.parse(readFileSync(path.join(dir as string, 'testcases.json'), 'utf8')) as Record<
      string,
      Record<string, { versions: string[]; contentOnly?: boolean }>
    >;
    let tried = 0;
    let found = 0;
    const misses: string[] = [];
    for (const [lib, urls] of Object.entries(cases)) {
      for (const [template, spec] of Object.entries(urls)) {
        if (spec.contentOnly) continue;
        for (const version of spec.versions.slice(0, 2)) {
          tried++;
          const url = template.replace(/§§version§§/g, version).replace(/§§subversion§§/g, '.min');
          if (detector.fromUrl(url).some((d) => d.name === lib && d.version === version)) found++;
          else misses.push(`${lib} ${url}`);
        }
      }
    }
    console.log(
      `retire.js URL test cases: ${found} of ${tried} detected; missed e.g.\n${misses.slice(0, 12).join('\n')}`,
    );
    expect(tried).toBeGreaterThan(20);
    expect(found / tried).toBeGreaterThan(0.8);
  });
});

describe('CVE findings', () => {
  const dir = sharedDataset('cve');
  it.skipIf(!dir)('carry the spec fields', async () => {
    const store = new MemoryVulnStore();
    await store.add(
      importNvd20(
        JSON.parse(
          readFileSync(path.join(dir as string, 'nvd-json-2.0-examples/CVE-2021-43798.json'), 'utf8'),
        ),
      ),
    );
    const out = [];
    for await (const f of runCveStage(
      [
        {
          name: 'Grafana',
          version: '8.3.0',
          host: 'grafana.acme.test',
          port: 3000,
          website: 'https://grafana.com',
        },
      ],
      { store, now: () => new Date('2026-01-01T00:00:00Z') },
    ))
      out.push(f);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      subclass: 'exploit_db',
      tech: 'Grafana',
      version: '8.3.0',
      cve: 'CVE-2021-43798',
      severity: 'high',
      severityOrdering: 4,
      cvssScore: 7.5,
      infoCreatedTs: '2021-12-07T19:15:07.633Z',
      infoUpdatedTs: '2025-10-21T20:18:49.850Z',
      lastCheckTs: '2026-01-01T00:00:00.000Z',
      host: 'grafana.acme.test',
      mainDomain: 'acme.test',
      subdomain: 'grafana',
      port: 3000,
      versionStart: '8.3.0',
      versionEnd: '8.3.0',
      homepage: 'https://grafana.com',
      latestVersion: '8.3.0',
    });
    const again = [];
    for await (const f of runCveStage(
      [{ name: 'Grafana', version: '8.3.0', host: 'grafana.acme.test', port: 3000 }],
      { store },
    ))
      again.push(f);
    expect(again[0]?.fingerprint).toBe(out[0]?.fingerprint);
  });
});
