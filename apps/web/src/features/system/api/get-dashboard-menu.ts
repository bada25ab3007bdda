import type { TDashboardMenuResponse, TMenuItem } from '@perimeter/contracts';
import { env } from '../../../config/env.ts';
import { currentLanguage } from '../../../lib/i18n.ts';
import { getAccessToken } from '../../../lib/session.ts';

export const WRONG_SERVICES = 'Wrong Services';

function isMenuNode(value: unknown): value is TMenuItem {
  return !!value && typeof value === 'object' && 'id' in value && 'type' in value;
}

/**
 * The menu-service client (spec §2, §8): a 401 sends the browser to /login unless it is already
 * there; any failure rejects with the response body or 'Wrong Services'. Item types are not
 * validated here on purpose: the renderer shows its error texts for malformed items.
 */
export async function fetchDashboardMenu(
  baseUrl: string = env.VITE_API_BASE_URL,
): Promise<TDashboardMenuResponse> {
  const headers: Record<string, string> = { 'Accept-Language': currentLanguage() };
  const token = getAccessToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/menu/dashboard`, { headers });
  } catch {
    throw WRONG_SERVICES;
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.status === 401 && !window.location.href.includes('/login')) {
    window.location.href = '/login';
  }
  if (!response.ok) {
    throw body && typeof body === 'object' && 'detail' in body ? String(body.detail) : WRONG_SERVICES;
  }
  const data = body && typeof body === 'object' && 'data' in body ? body.data : body;
  const dashboard = data && typeof data === 'object' && 'dashboard' in data ? data.dashboard : null;
  if (!isMenuNode(dashboard)) throw WRONG_SERVICES;
  return { dashboard };
}
