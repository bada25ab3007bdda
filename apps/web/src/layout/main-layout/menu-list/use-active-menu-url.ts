import type { TMenuItem } from '@perimeter/contracts';
import { createContext, useContext } from 'react';
import { activeMenuUrl } from '../../../menu-items/index.ts';

/** The menu url that owns the current path; set by the menu that renders the entries. */
export const ActiveMenuUrlContext = createContext<string | null>(null);

export function useActiveMenuUrl(): string | null {
  return useContext(ActiveMenuUrlContext);
}

/** The owner url among the given top-level entries (the longest match wins). */
export function activeUrlOf(items: readonly TMenuItem[] | null, pathname: string): string | null {
  return activeMenuUrl({ id: 'root', title: 'root', type: 'group', children: [...(items ?? [])] }, pathname);
}
