import { DASHBOARD_MENU, type TMenuItem, ZDashboardMenuResponse } from '@perimeter/contracts';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dashboardMenuApi, dashboardOf } from '../../../features/system/api/get-dashboard-menu.ts';
import { createStore } from '../../../store/index.ts';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { Sidebar } from '../drawer/index.tsx';
import { splitForMoreItems } from '../horizontal/index.tsx';
import { MenuList } from './index.tsx';
import { MENU_ERRORS } from './menu-error.tsx';

const auth = signedIn(makeUser());

function renderMenu(items: TMenuItem[] | null, route = '/') {
  return renderApp(<MenuList items={items} />, { route, auth });
}

/** Malformed data as it could come from the server: the type is checked at render time. */
const bad = (item: Omit<TMenuItem, 'type'> & { type: string }) => item as unknown as TMenuItem;

describe('menu renderer', () => {
  it('renders the main navigation of the spec and highlights the current path', () => {
    renderMenu([DASHBOARD_MENU], '/analytics');
    for (const name of [
      'Home',
      'New scan',
      'Reports',
      'Analytics',
      'Targets',
      'Scheduled scans',
      'Account',
    ]) {
      expect(screen.getByRole('link', { name })).toBeInTheDocument();
    }
    // One entry for the events page: its three tabs live on the page (spec §2).
    expect(screen.getByRole('link', { name: 'Events' })).toHaveAttribute('href', '/events/vulnerabilities');
    expect(screen.getByRole('link', { name: 'Targets' })).toHaveAttribute('href', '/targets');
    expect(screen.getByRole('link', { name: 'Scheduled scans' })).toHaveAttribute('href', '/schedule-scan');
    expect(screen.getByRole('link', { name: 'Analytics' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('link', { name: 'Home' })).not.toHaveAttribute('aria-current');
    expect(screen.getByRole('link', { name: 'Account' })).toHaveAttribute('href', '/account/account-details');
  });

  it('highlights only the entry that owns a nested path (Reports, not also New scan)', () => {
    renderMenu([DASHBOARD_MENU], '/scans/past-scans/7');
    expect(screen.getByRole('link', { name: 'Reports' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('link', { name: 'New scan' })).not.toHaveAttribute('aria-current');
  });

  it('highlights Events on every tab of the events page', () => {
    for (const path of ['/events/cve', '/events/leaks/7', '/events/vulnerabilities']) {
      const { unmount } = renderMenu([DASHBOARD_MENU], path);
      expect(screen.getByRole('link', { name: 'Events' })).toHaveAttribute('aria-current', 'page');
      unmount();
    }
  });

  it('opens the collapse that holds the current path', () => {
    renderMenu(
      [
        {
          id: 'g',
          title: 'Group',
          type: 'group',
          children: [
            {
              id: 'events',
              title: 'menu.events',
              type: 'collapse',
              children: [
                { id: 'v', title: 'menu.vulnerabilities', type: 'item', url: '/events/vulnerabilities' },
                { id: 'c', title: 'menu.cve', type: 'item', url: '/events/cve' },
              ],
            },
          ],
        },
      ],
      '/events/cve',
    );
    expect(screen.getByRole('button', { name: 'Events' })).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('link', { name: 'Known exploits (CVE)' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('shows chips and opens external links in a new tab', () => {
    renderMenu([
      {
        id: 'g',
        title: 'Group',
        type: 'group',
        children: [
          {
            id: 'docs',
            title: 'Docs',
            type: 'item',
            url: 'https://docs.example.org',
            external: true,
            chip: { label: 'New' },
          },
        ],
      },
    ]);
    const link = screen.getByRole('link', { name: /Docs/ });
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', expect.stringContaining('noopener'));
    expect(within(link).getByText('New')).toBeInTheDocument();
  });

  it("reports a top-level entry that is not a group: 'Fix - Navigation Group'", () => {
    renderMenu([{ id: 'x', title: 'Loose item', type: 'item', url: '/' }]);
    expect(screen.getByRole('alert')).toHaveTextContent(MENU_ERRORS.navigationGroup);
    expect(MENU_ERRORS.navigationGroup).toBe('Fix - Navigation Group');
  });

  it("reports an unknown child of a group: 'Fix - Group Collapse or Items'", () => {
    renderMenu([
      { id: 'g', title: 'G', type: 'group', children: [bad({ id: 'w', title: 'W', type: 'widget' })] },
    ]);
    expect(screen.getByRole('alert')).toHaveTextContent('Fix - Group Collapse or Items');
  });

  it("reports an unknown child of a collapse: 'Fix - Collapse or Item'", () => {
    renderMenu(
      [
        {
          id: 'g',
          title: 'G',
          type: 'group',
          children: [
            {
              id: 'c',
              title: 'C',
              type: 'collapse',
              children: [
                { id: 'ok', title: 'Fine', type: 'item', url: '/c/ok' },
                bad({ id: 'g2', title: 'Nested group', type: 'group' }),
              ],
            },
          ],
        },
      ],
      '/c/ok',
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Fix - Collapse or Item');
    expect(screen.getByRole('link', { name: 'Fine' })).toBeInTheDocument();
  });

  it("shows 'Menu Items Error' when there is no menu", () => {
    renderMenu(null);
    expect(screen.getByRole('alert')).toHaveTextContent('Menu Items Error');
  });

  it('folds entries past the set count into "More items"', () => {
    const entries = DASHBOARD_MENU.children ?? [];
    const { visible, more } = splitForMoreItems(entries, 4);
    expect(visible.map((e) => e.id)).toEqual(['home', 'new-scan', 'reports', 'events']);
    expect(more.map((e) => e.id)).toEqual(['analytics', 'targets', 'scheduled-scans', 'account']);
    expect(splitForMoreItems(entries, 10).more).toEqual([]);
  });

  it('the contracts menu validates against its own schema', () => {
    expect(ZDashboardMenuResponse.safeParse({ dashboard: DASHBOARD_MENU }).success).toBe(true);
  });
});

describe('menu-service client (the one API client)', () => {
  afterEach(() => vi.unstubAllGlobals());

  function stubFetch(response: () => Response | Promise<Response>) {
    const urls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: Request) => {
        urls.push(input.url);
        return response();
      }),
    );
    return urls;
  }

  const fetchMenu = (store: ReturnType<typeof createStore>) =>
    store.dispatch(dashboardMenuApi.endpoints.getDashboardMenu.initiate());

  it('returns the dashboard tree from the data envelope', async () => {
    const urls = stubFetch(() => Response.json({ data: { dashboard: DASHBOARD_MENU } }));
    const store = createStore({ auth });
    expect((await fetchMenu(store)).data).toEqual(DASHBOARD_MENU);
    expect(urls).toEqual(['http://localhost/api/menu/dashboard']);
  });

  it('signs out on a 401 the session cannot renew (the guard then shows /login)', async () => {
    localStorage.setItem('accessToken', 'a');
    localStorage.removeItem('refreshToken');
    stubFetch(() => Response.json({ detail: 'Sign in', code: 'unauthenticated' }, { status: 401 }));
    const store = createStore({ auth });
    const result = await fetchMenu(store);
    expect(result.error).toMatchObject({ status: 401, data: { detail: 'Sign in' } });
    expect(store.getState().auth.isAuthenticated).toBe(false);
  });

  it("shows 'Menu Items Error' when the server cannot be reached or sends no tree", async () => {
    expect(dashboardOf({ dashboard: { title: 'no id' } })).toBeNull();
    expect(dashboardOf(null)).toBeNull();
    stubFetch(() => Promise.reject(new TypeError('network')));
    renderApp(<Sidebar />, { auth });
    // The drawer is closed on a small screen: the text is there, hidden from the accessibility tree.
    expect(await screen.findByText('Menu Items Error')).toHaveAttribute('role', 'alert');
  });
});
