import HelpOutline from '@mui/icons-material/HelpOutlineOutlined';
import MenuOutlined from '@mui/icons-material/MenuOutlined';
import MoreVert from '@mui/icons-material/MoreVert';
import { AppBar, Box, IconButton, Popover, Stack, Toolbar, Tooltip, useMediaQuery } from '@mui/material';
import { useTheme } from '@mui/material/styles';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Logo } from '../../../components/ui/logo.tsx';
import { DRAWER_WIDTH, HEADER_HEIGHT } from '../../../config/layout.ts';
import { paths } from '../../../config/paths.ts';
import { usePreferences } from '../../../contexts/preferences-context.tsx';
import { useAppDispatch, useAppSelector } from '../../../store/index.ts';
import { menuActions } from '../../menu-slice.ts';
import { CustomizationButton } from './customization.tsx';
import { LanguageSwitch } from './language-switch.tsx';
import { ProfileMenu } from './profile-menu.tsx';
import { ThemeToggle } from './theme-toggle.tsx';

function HeaderTools() {
  const { t } = useTranslation();
  return (
    <>
      <Tooltip title={t('header.faq')}>
        <IconButton color="inherit" component={Link} to={paths.faq} aria-label={t('header.faq')}>
          <HelpOutline />
        </IconButton>
      </Tooltip>
      <LanguageSwitch />
      <ThemeToggle />
      <CustomizationButton />
    </>
  );
}

export function Header() {
  const { t } = useTranslation();
  const theme = useTheme();
  const dispatch = useAppDispatch();
  const drawerOpen = useAppSelector((s) => s.menu.drawerOpen);
  const { menuOrientation } = usePreferences();
  const isSmall = useMediaQuery(theme.breakpoints.down('md'));
  const [moreAnchor, setMoreAnchor] = useState<HTMLElement | null>(null);
  const isHorizontal = menuOrientation === 'horizontal' && !isSmall;

  return (
    <AppBar
      position="fixed"
      color="inherit"
      elevation={0}
      sx={{
        zIndex: theme.zIndex.drawer + 1,
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
      }}
    >
      <Toolbar sx={{ minHeight: HEADER_HEIGHT, gap: 1 }}>
        <Box sx={{ width: isSmall ? 'auto' : DRAWER_WIDTH - 24, display: 'flex', alignItems: 'center' }}>
          <Logo showText={!isSmall} />
        </Box>
        {!isHorizontal && (
          <Tooltip title={t('header.toggleMenu')}>
            <IconButton
              color="inherit"
              aria-label={t('header.toggleMenu')}
              aria-expanded={drawerOpen}
              onClick={() => dispatch(menuActions.openDrawer(!drawerOpen))}
            >
              <MenuOutlined />
            </IconButton>
          </Tooltip>
        )}
        <Box sx={{ flexGrow: 1 }} />
        {isSmall ? (
          <>
            <Tooltip title={t('header.more')}>
              <IconButton
                color="inherit"
                aria-label={t('header.more')}
                onClick={(e) => setMoreAnchor(e.currentTarget)}
              >
                <MoreVert />
              </IconButton>
            </Tooltip>
            <Popover
              open={!!moreAnchor}
              anchorEl={moreAnchor}
              onClose={() => setMoreAnchor(null)}
              anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
              transformOrigin={{ vertical: 'top', horizontal: 'right' }}
            >
              <Stack direction="row" sx={{ p: 1 }}>
                <HeaderTools />
              </Stack>
            </Popover>
          </>
        ) : (
          <HeaderTools />
        )}
        <ProfileMenu />
      </Toolbar>
    </AppBar>
  );
}
