import { Box } from '@mui/material';
import type { TMenuItem } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { MENU_ERRORS, MenuError } from './menu-error.tsx';
import { NavGroup } from './nav-group.tsx';
import { ActiveMenuUrlContext, activeUrlOf } from './use-active-menu-url.ts';

type TProps = { items: TMenuItem[] | null; mini?: boolean; onNavigate?: () => void };

/** Renders the menu data; anything but a group at the top level is reported, not skipped. */
export function MenuList({ items, mini = false, onNavigate }: TProps) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  if (!items || items.length === 0) return <MenuError text={MENU_ERRORS.items} />;
  return (
    <ActiveMenuUrlContext.Provider value={activeUrlOf(items, pathname)}>
      <Box component="nav" aria-label={t('menu.mainNavigation')}>
        {items.map((item) =>
          item.type === 'group' ? (
            <NavGroup key={item.id} item={item} mini={mini} onNavigate={onNavigate} />
          ) : (
            <MenuError key={item.id} text={MENU_ERRORS.navigationGroup} />
          ),
        )}
      </Box>
    </ActiveMenuUrlContext.Provider>
  );
}
