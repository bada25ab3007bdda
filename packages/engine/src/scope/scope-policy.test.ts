import { describe, expect, it } from 'vitest';
import { classifyAddress, ScopePolicy } from './scope-policy.ts';

// Only classification: nothing here contacts any address.
const REFUSED_BY_DEFAULT: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['192.0.2.10', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['64:ff9b::a00:1', 'rfc6052'],
  ['2002:a00:1::1', '6to4'],
  ['2001:0:4136:e378::1', 'teredo'],
  ['fec0::1', 'reserved'],
  ['::102:304', 'reserved'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['[::1]', 'loopback'],
];

describe('scope policy', () => {
  it.each(REFUSED_BY_DEFAULT)('refuses %s (%s) by default', (address, range) => {
    expect(classifyAddress(address)).toBe(range);
    const d = new ScopePolicy().check(address);
    expect(d.allowed).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.4.4'])(
    'allows public %s',
    (a) => {
      expect(new ScopePolicy().check(a)).toEqual({ allowed: true });
    },
  );

  it('refuses what is not an address', () => {
    expect(new ScopePolicy().check('example.com')).toMatchObject({ allowed: false, range: 'invalid' });
  });

  it('allowPrivate lets private ranges through but never metadata, multicast or broadcast', () => {
    const p = new ScopePolicy({ allowPrivate: true });
    expect(p.isAllowed('127.0.0.1')).toBe(true);
    expect(p.isAllowed('10.0.0.1')).toBe(true);
    expect(p.isAllowed('::1')).toBe(true);
    expect(p.isAllowed('169.254.1.1')).toBe(true);
    expect(p.check('169.254.169.254')).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('metadata'),
    });
    expect(p.isAllowed('::ffff:169.254.169.254')).toBe(false);
    expect(p.isAllowed('fd00:ec2::254')).toBe(false);
    expect(p.isAllowed('224.0.0.1')).toBe(false);
    expect(p.isAllowed('255.255.255.255')).toBe(false);
    expect(p.isAllowed('0.0.0.0')).toBe(false);
  });

  it('an allow-list restricts even with allowPrivate', () => {
    const p = new ScopePolicy({ allowPrivate: true, allow: ['127.0.0.0/8'] });
    expect(p.isAllowed('127.0.1.10')).toBe(true);
    expect(p.check('10.0.0.1')).toMatchObject({ allowed: false, reason: 'outside the allow-list' });
    expect(p.isAllowed('169.254.169.254')).toBe(false);
    expect(p.isAllowed('8.8.8.8')).toBe(false);
  });

  it('an explicit allow entry overrides the default deny list', () => {
    const p = new ScopePolicy({ allowPrivate: true, allow: ['169.254.169.254/32'] });
    expect(p.isAllowed('169.254.169.254')).toBe(true);
  });

  it('an allow-list without allowPrivate still refuses reserved ranges', () => {
    const p = new ScopePolicy({ allow: ['10.0.0.0/8', '8.8.8.0/24'] });
    expect(p.isAllowed('10.1.1.1')).toBe(false);
    expect(p.isAllowed('8.8.8.8')).toBe(true);
  });

  it('custom deny entries are refused', () => {
    const p = new ScopePolicy({ deny: ['8.8.8.0/24'] });
    expect(p.isAllowed('8.8.8.8')).toBe(false);
    expect(p.isAllowed('8.8.4.4')).toBe(true);
  });
});
