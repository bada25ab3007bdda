import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDataset } from '../../test/helpers.ts';
import { tpl } from '../../test/template-helpers.ts';
import { compileTemplateSource } from './template-compile.ts';
import { loadTemplates, validateTemplates } from './template-loader.ts';

const GOOD = `id: sample-template

info:
  name: Sample
  author: a, b
  severity: High
  description: A description.
  impact: Bad things.
  remediation: Fix it.
  reference:
    - https://example.com/a
  classification:
    cvss-metrics: CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N
    cvss-score: 7.5
    cve-id: CVE-2021-41773
    cwe-id: CWE-22
    epss-score: 0.9
    epss-percentile: 0.99
    cpe: cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*
  metadata:
    max-request: 1
  tags: cve,apache

http:
  - method: GET
    path:
      - "{{BaseURL}}/x"
    matchers:
      - type: status
        status:
          - 200
# digest: 4a0a00473045022100b1bc36edebb04f6cd56baabf1d9666c07829e83a4aac63e41d7a9d05a2b98060022014010:922c64590222798bb761d5b6d8e72950
`;

describe('template parse and compile', () => {
  it('parses the info block and tolerates the digest line', () => {
    const r = compileTemplateSource(GOOD, 'good.yaml');
    expect(r.status).toBe('ok');
    if (r.status !== 'ok') return;
    const t = r.template;
    expect(t.id).toBe('sample-template');
    expect(t.info).toMatchObject({
      name: 'Sample',
      authors: ['a', 'b'],
      severity: 'high',
      description: 'A description.',
      impact: 'Bad things.',
      remediation: 'Fix it.',
      references: ['https://example.com/a'],
      tags: ['cve', 'apache'],
      classification: {
        cvssMetrics: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
        cvssScore: 7.5,
        cveId: ['CVE-2021-41773'],
        cweId: ['CWE-22'],
        epssScore: 0.9,
        epssPercentile: 0.99,
        cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      },
    });
    expect(t.requests).toHaveLength(1);
  });

  const invalid: [string, string, string, RegExp][] = [
    ['bad yaml', 'id: x\ninfo: [', '(yaml)', /./],
    ['missing info', 'id: x\nhttp:\n  - path: ["{{BaseURL}}"]\n', 'info', /./],
    ['bad severity', GOOD.replace('severity: High', 'severity: extreme'), 'info.severity', /./],
    ['bad id', GOOD.replace('id: sample-template', 'id: "bad id!"'), 'id', /id must be/],
    [
      'bad regex',
      GOOD.replace(
        '      - type: status\n        status:\n          - 200',
        '      - type: regex\n        regex:\n          - "(a"',
      ),
      'http[0].matchers[0].regex[0]',
      /invalid regex/,
    ],
    [
      'bad dsl',
      GOOD.replace(
        '      - type: status\n        status:\n          - 200',
        '      - type: dsl\n        dsl:\n          - "status_code =="',
      ),
      'http[0].matchers[0].dsl[0]',
      /./,
    ],
    ['unknown matcher type', GOOD.replace('type: status', 'type: magic'), 'http.0.matchers.0.type', /./],
    [
      'bad payload file',
      GOOD.replace('    matchers:', '    payloads:\n      p: missing.txt\n    matchers:'),
      'http[0].payloads.p',
      /templates directory|not found/,
    ],
    ['bad flow', `${GOOD}flow: |\n  for (const x of y) { http(1) \n`, 'flow', /expected '}'.*line 2/],
    [
      'no path or raw',
      GOOD.replace('    path:\n      - "{{BaseURL}}/x"\n', ''),
      'http[0].path',
      /path or raw/,
    ],
    [
      'bad tls version',
      'id: t\ninfo:\n  name: t\n  severity: info\nssl:\n  - address: "{{Host}}:{{Port}}"\n    min_version: tls99\n',
      'ssl[0].min_version',
      /unknown TLS version/,
    ],
  ];
  it.each(invalid)('reports %s with file, field and reason', (_name, source, field, reason) => {
    const r = compileTemplateSource(source, 'broken.yaml');
    expect(r.status).toBe('invalid');
    if (r.status !== 'invalid') return;
    expect(r.file).toBe('broken.yaml');
    expect(r.field).toBe(field);
    expect(r.reason).toMatch(reason);
  });

  const skipped: [string, string, RegExp][] = [
    [
      'ysoserial gadget',
      GOOD.replace(
        '"{{BaseURL}}/x"',
        `'{{BaseURL}}/?u={{generate_java_gadget("commons-collections3.1", "id", "raw")}}'`,
      ),
      /gadget chain/,
    ],
    [
      '.NET gadget',
      GOOD.replace('{{BaseURL}}/x', "{{BaseURL}}/{{generate_dotnet_gadget('windows-identity', 'x', 'raw')}}"),
      /gadget/,
    ],
    ['code', `${GOOD}code:\n  - engine: [sh]\n    source: id\n`, /code/],
    ['headless', `${GOOD}headless:\n  - steps: []\n`, /headless/],
    ['javascript', `${GOOD}javascript:\n  - code: x\n`, /javascript/],
  ];
  it('loads out-of-band templates and marks them (they run only with an interaction server)', () => {
    const marker = compileTemplateSource(
      GOOD.replace('{{BaseURL}}/x', '{{BaseURL}}/?u={{interactsh-url}}'),
      'oob.yaml',
    );
    expect(marker.status).toBe('ok');
    if (marker.status === 'ok') {
      expect(marker.template.oob).toBe(true);
      expect(marker.template.requests[0]?.oobOperators).toBeUndefined();
    }
    const parts = compileTemplateSource(
      `${GOOD.replace('{{BaseURL}}/x', '{{BaseURL}}/?u={{interactsh-url}}')}`.replace(
        /matchers:[\s\S]*$/,
        'matchers:\n      - type: word\n        part: interactsh_protocol\n        words: [dns]\n',
      ),
      'oob.yaml',
    );
    expect(parts.status).toBe('ok');
    if (parts.status === 'ok') expect(parts.template.requests[0]?.oobOperators).toBe(true);
    const plain = compileTemplateSource(GOOD, 'plain.yaml');
    expect(plain.status === 'ok' && plain.template.oob).toBeFalsy();
  });

  it.each(skipped)('recognises %s templates and skips them with a reason', (_name, source, reason) => {
    const r = compileTemplateSource(source, 'skip.yaml');
    expect(r.status).toBe('skipped');
    if (r.status === 'skipped') expect(r.reason).toMatch(reason);
  });

  it('compiles unsafe raw requests (sent byte for byte) and read-all', () => {
    const r = compileTemplateSource(
      tpl(
        'unsafe',
        'http:\n  - raw:\n      - |+\n        {{verb}} / HTTP/1.1\n        Host: {{Hostname}}\n\n    payloads:\n      verb: [GET]\n    unsafe: true\n    read-all: true\n    matchers:\n      - type: status\n        status: [200]\n',
      ),
      'unsafe.yaml',
    );
    expect(r.status).toBe('ok');
    const req = r.status === 'ok' ? r.template.requests[0] : undefined;
    expect(req?.protocol === 'http' && [req.unsafe, req.readAll]).toEqual([true, true]);
  });

  it('reads payload files relative to the templates directory and keeps hex inputs as written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tpl-'));
    mkdirSync(path.join(dir, 'helpers'));
    writeFileSync(path.join(dir, 'helpers', 'paths.txt'), 'admin\nlogin\n');
    writeFileSync(
      path.join(dir, 'a.yaml'),
      GOOD.replace('    matchers:', '    payloads:\n      p: helpers/paths.txt\n    matchers:'),
    );
    writeFileSync(
      path.join(dir, 'b.yaml'),
      'id: tcp-hex\ninfo:\n  name: t\n  severity: info\ntcp:\n  - inputs:\n      - data: 00000000\n        type: hex\n    host:\n      - "{{Hostname}}"\n    port: 21\n    matchers:\n      - type: word\n        words: ["x"]\n',
    );
    writeFileSync(path.join(dir, 'c.yaml'), GOOD); // duplicate id
    const loaded = await loadTemplates(dir);
    expect(loaded.templates.map((t) => t.id)).toEqual(['sample-template', 'tcp-hex']);
    const req = loaded.templates[0]?.requests[0];
    expect(req?.payloads).toEqual({ p: ['admin', 'login'] });
    const tcp = loaded.templates[1]?.requests[0];
    expect(tcp?.protocol === 'network' && tcp.inputs[0]?.data).toEqual(Buffer.from([0, 0, 0, 0]));
    expect(loaded.invalid[0]?.reason).toMatch(/duplicate id/);
    const report = await validateTemplates(dir);
    expect(report.lines.at(-1)).toBe('valid 2 of 3');
  });
});

describe('compatibility with the official nuclei-templates sample', () => {
  const dir = sharedDataset('nuclei-templates');
  it.skipIf(!dir)('parses and compiles at least 90% of the templates', async () => {
    const report = await validateTemplates(dir as string);
    console.log(report.lines.join('\n'));
    expect(report.total).toBeGreaterThan(100);
    expect(report.valid / report.total).toBeGreaterThanOrEqual(0.9);
  });
});
