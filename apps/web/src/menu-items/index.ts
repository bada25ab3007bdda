import type { TMenuItem } from '@perimeter/contracts';

/** True when `url` is the current path or an ancestor of it (`/` matches only itself). */
export function isPathActive(url: string | undefined, pathname: string): boolean {
  if (!url) return false;
  if (url === '/') return pathname === '/';
  return pathname === url || pathname.startsWith(`${url}/`);
}

/** [path prefix, the item url it selects]: an item's own url, and the other paths it owns (`match`). */
function prefixesOf(item: TMenuItem | null): [string, string][] {
  if (!item) return [];
  const own: [string, string][] =
    item.type === 'item' && item.url && !item.external
      ? [item.url, ...(item.match ?? [])].map((p): [string, string] => [p, item.url as string])
      : [];
  return [...own, ...(item.children ?? []).flatMap(prefixesOf)];
}

/**
 * The one menu url that owns the path: the item with the longest url (or `match` prefix)
 * matching it, so `/scans/past-scans/1` highlights "Reports" (/scans/past-scans) and not also
 * "New scan" (/scans), and `/events/cve` highlights "Events" (/events/vulnerabilities).
 */
export function activeMenuUrl(root: TMenuItem | null, pathname: string): string | null {
  const matching = prefixesOf(root).filter(([prefix]) => isPathActive(prefix, pathname));
  return matching.sort((a, b) => b[0].length - a[0].length)[0]?.[1] ?? null;
}

/** True when the subtree (collapse children included) holds the active url. */
export function containsActive(item: TMenuItem, activeUrl: string | null): boolean {
  if (item.type === 'item') return !item.external && item.url !== undefined && item.url === activeUrl;
  return (item.children ?? []).some((c) => containsActive(c, activeUrl));
}
