import { Box, Drawer, useMediaQuery } from '@mui/material';
import { type CSSObject, styled, type Theme, useTheme } from '@mui/material/styles';
import { useTranslation } from 'react-i18next';
import { DRAWER_WIDTH, HEADER_HEIGHT, MINI_DRAWER_WIDTH } from '../../../config/layout.ts';
import { useGetDashboardMenuQuery } from '../../../features/system/api/get-dashboard-menu.ts';
import { useAppDispatch, useAppSelector } from '../../../store/index.ts';
import { menuActions } from '../../menu-slice.ts';
import { MenuList } from '../menu-list/index.tsx';

const openedMixin = (theme: Theme): CSSObject => ({
  width: DRAWER_WIDTH,
  overflowX: 'hidden',
  transition: theme.transitions.create('width', {
    easing: theme.transitions.easing.sharp,
    duration: theme.transitions.duration.enteringScreen,
  }),
});

const closedMixin = (theme: Theme): CSSObject => ({
  width: MINI_DRAWER_WIDTH,
  overflowX: 'hidden',
  transition: theme.transitions.create('width', {
    easing: theme.transitions.easing.sharp,
    duration: theme.transitions.duration.leavingScreen,
  }),
});

const MiniDrawer = styled(Drawer, { shouldForwardProp: (prop) => prop !== 'open' })(({ theme, open }) => ({
  width: DRAWER_WIDTH,
  flexShrink: 0,
  whiteSpace: 'nowrap',
  boxSizing: 'border-box',
  ...(open ? openedMixin(theme) : closedMixin(theme)),
  '& .MuiDrawer-paper': {
    ...(open ? openedMixin(theme) : closedMixin(theme)),
    borderRight: `1px solid ${theme.palette.divider}`,
    top: HEADER_HEIGHT,
    height: `calc(100% - ${HEADER_HEIGHT}px)`,
  },
}));

/** Permanent (260 px, or 60 px mini) on large screens; temporary on small ones. */
export function Sidebar() {
  const { t } = useTranslation();
  const theme = useTheme();
  const dispatch = useAppDispatch();
  const drawerOpen = useAppSelector((s) => s.menu.drawerOpen);
  const { data: menu, isLoading } = useGetDashboardMenuQuery();
  const isLarge = useMediaQuery(theme.breakpoints.up('lg'));
  const items = menu ? [menu] : null;

  if (isLarge) {
    return (
      <MiniDrawer
        variant="permanent"
        open={drawerOpen}
        slotProps={{ paper: { 'aria-label': t('menu.sidebar') } }}
      >
        <Box sx={{ pt: 1 }}>{!isLoading && <MenuList items={items} mini={!drawerOpen} />}</Box>
      </MiniDrawer>
    );
  }
  return (
    <Drawer
      variant="temporary"
      open={drawerOpen}
      onClose={() => dispatch(menuActions.openDrawer(false))}
      ModalProps={{ keepMounted: true }}
      slotProps={{
        paper: { 'aria-label': t('menu.sidebar'), sx: { width: DRAWER_WIDTH, pt: `${HEADER_HEIGHT}px` } },
      }}
    >
      {!isLoading && <MenuList items={items} onNavigate={() => dispatch(menuActions.openDrawer(false))} />}
    </Drawer>
  );
}
