import { describe, expect, it } from 'vitest';
import { parseCpe, toRule } from './cpe.ts';
import { compareVersions, satisfiesConstraint } from './version-compare.ts';
import { importNvd11, severityFromCvss } from './vuln-importers.ts';
import { matchProduct, ruleMatchesVersion, splitUpdate } from './vuln-match.ts';
import { MemoryVulnStore } from './vuln-store.ts';
import type { CpeMatchRule } from './vuln-types.ts';

describe('version comparison', () => {
  const cases: [string, '<' | '=' | '>', string][] = [
    ['2.4.49', '<', '2.4.50'],
    ['2.4.49', '>', '2.4.9'],
    ['2.4.49', '=', '2.4.49'],
    ['1.0', '=', '1.0.0'],
    ['1.0.2k', '>', '1.0.2'],
    ['1.0.2k', '>', '1.0.2j'],
    ['1.0.2k', '<', '1.0.2zf'],
    ['1.0.2a', '>', '1.0.2'],
    ['1.0.2k', '<', '1.1.0'],
    ['7.2p2', '>', '7.2'],
    ['7.2p2', '>', '7.2p1'],
    ['7.2p2', '<', '7.3'],
    ['7.2p2', '<', '7.3p1'],
    ['8.3.0-beta1', '<', '8.3.0'],
    ['8.3.0-beta1', '<', '8.3.0-beta2'],
    ['8.3.0-beta2', '<', '8.3.0-rc1'],
    ['8.3.0-rc1', '<', '8.3.0'],
    ['8.3.0', '<', '8.3.1'],
    ['1.9.0b1', '<', '1.9.0'],
    ['1.9.0b1', '>', '1.8.3'],
    ['1.0.0-alpha', '<', '1.0.0'],
    ['v2.0.0', '=', '2.0.0'],
    ['5.6.40', '<', '7.0.0'],
    ['5.6.40-1+deb8u1', '>', '5.6.40'],
    ['2.150.1', '>', '2.150'],
    ['4.87', '<', '4.92'],
    ['4.10', '>', '4.9'],
    ['10.0', '>', '9.9.9'],
  ];
  it.each(cases)('%s %s %s', (a, op, b) => {
    const expected = op === '<' ? -1 : op === '>' ? 1 : 0;
    expect(compareVersions(a, b)).toBe(expected);
    expect(compareVersions(b, a)).toBe(expected === 0 ? 0 : -expected);
  });

  it.each([
    ['2.4.49', '< 2.4.50', true],
    ['2.4.49', '>= 2.4.49, < 2.4.51', true],
    ['2.4.51', '>= 2.4.49, < 2.4.51', false],
    ['1.2.5', '~> 1.2.3', true],
    ['1.3.0', '~> 1.2.3', false],
    ['3.9.9', '^3.1', true],
    ['4.0.0', '^3.1', false],
    ['1.0', '!= 1.0.0', false],
  ] as [string, string, boolean][])('%s satisfies %s → %s', (v, c, r) => {
    expect(satisfiesConstraint(v, c)).toBe(r);
  });
});

describe('CPE parsing and range semantics', () => {
  it('parses CPE 2.3 with escapes and CPE 2.2 URIs', () => {
    expect(parseCpe('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*')).toEqual({
      part: 'a',
      vendor: 'apache',
      product: 'http_server',
      version: '2.4.49',
      update: '*',
    });
    expect(parseCpe('cpe:2.3:a:microsoft:asp.net:4\\:0:*:*:*:*:*:*:*')?.version).toBe('4:0');
    expect(parseCpe('cpe:/a:openbsd:openssh:7.2p2')?.product).toBe('openssh');
    expect(parseCpe('not a cpe')).toBeUndefined();
  });

  it.each([
    ['7.2p2', '7.2', 'p2'],
    ['8.3.0-beta1', '8.3.0', 'beta1'],
    ['1.0.2k', '1.0.2k', ''],
    ['2.4.49', '2.4.49', ''],
  ])('splitUpdate(%s)', (v, base, update) => {
    expect(splitUpdate(v)).toEqual({ base, update });
  });

  const r = (range: Partial<CpeMatchRule>, cpe = 'cpe:2.3:a:x:y:*:*:*:*:*:*:*:*'): CpeMatchRule =>
    toRule(cpe, true, range) as CpeMatchRule;
  const cases: [string, CpeMatchRule, string, boolean][] = [
    ['start including: at the bound', r({ versionStartIncluding: '2.4.0' }), '2.4.0', true],
    ['start including: below', r({ versionStartIncluding: '2.4.0' }), '2.3.99', false],
    ['start excluding: at the bound', r({ versionStartExcluding: '2.4.0' }), '2.4.0', false],
    ['start excluding: above', r({ versionStartExcluding: '2.4.0' }), '2.4.1', true],
    ['end including: at the bound', r({ versionEndIncluding: '2.4.49' }), '2.4.49', true],
    ['end including: above', r({ versionEndIncluding: '2.4.49' }), '2.4.50', false],
    ['end excluding: at the bound', r({ versionEndExcluding: '2.4.51' }), '2.4.51', false],
    ['end excluding: just below', r({ versionEndExcluding: '2.4.51' }), '2.4.50', true],
    [
      'both bounds: inside',
      r({ versionStartIncluding: '8.0.1', versionEndExcluding: '8.0.7' }),
      '8.0.6',
      true,
    ],
    [
      'both bounds: start',
      r({ versionStartIncluding: '8.0.1', versionEndExcluding: '8.0.7' }),
      '8.0.1',
      true,
    ],
    ['both bounds: end', r({ versionStartIncluding: '8.0.1', versionEndExcluding: '8.0.7' }), '8.0.7', false],
    [
      'both bounds: before',
      r({ versionStartIncluding: '8.0.1', versionEndExcluding: '8.0.7' }),
      '8.0.0',
      false,
    ],
    ['pre-release before an exclusive end', r({ versionEndExcluding: '8.3.0' }), '8.3.0-beta1', true],
    ['pre-release before an inclusive start', r({ versionStartIncluding: '8.3.0' }), '8.3.0-beta1', false],
    ['letter version inside', r({ versionEndExcluding: '1.0.2l' }), '1.0.2k', true],
    ['letter version at the end', r({ versionEndExcluding: '1.0.2k' }), '1.0.2k', false],
    [
      'update p2 with inclusive end',
      r({ versionEndIncluding: '7.2' }, 'cpe:2.3:a:openbsd:openssh:*:p2:*:*:*:*:*:*'),
      '7.2p2',
      true,
    ],
    [
      'update p2: other update',
      r({ versionEndIncluding: '7.2' }, 'cpe:2.3:a:openbsd:openssh:*:p2:*:*:*:*:*:*'),
      '7.2p1',
      false,
    ],
    [
      'update p2: above the range',
      r({ versionEndIncluding: '7.2' }, 'cpe:2.3:a:openbsd:openssh:*:p2:*:*:*:*:*:*'),
      '7.3p2',
      false,
    ],
    ['any update: inclusive end covers p2', r({ versionEndIncluding: '7.2' }), '7.2p2', true],
    ['any update: exclusive start excludes p2', r({ versionStartExcluding: '7.2' }), '7.2p2', false],
    ['exact version', r({}, 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'), '2.4.49', true],
    ['exact version: other', r({}, 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'), '2.4.48', false],
    [
      'exact version with update',
      r({}, 'cpe:2.3:a:grafana:grafana:8.0.0:beta1:*:*:*:*:*:*'),
      '8.0.0-beta1',
      true,
    ],
    [
      'exact version with update: release',
      r({}, 'cpe:2.3:a:grafana:grafana:8.0.0:beta1:*:*:*:*:*:*'),
      '8.0.0',
      false,
    ],
    ['exact p-version', r({}, 'cpe:2.3:a:openbsd:openssh:2.9p1:*:*:*:*:*:*:*'), '2.9p1', true],
    ['no version (-) never matches a version', r({}, 'cpe:2.3:a:x:y:-:*:*:*:*:*:*:*'), '1.0', false],
    ['any version, no range', r({}), '0.0.1', true],
  ];
  it.each(cases)('%s', (_name, rule, version, expected) => {
    expect(ruleMatchesVersion(rule, version)).toBe(expected);
  });

  it('maps CVSS scores to severities', () => {
    expect([9.8, 7.5, 5.3, 3.1, 0].map((s) => severityFromCvss(s))).toEqual([
      'critical',
      'high',
      'medium',
      'low',
      'info',
    ]);
    expect(severityFromCvss(10, 2)).toBe('high');
    expect(severityFromCvss(undefined)).toBe('unknown');
  });
});

describe('importers', () => {
  it('imports NVD 1.1 nodes with AND children (platform parts do not block)', async () => {
    const feed = {
      CVE_Items: [
        {
          cve: {
            CVE_data_meta: { ID: 'CVE-2000-0001' },
            description: { description_data: [{ lang: 'en', value: 'x' }] },
          },
          configurations: {
            nodes: [
              {
                operator: 'AND',
                children: [
                  {
                    operator: 'OR',
                    cpe_match: [
                      {
                        vulnerable: true,
                        cpe23Uri: 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*',
                        versionEndExcluding: '2.0',
                      },
                    ],
                  },
                  {
                    operator: 'OR',
                    cpe_match: [
                      { vulnerable: false, cpe23Uri: 'cpe:2.3:o:linux:linux_kernel:-:*:*:*:*:*:*:*' },
                    ],
                  },
                ],
              },
            ],
          },
          impact: {
            baseMetricV2: { cvssV2: { baseScore: 7.5, vectorString: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' } },
          },
          publishedDate: '2000-01-01T00:00Z',
          lastModifiedDate: '2001-01-01T00:00Z',
        },
      ],
    };
    const store = new MemoryVulnStore();
    await store.add(importNvd11(feed));
    expect(
      (
        await matchProduct(store, {
          name: 'widget',
          version: '1.9',
          cpe: 'cpe:2.3:a:acme:widget:1.9:*:*:*:*:*:*:*',
        })
      ).length,
    ).toBe(1);
    expect(
      (
        await matchProduct(store, {
          name: 'widget',
          version: '2.0',
          cpe: 'cpe:2.3:a:acme:widget:2.0:*:*:*:*:*:*:*',
        })
      ).length,
    ).toBe(0);
    expect((await store.get('CVE-2000-0001'))?.severity).toBe('high');
  });
});
