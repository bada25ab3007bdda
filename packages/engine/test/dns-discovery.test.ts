import type { Lab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchCtNames } from '../src/discovery/certificate-transparency.ts';
import { detectWildcard, isWildcardAnswer } from '../src/discovery/wildcard.ts';
import { builtinWordlist, parseWordlist } from '../src/discovery/wordlist.ts';
import { attemptZoneTransfer } from '../src/discovery/zone-transfer.ts';
import { DnsResolver, parseServer, txtValues } from '../src/dns/dns-resolver.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';
import { startTestLab } from './helpers.ts';

let lab: Lab;
let resolver: DnsResolver;
const policy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.0.0/8'] });

beforeAll(async () => {
  lab = await startTestLab(41);
  resolver = new DnsResolver({ servers: [`${lab.dns.host}:${lab.dns.port}`], timeoutMs: 1000, retries: 1 });
});
afterAll(async () => {
  resolver?.close();
  await lab?.stop();
});

describe('resolver against the lab DNS server', () => {
  it('parses server strings', () => {
    expect(parseServer('127.0.0.1:5300')).toEqual({ host: '127.0.0.1', port: 5300 });
    expect(parseServer('[::1]:53')).toEqual({ host: '::1', port: 53 });
    expect(parseServer('::1')).toEqual({ host: '::1', port: 53 });
    expect(parseServer('10.0.0.2')).toEqual({ host: '10.0.0.2', port: 53 });
  });

  it('resolves A records and CNAME chains', async () => {
    expect(await resolver.resolveHost('www.acme.test')).toMatchObject({
      addresses: ['127.0.41.10'],
      cnames: [],
      exists: true,
    });
    expect(await resolver.resolveHost('docs.acme.test')).toMatchObject({
      addresses: ['127.0.41.10'],
      cnames: ['www.acme.test'],
    });
  });

  it('marks a dangling CNAME and a missing name', async () => {
    expect(await resolver.resolveHost('shop.acme.test')).toMatchObject({
      addresses: [],
      cnames: ['acme-shop.herokuapp.com'],
      dangling: true,
      exists: true,
    });
    expect(await resolver.resolveHost('nope.acme.test')).toMatchObject({ exists: false, dangling: false });
  });

  it('queries any record type, and sees TXT records published at run time', async () => {
    const mx = await resolver.query('acme.test', 'MX');
    expect(mx.answers[0]?.type).toBe('MX');
    expect(txtValues((await resolver.query('_dmarc.acme.test', 'TXT')).answers)).toEqual([
      'v=DMARC1; p=none; rua=mailto:dmarc-reports@acme.test',
    ]);
    lab.setTxt('_perimeter.beta.test', ['perimeter-verify=abc123']);
    const fresh = new DnsResolver({ servers: resolver.servers });
    expect(txtValues((await fresh.query('_perimeter.beta.test', 'TXT')).answers)).toEqual([
      'perimeter-verify=abc123',
    ]);
    lab.removeTxt('_perimeter.beta.test');
    const fresher = new DnsResolver({ servers: resolver.servers });
    expect((await fresher.query('_perimeter.beta.test', 'TXT')).rcode).toBe('NXDOMAIN');
    fresh.close();
    fresher.close();
  });

  it('times out and retries on a silent server', async () => {
    const silent = new DnsResolver({ servers: ['127.0.41.2:5399'], timeoutMs: 150, retries: 1 });
    const started = Date.now();
    await expect(silent.query('acme.test', 'A')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    silent.close();
  });
});

describe('subdomain sources', () => {
  it('detects a wildcard zone and drops only wildcard answers', async () => {
    const wild = await detectWildcard(resolver, 'wild.test');
    expect(wild.isWildcard).toBe(true);
    expect([...wild.addresses]).toEqual(['127.0.41.22']);
    const random = await resolver.resolveHost('anything-here.wild.test');
    expect(isWildcardAnswer(random, wild)).toBe(true);
    const portal = await resolver.resolveHost('portal.wild.test');
    expect(isWildcardAnswer(portal, wild)).toBe(false);
    const acme = await detectWildcard(resolver, 'acme.test');
    expect(acme.isWildcard).toBe(false);
    expect(isWildcardAnswer(await resolver.resolveHost('www.acme.test'), acme)).toBe(false);
  });

  it('transfers a zone that allows AXFR and not one that refuses it', async () => {
    const beta = await attemptZoneTransfer(resolver, policy, 'beta.test');
    expect(beta?.names.sort()).toEqual(['beta.test', 'dev.beta.test', 'xq7-build.beta.test']);
    expect(await attemptZoneTransfer(resolver, policy, 'acme.test')).toBeNull();
  });

  it('reads a crt.sh-compatible API', async () => {
    expect((await fetchCtNames(lab.ctUrl, 'acme.test')).sort()).toEqual([
      'acme.test',
      'legacy-vpn.acme.test',
      'old-crm.acme.test',
      'www.acme.test',
    ]);
  });

  it('ships a wordlist of at least 2000 labels and parses operator files', () => {
    const words = builtinWordlist();
    expect(words.length).toBeGreaterThanOrEqual(2000);
    expect(new Set(words).size).toBe(words.length);
    expect(parseWordlist('# c\nWWW\n\nbad label\n-x\napi.v2\n')).toEqual(['www', 'api.v2']);
  });
});
