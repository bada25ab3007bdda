import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scan } from '../src/pipeline/scan.ts';
import { labScanConfig, startTestLab } from './helpers.ts';
import { type Collected, collectScan, comparable } from './scan-events.ts';

let lab: Lab;
let result: Collected;

beforeAll(async () => {
  lab = await startTestLab(44);
  result = await collectScan(scan(lab.domains, { ...labScanConfig(lab), classes: ['class_resources'] }));
}, 60_000);
afterAll(async () => {
  await lab?.stop();
});

describe('known-answer: class_resources scan of the lab', () => {
  it('reports exactly the planted assets of expected.json', () => {
    const expected = lab.expected().assets;
    const got = comparable(result.assets);
    expect(got.subdomains).toEqual(
      expected.subdomains.map((s) => `${s.name} ips=${[...s.ips].sort()} cnames=${s.cnames}`).sort(),
    );
    expect(got.ips).toEqual([...expected.ips].sort());
    expect(got.services).toEqual(
      expected.services
        .map((s) => `${s.ip}:${s.port} ${s.service} ${s.product ?? '-'} ${s.version ?? '-'}`)
        .sort(),
    );
    expect(got.urls).toEqual(expected.urls.map((u) => `${u.url} ${u.status} ${u.title}`).sort());
    expect(got.technologies).toEqual(
      expected.technologies.map((t) => `${t.target} ${t.name} ${t.version ?? '-'}`).sort(),
    );
    expect(got.emails).toEqual([...expected.emails].sort());
  });

  it('keeps CNAME chains, CPEs and TLS details', () => {
    const shop = result.assets.find((a) => a.kind === 'subdomain' && a.name === 'shop.acme.test');
    expect(shop).toMatchObject({ dangling: true, cnames: ['acme-shop.herokuapp.com'] });
    const nginx = result.assets.find((a) => a.kind === 'technology' && a.name === 'Nginx');
    expect(nginx).toMatchObject({ cpe: 'cpe:2.3:a:f5:nginx:1.14.0:*:*:*:*:*:*:*' });
    const secure = result.assets.find((a) => a.kind === 'url' && a.host === 'secure.acme.test');
    expect(secure).toMatchObject({ tls: { expired: true, selfSigned: true } });
  });

  it('ends with a summary: no refusals, the silent name server skipped, no findings', () => {
    const s = result.summary;
    expect(s?.aborted).toBe(false);
    expect(s?.refused).toEqual([]);
    expect(s?.skippedHosts).toEqual([
      {
        host: lab.address(2),
        reason: expect.stringContaining('no open port'),
        code: 'no_open_port',
        params: { ports: expect.any(Number) },
      },
    ]);
    expect(s?.stages.map((x) => `${x.name}:${x.status}`)).toEqual([
      'subdomains:done',
      'dns:done',
      'ports:done',
      'http:done',
      'fingerprint:done',
    ]);
    expect(result.events.filter((e) => e.type === 'finding')).toEqual([]);
    expect(result.events.at(-1)?.type).toBe('summary');
    const logCodes = result.events.flatMap((e) => (e.type === 'log' && e.code ? [e.code] : []));
    expect(logCodes).toEqual(expect.arrayContaining(['wildcard_zone', 'axfr_allowed', 'ct_names']));
    expect(
      result.events.some((e) => e.type === 'progress' && e.stage === 'subdomains' && e.done === e.total),
    ).toBe(true);
  });
});
