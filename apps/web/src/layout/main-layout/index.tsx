import { Box, Container, Toolbar, useMediaQuery } from '@mui/material';
import { useTheme } from '@mui/material/styles';
import { useEffect, useRef } from 'react';
import { Outlet } from 'react-router';
import { MaintenanceBanner } from '../../components/feedback/maintenance-banner.tsx';
import { HEADER_HEIGHT } from '../../config/layout.ts';
import { usePreferences } from '../../contexts/preferences-context.tsx';
import { useAppDispatch } from '../../store/index.ts';
import { menuActions } from '../menu-slice.ts';
import { Sidebar } from './drawer/index.tsx';
import { Header } from './header/index.tsx';
import { HorizontalBar } from './horizontal/index.tsx';

/**
 * Spec §2: the drawer opens by default on wide screens and closes below xl, unless mini-drawer mode
 * is set — then the width no longer opens or closes it (the user's toggle holds; collapsed it shows
 * the 60 px mini variant). `null`: leave it as it is.
 */
export function drawerOpenFor(belowXl: boolean, miniDrawer: boolean, isFirst: boolean): boolean | null {
  if (isFirst || !miniDrawer) return !belowXl;
  return null;
}

export function MainLayout() {
  const theme = useTheme();
  const dispatch = useAppDispatch();
  const { menuOrientation, miniDrawer, container } = usePreferences();
  const belowXl = useMediaQuery(theme.breakpoints.down('xl'));
  const isSmall = useMediaQuery(theme.breakpoints.down('md'));
  const isHorizontal = menuOrientation === 'horizontal' && !isSmall;

  const isFirst = useRef(true);
  useEffect(() => {
    const open = drawerOpenFor(belowXl, miniDrawer, isFirst.current);
    isFirst.current = false;
    if (open !== null) dispatch(menuActions.openDrawer(open));
  }, [belowXl, miniDrawer, dispatch]);

  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default' }}>
      <Header />
      {isHorizontal ? <HorizontalBar /> : <Sidebar />}
      <Box component="main" sx={{ flexGrow: 1, minWidth: 0 }}>
        <Toolbar sx={{ minHeight: HEADER_HEIGHT }} />
        {isHorizontal && <Box sx={{ height: 52 }} />}
        <MaintenanceBanner />
        <Container maxWidth={container ? 'lg' : false} sx={{ py: 3, px: { xs: 2, md: 3 } }}>
          <Outlet />
        </Container>
      </Box>
    </Box>
  );
}
