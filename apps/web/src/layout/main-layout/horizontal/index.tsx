import ExpandMore from '@mui/icons-material/ExpandMore';
import MoreHoriz from '@mui/icons-material/MoreHoriz';
import { Box, Button, ListItemIcon, ListItemText, Menu, MenuItem, Paper } from '@mui/material';
import type { TMenuItem } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { HEADER_HEIGHT, HORIZONTAL_MAX_ITEMS } from '../../../config/layout.ts';
import { useGetDashboardMenuQuery } from '../../../features/system/api/get-dashboard-menu.ts';
import { menuIcon } from '../../../menu-items/icons.ts';
import { containsActive } from '../../../menu-items/index.ts';
import { MENU_ERRORS, MenuError } from '../menu-list/menu-error.tsx';
import { ActiveMenuUrlContext, activeUrlOf, useActiveMenuUrl } from '../menu-list/use-active-menu-url.ts';

/** Top-level entries of every group, in order; the horizontal bar shows them side by side. */
export function flattenForHorizontal(root: TMenuItem | null): TMenuItem[] {
  if (!root) return [];
  return root.type === 'group' ? (root.children ?? []) : [root];
}

/** Splits entries into the visible ones and those folded into "More items". */
export function splitForMoreItems<T>(
  entries: T[],
  max: number = HORIZONTAL_MAX_ITEMS,
): { visible: T[]; more: T[] } {
  return entries.length <= max
    ? { visible: entries, more: [] }
    : { visible: entries.slice(0, max), more: entries.slice(max) };
}

function DropdownLink({ item, onClose }: { item: TMenuItem; onClose: () => void }) {
  const { t } = useTranslation();
  const activeUrl = useActiveMenuUrl();
  const Icon = menuIcon(item.icon);
  const linkProps = item.external
    ? { component: 'a' as const, href: item.url ?? '#', target: '_blank', rel: 'noopener noreferrer' }
    : { component: Link, to: item.url ?? '/' };
  return (
    <MenuItem {...linkProps} selected={!item.external && item.url === activeUrl} onClick={onClose}>
      {Icon && (
        <ListItemIcon>
          <Icon fontSize="small" />
        </ListItemIcon>
      )}
      <ListItemText primary={t(item.title, { defaultValue: item.title })} />
    </MenuItem>
  );
}

function dropdownItems(items: TMenuItem[], onClose: () => void) {
  return items.flatMap((item) => {
    if (item.type === 'collapse') {
      return (item.children ?? []).map((c) => <DropdownLink key={c.id} item={c} onClose={onClose} />);
    }
    if (item.type === 'item') return [<DropdownLink key={item.id} item={item} onClose={onClose} />];
    return [
      <MenuItem key={item.id} disabled>
        <MenuError text={MENU_ERRORS.groupChildren} />
      </MenuItem>,
    ];
  });
}

function TopEntry({ item }: { item: TMenuItem }) {
  const { t } = useTranslation();
  const activeUrl = useActiveMenuUrl();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const Icon = menuIcon(item.icon);
  const title = t(item.title, { defaultValue: item.title });
  const active = containsActive(item, activeUrl);
  const sx = { color: active ? 'primary.main' : 'text.primary', fontWeight: active ? 700 : 500, px: 1.5 };

  if (item.type === 'item') {
    const linkProps = item.external
      ? { component: 'a' as const, href: item.url ?? '#', target: '_blank', rel: 'noopener noreferrer' }
      : { component: Link, to: item.url ?? '/' };
    return (
      <Button
        {...linkProps}
        startIcon={Icon ? <Icon /> : undefined}
        sx={sx}
        aria-current={active ? 'page' : undefined}
      >
        {title}
      </Button>
    );
  }
  if (item.type !== 'collapse') return <MenuError text={MENU_ERRORS.groupChildren} />;
  return (
    <>
      <Button
        startIcon={Icon ? <Icon /> : undefined}
        endIcon={<ExpandMore />}
        sx={sx}
        aria-haspopup="menu"
        onClick={(e) => setAnchor(e.currentTarget)}
      >
        {title}
      </Button>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {dropdownItems(item.children ?? [], () => setAnchor(null))}
      </Menu>
    </>
  );
}

export function HorizontalBar() {
  const { t } = useTranslation();
  const { data: menu = null, isLoading } = useGetDashboardMenuQuery();
  const { pathname } = useLocation();
  const [moreAnchor, setMoreAnchor] = useState<HTMLElement | null>(null);
  const entries = flattenForHorizontal(menu);
  if (isLoading) return null;
  if (!menu) return <MenuError text={MENU_ERRORS.items} />;
  if (menu.type !== 'group') return <MenuError text={MENU_ERRORS.navigationGroup} />;
  const { visible, more } = splitForMoreItems(entries);

  return (
    <ActiveMenuUrlContext.Provider value={activeUrlOf([menu], pathname)}>
      <Paper
        square
        elevation={0}
        component="nav"
        aria-label={t('menu.mainNavigation')}
        sx={{
          position: 'fixed',
          top: HEADER_HEIGHT,
          left: 0,
          right: 0,
          zIndex: (theme) => theme.zIndex.appBar,
          borderBottom: 1,
          borderColor: 'divider',
          px: 2,
          py: 0.75,
        }}
      >
        <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
          {visible.map((item) => (
            <TopEntry key={item.id} item={item} />
          ))}
          {more.length > 0 && (
            <>
              <Button
                startIcon={<MoreHoriz />}
                sx={{ color: 'text.primary', px: 1.5 }}
                aria-haspopup="menu"
                onClick={(e) => setMoreAnchor(e.currentTarget)}
              >
                {t('menu.moreItems')}
              </Button>
              <Menu anchorEl={moreAnchor} open={!!moreAnchor} onClose={() => setMoreAnchor(null)}>
                {dropdownItems(more, () => setMoreAnchor(null))}
              </Menu>
            </>
          )}
        </Box>
      </Paper>
    </ActiveMenuUrlContext.Provider>
  );
}
