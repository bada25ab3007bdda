import type { TMenuItem } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

function isMenuNode(value: unknown): value is TMenuItem {
  return !!value && typeof value === 'object' && 'id' in value && 'type' in value;
}

/** The dashboard tree of a response body, or null when there is none. */
export function dashboardOf(body: unknown): TMenuItem | null {
  const dashboard = body && typeof body === 'object' && 'dashboard' in body ? body.dashboard : null;
  return isMenuNode(dashboard) ? dashboard : null;
}

/**
 * The menu service (spec §2, §8) through the one API client, so a 401 renews the session or signs
 * out (the guard then sends the browser to /login). Item types are not validated here on purpose:
 * the renderer shows its error texts for malformed items, and 'Menu Items Error' for no tree.
 */
export const dashboardMenuApi = api.injectEndpoints({
  endpoints: (b) => ({
    getDashboardMenu: b.query<TMenuItem | null, void>({
      query: () => '/menu/dashboard',
      transformResponse: dashboardOf,
    }),
  }),
});

export const { useGetDashboardMenuQuery } = dashboardMenuApi;
