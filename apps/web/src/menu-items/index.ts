import type { TMenuItem } from '@perimeter/contracts';

/** True when `url` is the current path or an ancestor of it (`/` matches only itself). */
export function isPathActive(url: string | undefined, pathname: string): boolean {
  if (!url) return false;
  if (url === '/') return pathname === '/';
  return pathname === url || pathname.startsWith(`${url}/`);
}

function urlsOf(item: TMenuItem | null): string[] {
  if (!item) return [];
  const own = item.type === 'item' && item.url && !item.external ? [item.url] : [];
  return [...own, ...(item.children ?? []).flatMap(urlsOf)];
}

/**
 * The one menu url that owns the path: the longest one matching it, so `/scans/past-scans/1`
 * highlights "Reports" (/scans/past-scans) and not also "New scan" (/scans).
 */
export function activeMenuUrl(root: TMenuItem | null, pathname: string): string | null {
  const matching = urlsOf(root).filter((url) => isPathActive(url, pathname));
  return matching.sort((a, b) => b.length - a.length)[0] ?? null;
}

/** True when the subtree (collapse children included) holds the active url. */
export function containsActive(item: TMenuItem, activeUrl: string | null): boolean {
  if (item.type === 'item') return !item.external && item.url !== undefined && item.url === activeUrl;
  return (item.children ?? []).some((c) => containsActive(c, activeUrl));
}
