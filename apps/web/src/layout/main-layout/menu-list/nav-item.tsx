import { Chip, ListItemButton, ListItemIcon, ListItemText, Tooltip } from '@mui/material';
import type { TMenuItem } from '@perimeter/contracts';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { menuIcon } from '../../../menu-items/icons.ts';
import { useAppDispatch, useAppSelector } from '../../../store/index.ts';
import { menuActions } from '../../menu-slice.ts';
import { useActiveMenuUrl } from './use-active-menu-url.ts';

type TProps = { item: TMenuItem; level: number; mini?: boolean; onNavigate?: () => void };

export function NavItem({ item, level, mini = false, onNavigate }: TProps) {
  const { t } = useTranslation();
  const dispatch = useAppDispatch();
  const openItem = useAppSelector((s) => s.menu.openItem);
  const title = t(item.title, { defaultValue: item.title });
  const Icon = menuIcon(item.icon);
  const activeUrl = useActiveMenuUrl();
  const active = !item.external && item.url !== undefined && item.url === activeUrl;

  useEffect(() => {
    if (active) dispatch(menuActions.activeItem(item.id));
  }, [active, dispatch, item.id]);

  const selected = active || openItem === item.id;
  const linkProps = item.external
    ? { component: 'a' as const, href: item.url ?? '#', target: '_blank', rel: 'noopener noreferrer' }
    : { component: Link, to: item.url ?? '/' };

  const button = (
    <ListItemButton
      {...linkProps}
      selected={selected}
      disabled={item.disabled}
      aria-current={active ? 'page' : undefined}
      onClick={() => {
        dispatch(menuActions.activeItem(item.id));
        onNavigate?.();
      }}
      sx={{ pl: mini ? 2.25 : level * 2, py: 1, minHeight: 44 }}
    >
      <ListItemIcon sx={{ minWidth: mini ? 0 : 36 }}>
        {Icon ? <Icon fontSize="small" /> : <span aria-hidden="true" style={{ width: 20 }} />}
      </ListItemIcon>
      {!mini && (
        <ListItemText
          primary={title}
          secondary={item.caption ? t(item.caption, { defaultValue: item.caption }) : undefined}
        />
      )}
      {!mini && item.chip && (
        <Chip
          label={t(item.chip.label, { defaultValue: item.chip.label })}
          color={item.chip.color ?? 'primary'}
          variant={item.chip.variant ?? 'filled'}
          size={item.chip.size ?? 'small'}
        />
      )}
    </ListItemButton>
  );

  return mini ? (
    <Tooltip title={title} placement="right">
      {button}
    </Tooltip>
  ) : (
    button
  );
}
