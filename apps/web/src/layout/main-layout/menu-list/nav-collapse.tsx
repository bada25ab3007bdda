import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import { Collapse, List, ListItemButton, ListItemIcon, ListItemText, Tooltip } from '@mui/material';
import type { TMenuItem } from '@perimeter/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { menuIcon } from '../../../menu-items/icons.ts';
import { containsActive } from '../../../menu-items/index.ts';
import { MENU_ERRORS, MenuError } from './menu-error.tsx';
import { NavItem } from './nav-item.tsx';
import { useActiveMenuUrl } from './use-active-menu-url.ts';

type TProps = { item: TMenuItem; level: number; mini?: boolean; onNavigate?: () => void };

export function NavCollapse({ item, level, mini = false, onNavigate }: TProps) {
  const { t } = useTranslation();
  const hasActive = containsActive(item, useActiveMenuUrl());
  const [open, setOpen] = useState(hasActive);
  const title = t(item.title, { defaultValue: item.title });
  const Icon = menuIcon(item.icon);

  useEffect(() => {
    if (hasActive) setOpen(true);
  }, [hasActive]);

  const children = (item.children ?? []).map((child) => {
    switch (child.type) {
      case 'collapse':
        return (
          <NavCollapse key={child.id} item={child} level={level + 1} mini={mini} onNavigate={onNavigate} />
        );
      case 'item':
        return <NavItem key={child.id} item={child} level={level + 1} mini={mini} onNavigate={onNavigate} />;
      default:
        return <MenuError key={child.id} text={MENU_ERRORS.collapseChildren} />;
    }
  });

  const button = (
    <ListItemButton
      selected={hasActive && !open}
      onClick={() => setOpen((v) => !v)}
      aria-expanded={open}
      sx={{ pl: mini ? 2.25 : level * 2, py: 1, minHeight: 44 }}
    >
      <ListItemIcon sx={{ minWidth: mini ? 0 : 36 }}>
        {Icon ? <Icon fontSize="small" /> : <span aria-hidden="true" style={{ width: 20 }} />}
      </ListItemIcon>
      {!mini && <ListItemText primary={title} />}
      {!mini && (open ? <ExpandLess fontSize="small" /> : <ExpandMore fontSize="small" />)}
    </ListItemButton>
  );

  return (
    <>
      {mini ? (
        <Tooltip title={title} placement="right">
          {button}
        </Tooltip>
      ) : (
        button
      )}
      <Collapse in={open} timeout="auto" unmountOnExit>
        <List component="div" disablePadding>
          {children}
        </List>
      </Collapse>
    </>
  );
}
