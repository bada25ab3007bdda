import { z } from 'zod';

/** The menu is data: a tree of groups, collapsible sections and items (spec §2 "Shell"). */
export const MENU_ITEM_TYPES = ['group', 'collapse', 'item'] as const;
export type TMenuItemType = (typeof MENU_ITEM_TYPES)[number];

export const ZMenuChip = z.object({
  label: z.string().min(1).max(40),
  color: z.enum(['default', 'primary', 'secondary', 'error', 'info', 'success', 'warning']).optional(),
  variant: z.enum(['filled', 'outlined']).optional(),
  size: z.enum(['small', 'medium']).optional(),
});
export type TMenuChip = z.infer<typeof ZMenuChip>;

export type TMenuItem = {
  id: string;
  /** An i18n key (e.g. `menu.home`); clients fall back to the text itself. */
  title: string;
  type: TMenuItemType;
  caption?: string;
  url?: string;
  /** Icon name the client maps to a glyph (unknown names get a default glyph). */
  icon?: string;
  /** `url` points outside the app and opens in a new tab. */
  external?: boolean;
  target?: boolean;
  disabled?: boolean;
  breadcrumbs?: boolean;
  /** Other path prefixes that select this item (an item opening one tab of a page with several). */
  match?: string[];
  chip?: TMenuChip;
  children?: TMenuItem[];
};

export const ZMenuItem: z.ZodType<TMenuItem> = z.lazy(() =>
  z.object({
    id: z.string().min(1).max(64),
    title: z.string().min(1).max(120),
    type: z.enum(MENU_ITEM_TYPES),
    caption: z.string().max(200).optional(),
    url: z.string().max(2048).optional(),
    icon: z.string().max(64).optional(),
    external: z.boolean().optional(),
    target: z.boolean().optional(),
    disabled: z.boolean().optional(),
    breadcrumbs: z.boolean().optional(),
    match: z.array(z.string().max(2048)).max(20).optional(),
    chip: ZMenuChip.optional(),
    children: z.array(ZMenuItem).optional(),
  }),
);

export const ZDashboardMenuResponse = z.object({ dashboard: ZMenuItem });
export type TDashboardMenuResponse = z.infer<typeof ZDashboardMenuResponse>;

/**
 * The main navigation of the spec: Home, New scan, Reports, Events (its three tabs live on the
 * page), Analytics, Account, plus the two labels it names without routes: Targets and Scheduled scans.
 */
export const DASHBOARD_MENU: TMenuItem = {
  id: 'dashboard',
  title: 'menu.dashboard',
  type: 'group',
  children: [
    { id: 'home', title: 'menu.home', type: 'item', url: '/', icon: 'home', breadcrumbs: false },
    { id: 'new-scan', title: 'menu.newScan', type: 'item', url: '/scans', icon: 'radar' },
    { id: 'reports', title: 'menu.reports', type: 'item', url: '/scans/past-scans', icon: 'description' },
    {
      id: 'events',
      title: 'menu.events',
      type: 'item',
      url: '/events/vulnerabilities',
      match: ['/events'],
      icon: 'bug',
    },
    { id: 'analytics', title: 'menu.analytics', type: 'item', url: '/analytics', icon: 'analytics' },
    { id: 'targets', title: 'menu.targets', type: 'item', url: '/targets', icon: 'targets' },
    {
      id: 'scheduled-scans',
      title: 'menu.scheduledScans',
      type: 'item',
      url: '/schedule-scan',
      icon: 'schedule',
    },
    { id: 'account', title: 'menu.account', type: 'item', url: '/account/account-details', icon: 'account' },
  ],
};
