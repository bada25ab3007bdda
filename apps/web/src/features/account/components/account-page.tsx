import { Box, Tab, Tabs } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';

const TABS = [
  { path: paths.accountDetails, key: 'account.tabs.details' },
  { path: paths.accountPlan, key: 'account.tabs.plan' },
  { path: paths.accountPayment, key: 'account.tabs.payment' },
  { path: paths.accountNotifications, key: 'account.tabs.notifications' },
] as const;

/** The account tabs; the tab's page (details, plan, payment, notifications) renders below them. */
export function AccountPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const current = TABS.find((tab) => pathname === tab.path || pathname.startsWith(`${tab.path}/`)) ?? TABS[0];

  return (
    <Box>
      <PageTitle title={t('account.title')} />
      <Tabs
        value={current.path}
        aria-label={t('account.title')}
        variant="scrollable"
        sx={{ mb: 3, borderBottom: 1, borderColor: 'divider' }}
      >
        {TABS.map((tab) => (
          <Tab key={tab.path} value={tab.path} label={t(tab.key)} component={Link} to={tab.path} />
        ))}
      </Tabs>
      <Outlet />
    </Box>
  );
}
