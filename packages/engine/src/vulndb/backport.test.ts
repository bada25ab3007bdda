import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDataset } from '../../test/helpers.ts';
import { matchHonesty, packageRevision } from './backport.ts';
import { runCveStage } from './cve-stage.ts';
import { importFeedFile } from './vuln-importers.ts';
import { ruleMatchesVersion } from './vuln-match.ts';
import { MemoryVulnStore } from './vuln-store.ts';
import type { ConfigNode, CpeMatchRule, VulnRecord } from './vuln-types.ts';

describe('version matching honesty', () => {
  it.each([
    ['Apache/2.4.62 (Debian)', '2.4.62', 'low', 'Debian', undefined],
    ['SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3', '9.2p1', 'low', 'Debian', '2+deb12u3'],
    ['SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10', '8.9p1', 'low', 'Ubuntu', '3ubuntu0.10'],
    ['PHP/8.2.7-1~deb12u1', '8.2.7', 'low', 'Debian', '1~deb12u1'],
    ['Apache/2.4.37 (Red Hat Enterprise Linux)', '2.4.37', 'low', 'Red Hat', undefined],
    ['nginx/1.18.0', '1.18.0', 'medium', undefined, undefined],
  ] as const)('%s → %s confidence', (banner, version, confidence, distribution, revision) => {
    const h = matchHonesty({ version, banner }, 'CVE-2024-0001');
    expect(h.confidence).toBe(confidence);
    expect(h.distribution).toBe(distribution);
    expect(h.packageRevision).toBe(revision);
    expect(h.note).toContain('CVE-2024-0001');
    if (distribution)
      expect(h.note).toMatch(/backports security fixes without changing the upstream version/);
    if (revision) expect(h.note).toContain(`package revision ${revision}`);
  });

  it('trusts versions read from the software itself (no banner, or a JavaScript library)', () => {
    expect(matchHonesty({ version: '1.12.4', jsLibrary: 'jquery' }, 'CVE-2020-11022')).toEqual({
      confidence: 'high',
    });
    expect(matchHonesty({ version: '8.3.0' }, 'CVE-2021-43798')).toEqual({ confidence: 'high' });
    expect(packageRevision('OpenSSH_9.6', '9.6')).toBeUndefined();
  });

  it('a CVE finding on a Debian banner carries the confidence, the note and the package revision', async () => {
    const rule: CpeMatchRule = {
      criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
      part: 'a',
      vendor: 'openbsd',
      product: 'openssh',
      version: '*',
      update: '*',
      vulnerable: true,
      versionEndExcluding: '9.8p1',
    };
    const record: VulnRecord = {
      id: 'CVE-2024-6387',
      aliases: [],
      severity: 'high',
      cwe: [],
      references: [],
      configurations: [
        { operator: 'OR', nodes: [{ operator: 'OR', negate: false, matches: [rule], children: [] }] },
      ],
      source: 'nvd',
    };
    const store = new MemoryVulnStore();
    await store.add([record]);
    const out = [];
    for await (const f of runCveStage(
      [
        {
          name: 'OpenSSH',
          version: '9.2p1',
          host: 'ssh.acme.test',
          port: 22,
          banner: 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3',
        },
      ],
      { store },
    ))
      out.push(f);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      cve: 'CVE-2024-6387',
      matchConfidence: 'low',
      packageRevision: '2+deb12u3',
    });
    expect(out[0]?.backportNote).toMatch(/Debian package revision 2\+deb12u3/);
  });
});

describe('range edges on the NVD sample', () => {
  const dir = sharedDataset('cve');
  it.skipIf(!dir)('0 false matches and 0 misses at every range edge of every vulnerable rule', async () => {
    const records = await importFeedFile(path.join(dir as string, 'nvd-json-1.1/nvdcve-1.1-sample.json'));
    const rules: CpeMatchRule[] = [];
    const walk = (nodes: ConfigNode[]) => {
      for (const n of nodes) {
        for (const m of n.matches) if (m.vulnerable && m.version === '*') rules.push(m);
        walk(n.children);
      }
    };
    for (const r of records) for (const c of r.configurations) walk(c.nodes);
    const falseMatches: string[] = [];
    const misses: string[] = [];
    let edges = 0;
    for (const rule of rules) {
      const anyUpdate = ['*', '-', ''].includes(rule.update);
      // An excluded bound is never affected.
      for (const v of [rule.versionStartExcluding, rule.versionEndExcluding]) {
        if (!v) continue;
        edges++;
        if (ruleMatchesVersion(rule, v)) falseMatches.push(`${rule.criteria} ${v}`);
      }
      // An included bound is affected when the other bound allows it.
      if (!anyUpdate) continue;
      for (const v of [rule.versionStartIncluding, rule.versionEndIncluding]) {
        if (!v) continue;
        const other = { ...rule };
        if (v === rule.versionStartIncluding) {
          if (rule.versionEndIncluding === undefined && rule.versionEndExcluding === undefined) {
            edges++;
            if (!ruleMatchesVersion(other, v)) misses.push(`${rule.criteria} ${v}`);
          }
        } else if (rule.versionStartIncluding === undefined && rule.versionStartExcluding === undefined) {
          edges++;
          if (!ruleMatchesVersion(other, v)) misses.push(`${rule.criteria} ${v}`);
        }
      }
    }
    expect(edges).toBeGreaterThan(2000);
    expect(falseMatches).toEqual([]);
    expect(misses).toEqual([]);
  });
});
