import type { TMenuItem } from '@perimeter/contracts';

/** True when `url` is the current path or an ancestor of it (`/` matches only itself). */
export function isPathActive(url: string | undefined, pathname: string): boolean {
  if (!url) return false;
  if (url === '/') return pathname === '/';
  return pathname === url || pathname.startsWith(`${url}/`);
}

/** Items of a subtree (collapse children included) whose url matches the path. */
export function containsActive(item: TMenuItem, pathname: string): boolean {
  if (item.type === 'item') return isPathActive(item.url, pathname);
  return (item.children ?? []).some((c) => containsActive(c, pathname));
}
