import { describe, expect, it } from 'vitest';
import { isWithinDomain, networkAddresses, parseTarget, TargetError } from './targets.ts';

describe('targets', () => {
  it('guesses the kind and normalises', () => {
    expect(parseTarget('WWW.Example.COM.')).toEqual({
      type: 'domain',
      domain: 'www.example.com',
      registrable: 'example.com',
    });
    expect(parseTarget('a.b.example.co.uk')).toMatchObject({ registrable: 'example.co.uk' });
    expect(parseTarget('192.0.2.1')).toEqual({ type: 'peer', address: '192.0.2.1' });
    expect(parseTarget('2001:DB8:0:0::1')).toEqual({ type: 'peer', address: '2001:db8::1' });
    expect(parseTarget('::ffff:192.0.2.1')).toEqual({ type: 'peer', address: '192.0.2.1' });
    expect(parseTarget('10.1.2.3/24')).toEqual({ type: 'network', cidr: '10.1.2.0/24', size: 256 });
  });

  it('converts IDN to punycode', () => {
    expect(parseTarget('bücher.example')).toMatchObject({ domain: 'xn--bcher-kva.example' });
    expect(parseTarget('пример.рф')).toMatchObject({
      domain: 'xn--e1afmkfd.xn--p1ai',
      registrable: 'xn--e1afmkfd.xn--p1ai',
    });
  });

  it('rejects bad input and oversize networks', () => {
    expect(() => parseTarget('not a domain')).toThrow(TargetError);
    expect(() => parseTarget('localhost')).toThrow(TargetError);
    expect(() => parseTarget({ type: 'peer', value: 'example.com' })).toThrow(TargetError);
    expect(() => parseTarget('10.0.0.0/8', 65_536)).toThrow(/more than the limit/);
    expect(() => parseTarget('2001:db8::/64')).toThrow(/more than the limit/);
    expect(() => parseTarget('10.0.0.0/33')).toThrow(TargetError);
  });

  it('expands networks', () => {
    expect([...networkAddresses('192.0.2.0/30')]).toEqual([
      '192.0.2.0',
      '192.0.2.1',
      '192.0.2.2',
      '192.0.2.3',
    ]);
    expect([...networkAddresses('2001:db8::/126')]).toEqual([
      '2001:db8::',
      '2001:db8::1',
      '2001:db8::2',
      '2001:db8::3',
    ]);
  });

  it('checks domain membership', () => {
    expect(isWithinDomain('a.example.com', 'example.com')).toBe(true);
    expect(isWithinDomain('example.com.', 'example.com')).toBe(true);
    expect(isWithinDomain('badexample.com', 'example.com')).toBe(false);
  });
});
