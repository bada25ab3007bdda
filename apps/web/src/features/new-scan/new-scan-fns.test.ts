import { describe, expect, it } from 'vitest';
import {
  createScanBody,
  customScanLock,
  needsOneTimePayment,
  networkSize,
  planOf,
  subclassLock,
  TARGET_ERRORS,
  ZNewTargetForm,
} from './new-scan-fns.ts';

const check = (target_type: 'domain' | 'peer' | 'network', target: string) => {
  const r = ZNewTargetForm.safeParse({ target_type, target });
  return r.success ? 'ok' : r.error.issues[0]?.message;
};

describe('add-target validation', () => {
  it.each([
    ['domain', 'example.com', 'ok'],
    ['domain', 'Shop.Example.co.uk.', 'ok'],
    ['domain', 'пример.рф', 'ok'],
    ['domain', 'localhost', TARGET_ERRORS.domain],
    ['domain', 'exa mple.com', TARGET_ERRORS.domain],
    ['domain', '-bad.example.com', TARGET_ERRORS.domain],
    ['domain', 'https://example.com/', TARGET_ERRORS.domain],
    ['domain', '203.0.113.7', TARGET_ERRORS.domainIsAddress],
    ['domain', '', TARGET_ERRORS.required],
    ['domain', `${'a'.repeat(301)}.com`, TARGET_ERRORS.tooLong],
    ['peer', '203.0.113.7', 'ok'],
    ['peer', '2001:db8::1', 'ok'],
    ['peer', '203.0.113.0/24', TARGET_ERRORS.peerIsNetwork],
    ['peer', '300.1.1.1', TARGET_ERRORS.peer],
    ['peer', 'example.com', TARGET_ERRORS.peer],
    ['network', '203.0.113.0/24', 'ok'],
    ['network', '198.51.100.0/20', 'ok'],
    ['network', '10.0.0.0/19', TARGET_ERRORS.networkTooLarge],
    ['network', '2001:db8::/116', 'ok'],
    ['network', '2001:db8::/64', TARGET_ERRORS.networkTooLarge],
    ['network', '203.0.113.7', TARGET_ERRORS.network],
  ] as const)('%s %j → %s', (type, value, expected) => {
    expect(check(type, value)).toBe(expected);
  });

  it('measures networks', () => {
    expect(networkSize('203.0.113.0/24')).toBe(256);
    expect(networkSize('2001:db8::/120')).toBe(256);
    expect(networkSize('nope')).toBeNull();
  });
});

describe('plans', () => {
  it('reads the plan like the server: the first tariff, else trial', () => {
    expect(planOf([{ key: 'business' }])).toBe('business');
    expect(planOf([{ key: 'gold' }])).toBe('trial_scan');
    expect(planOf([])).toBe('trial_scan');
  });

  it('locks custom scans and subclasses outside the plan', () => {
    expect(customScanLock('starter')).toEqual({ locked: true, reason: 'plan_custom' });
    expect(customScanLock('try_it')).toEqual({ locked: false });
    expect(subclassLock('trial_scan', 'leakcheck')).toEqual({ locked: true, reason: 'plan_subclass' });
    expect(subclassLock('trial_scan', 'exploit_scanner')).toEqual({ locked: false });
  });
});

describe('create_abstract_scan body', () => {
  const ref = { target_type: 'peer' as const, user_target_id: '11111111-1111-4111-8111-111111111111' };
  it('full', () => {
    expect(createScanBody(ref, { scanType: 'full' })).toEqual({ targets: [ref], scan_type: 'full' });
  });
  it('custom: whole classes and the chosen subclasses in a stable order', () => {
    expect(
      createScanBody(ref, { scanType: 'custom', subclasses: ['exploit_db', 'leakcheck', 'exploit_scanner'] }),
    ).toEqual({
      targets: [ref],
      scan_type: 'custom',
      custom_scan_config: {
        classes: ['class_exploitation', 'class_information_gathering'],
        subclasses: ['exploit_scanner', 'exploit_db', 'leakcheck'],
      },
    });
  });
});

describe('one-time payment', () => {
  const state = (one_time_scans_left?: number) => ({ usage: { one_time_scans_left } });
  it('only try_it pays per scan', () => {
    expect(needsOneTimePayment('starter', undefined)).toBe(false);
    expect(needsOneTimePayment('trial_scan', state(0))).toBe(false);
    expect(needsOneTimePayment('business', state(0))).toBe(false);
  });
  it('try_it: needed when no paid one-time scan is left (or the count is unknown)', () => {
    expect(needsOneTimePayment('try_it', state(0))).toBe(true);
    expect(needsOneTimePayment('try_it', state(undefined))).toBe(true);
    expect(needsOneTimePayment('try_it', undefined)).toBe(true);
    expect(needsOneTimePayment('try_it', state(1))).toBe(false);
    expect(needsOneTimePayment('try_it', state(3))).toBe(false);
  });
});
