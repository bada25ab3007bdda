import { type ExpectedRealService, missingRealPackages, type RealLab, startRealLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tlsIssues } from '../src/findings/tls-stage.ts';
import type { ServiceAsset, TechnologyAsset } from '../src/pipeline/events.ts';
import { scan } from '../src/pipeline/scan.ts';
import { TOP_100_PORTS } from '../src/ports/port-lists.ts';
import { auditTls } from '../src/probe/tls-audit.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';
import { type Collected, collectScan } from './scan-events.ts';

// Real server software from Debian packages (the real-software lab of @perimeter/lab), each
// daemon on its own address of 127.0.230.0/24. CI installs the packages (.ci/run); elsewhere
// the suite is skipped when they are absent.
const missing = missingRealPackages();
// The daemons bind ports below 1024, add loopback aliases and drop privileges: root only.
const isRoot = process.getuid?.() === 0;
if ((missing.length || !isRoot) && process.env.CI === 'true')
  throw new Error(
    `real-software lab in CI: ${isRoot ? `packages missing: ${missing.join(' ')}` : 'not root'}`,
  );
if (missing.length) console.warn(`real-software lab skipped: packages not installed: ${missing.join(' ')}`);
else if (!isRoot) console.warn('real-software lab skipped: the daemons need root');

let lab: RealLab;
let result: Collected;

const line = (s: { ip: string; port: number; service: string; product?: string; version?: string }) =>
  `${s.ip}:${s.port} ${s.service} ${s.product ?? '-'} ${s.version ?? '-'}`;

describe.skipIf(missing.length > 0 || !isRoot)(
  'real software from Debian packages (skipped without them or without root, failing in CI)',
  () => {
    beforeAll(async () => {
      lab = await startRealLab();
      const ports = [...new Set([...TOP_100_PORTS, ...lab.expected.map((e) => e.port)])];
      // The /27 holds every daemon and addresses where nothing listens.
      result = await collectScan(
        scan(`${lab.subnet}.0/27`, {
          scope: { allowPrivate: true, allow: [`${lab.subnet}.0/24`] },
          ports: { list: ports, bannerTimeoutMs: 1500 },
          classes: ['class_resources'],
        }),
      );
    }, 300_000);
    afterAll(async () => {
      await lab?.stop();
    }, 60_000);

    it('names every service and exposed version of the expected file, and nothing else', () => {
      const services = result.assets.filter((a): a is ServiceAsset => a.kind === 'service');
      expect(services.map(line).sort()).toEqual(lab.expected.map(line).sort());
    });

    it('probes every HTTP port as HTTP, proxies (http-proxy) included', () => {
      const urls = result.assets.flatMap((a) => (a.kind === 'url' ? [`${a.ip}:${a.port}`] : []));
      const http = lab.expected.filter((e) => /^(https?|http-proxy)$/.test(e.service));
      expect(http.some((e) => e.service === 'http-proxy')).toBe(true);
      for (const e of http) expect(urls, `${e.ip}:${e.port} ${e.product}`).toContain(`${e.ip}:${e.port}`);
    });

    it('reports TLS where the daemon serves it', () => {
      const tls = result.assets
        .filter((a): a is ServiceAsset => a.kind === 'service' && a.tls)
        .map((a) => `${a.ip}:${a.port}`)
        .sort();
      expect(tls).toEqual(
        lab.expected
          .filter((e: ExpectedRealService) => e.tls)
          .map((e) => `${e.ip}:${e.port}`)
          .sort(),
      );
    });

    it('one truth per service: its technologies agree with it; Java comes with Tomcat', () => {
      const techs = result.assets.filter((a): a is TechnologyAsset => a.kind === 'technology');
      const services = result.assets.filter((a): a is ServiceAsset => a.kind === 'service');
      // A greeting's technology carries the service's version, no other.
      for (const s of services) {
        const own = techs.filter((t) => t.target === `${s.ip}:${s.port}` && t.source === 'banner');
        for (const t of own) expect(t.version, `${t.target} ${t.name}`).toBe(s.version);
      }
      // The technology of the service's own product (same CPE vendor:product), from its greeting
      // or its pages, exists and has the same version (Tomcat: 10.1.x on both, not Coyote's 1.1).
      const cpeProduct = (cpe?: string) => cpe?.split(':').slice(3, 5).join(':');
      for (const s of services.filter((x) => x.cpe)) {
        const same = techs.filter(
          (t) => t.target === `${s.ip}:${s.port}` && cpeProduct(t.cpe) === cpeProduct(s.cpe),
        );
        expect(same.length, line(s)).toBeGreaterThan(0);
        for (const t of same) expect(t.version, `${t.target} ${t.name}`).toBe(s.version);
      }
      const tomcat = services.find((s) => s.product === 'Apache Tomcat');
      const java = techs.filter((t) => t.target === `${tomcat?.ip}:${tomcat?.port}` && t.name === 'Java');
      expect(java).toHaveLength(1);
    });

    it('audits TLS as sslscan does: old protocols, weak key and SHA-1 on Apache; nothing on nginx', async () => {
      const policy = new ScopePolicy({ allowPrivate: true, allow: [`${lab.subnet}.0/24`] });
      const ids = async (octet: number, port: number) => {
        const a = await auditTls(policy, lab.address(octet), lab.address(octet), port);
        return tlsIssues(a)
          .map((i) => i.id)
          .sort();
      };
      // Apache: every protocol OpenSSL has, a 1024-bit key signed with SHA-1 (see the lab's web-daemons.ts).
      expect(await ids(11, 443)).toEqual([
        'tls-certificate-sha1-signature',
        'tls-certificate-weak-key',
        'tls-protocol-tls10',
        'tls-protocol-tls11',
      ]);
      expect(await ids(10, 443)).toEqual([]);
      expect(await ids(20, 993)).toEqual([]);
    });
  },
);
