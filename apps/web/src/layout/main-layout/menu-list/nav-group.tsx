import { Divider, List, ListSubheader } from '@mui/material';
import type { TMenuItem } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { MENU_ERRORS, MenuError } from './menu-error.tsx';
import { NavCollapse } from './nav-collapse.tsx';
import { NavItem } from './nav-item.tsx';

type TProps = { item: TMenuItem; mini?: boolean; onNavigate?: () => void };

export function NavGroup({ item, mini = false, onNavigate }: TProps) {
  const { t } = useTranslation();
  const children = (item.children ?? []).map((child) => {
    switch (child.type) {
      case 'collapse':
        return <NavCollapse key={child.id} item={child} level={1} mini={mini} onNavigate={onNavigate} />;
      case 'item':
        return <NavItem key={child.id} item={child} level={1} mini={mini} onNavigate={onNavigate} />;
      default:
        return <MenuError key={child.id} text={MENU_ERRORS.groupChildren} />;
    }
  });

  return (
    <>
      <List
        component="div"
        sx={{ px: mini ? 0.5 : 1.5 }}
        subheader={
          !mini && item.title ? (
            <ListSubheader component="div" disableSticky sx={{ bgcolor: 'transparent', lineHeight: '36px' }}>
              {t(item.title, { defaultValue: item.title })}
            </ListSubheader>
          ) : undefined
        }
      >
        {children}
      </List>
      <Divider sx={{ my: 0.5 }} />
    </>
  );
}
