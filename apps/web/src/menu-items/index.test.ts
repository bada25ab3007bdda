import type { TMenuItem } from '@perimeter/contracts';
import { describe, expect, it } from 'vitest';
import { activeMenuUrl, containsActive, isPathActive } from './index.ts';

const item = (id: string, url: string): TMenuItem => ({ id, title: id, type: 'item', url });
const scans: TMenuItem = {
  id: 'scans',
  title: 'scans',
  type: 'collapse',
  children: [item('new', '/scans'), item('reports', '/scans/past-scans')],
};
const root: TMenuItem = {
  id: 'dashboard',
  title: 'dashboard',
  type: 'group',
  children: [item('home', '/'), scans, item('vulns', '/events/vulnerabilities')],
};

describe('menu highlighting', () => {
  it('matches a url and its descendants, "/" only itself', () => {
    expect(isPathActive('/scans', '/scans/past-scans')).toBe(true);
    expect(isPathActive('/scans', '/scansx')).toBe(false);
    expect(isPathActive('/', '/scans')).toBe(false);
  });

  it.each([
    ['/', '/'],
    ['/scans', '/scans'],
    ['/scans/past-scans', '/scans/past-scans'],
    ['/scans/past-scans/42', '/scans/past-scans'],
    ['/events/vulnerabilities/42', '/events/vulnerabilities'],
    ['/faq', null],
  ])('%s is owned by %s alone', (pathname, owner) => {
    expect(activeMenuUrl(root, pathname)).toBe(owner);
  });

  it('an item owns the other paths it matches (Events on every tab), the longest prefix wins', () => {
    const events: TMenuItem = { ...item('events', '/events/vulnerabilities'), match: ['/events'] };
    const menu: TMenuItem = { ...root, children: [events, item('cve-only', '/events/cve/special')] };
    expect(activeMenuUrl(menu, '/events/cve/42')).toBe('/events/vulnerabilities');
    expect(activeMenuUrl(menu, '/events/leaks')).toBe('/events/vulnerabilities');
    expect(activeMenuUrl(menu, '/events/cve/special/1')).toBe('/events/cve/special');
    expect(activeMenuUrl(menu, '/eventsx')).toBe(null);
  });

  it('a collapse is active when one of its children is', () => {
    expect(containsActive(scans, activeMenuUrl(root, '/scans/past-scans/1'))).toBe(true);
    expect(containsActive(scans, activeMenuUrl(root, '/'))).toBe(false);
  });
});
