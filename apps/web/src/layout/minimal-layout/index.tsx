import LogoutOutlined from '@mui/icons-material/LogoutOutlined';
import { AppBar, Box, Button, Container, Stack, Toolbar } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Outlet, useNavigate } from 'react-router';
import { MaintenanceBanner } from '../../components/feedback/maintenance-banner.tsx';
import { Logo } from '../../components/ui/logo.tsx';
import { HEADER_HEIGHT } from '../../config/layout.ts';
import { paths } from '../../config/paths.ts';
import { useAuth } from '../../features/auth/auth-provider.tsx';
import { LanguageSwitch } from '../main-layout/header/language-switch.tsx';
import { ThemeToggle } from '../main-layout/header/theme-toggle.tsx';

/** The short top bar: only the logo linking to / (spec §2). */
export function ShortTopBar() {
  return (
    <AppBar position="static" color="inherit" elevation={0} sx={{ borderBottom: 1, borderColor: 'divider' }}>
      <Toolbar sx={{ minHeight: HEADER_HEIGHT }}>
        <Logo />
      </Toolbar>
    </AppBar>
  );
}

/** Auth and onboarding pages: short top bar, centred card; language and theme below the card. */
export function MinimalLayout() {
  const { t } = useTranslation();
  const auth = useAuth();
  const navigate = useNavigate();
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default', display: 'flex', flexDirection: 'column' }}>
      <ShortTopBar />
      <MaintenanceBanner />
      <Container component="main" maxWidth="sm" sx={{ flexGrow: 1, py: { xs: 3, md: 6 } }}>
        <Outlet />
        <Stack direction="row" sx={{ justifyContent: 'center', mt: 2, color: 'text.secondary' }}>
          <LanguageSwitch />
          <ThemeToggle />
          {auth.isAuthenticated && (
            // Onboarding steps have no main menu: this is the way out.
            <Button
              color="inherit"
              startIcon={<LogoutOutlined />}
              onClick={() => {
                auth.logout();
                void navigate(paths.login, { replace: true });
              }}
            >
              {t('header.logout')}
            </Button>
          )}
        </Stack>
      </Container>
    </Box>
  );
}
