import AddCircleOutline from '@mui/icons-material/AddCircleOutlineOutlined';
import {
  Alert,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Grid,
  List,
  ListItem,
  ListItemText,
  Link as MuiLink,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { SCAN_STATUSES, type TDashboardInfo } from '@perimeter/contracts';
import { lazy, type ReactNode, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { QueryState } from '../../../components/feedback/query-state.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth, useDateFormat } from '../../auth/index.ts';
import { ScanStatusChip, SeverityCountChips } from '../../scans/index.ts';
import { useGetDashboardInfoQuery } from '../api/get-dashboard-info.ts';
import { useRecentScans } from '../hooks/use-recent-scans.ts';

const NewVsFixedChart = lazy(() =>
  import('./new-vs-fixed-chart.tsx').then((m) => ({ default: m.NewVsFixedChart })),
);

function StatCard({
  title,
  value,
  testId,
  children,
}: {
  title: string;
  value: ReactNode;
  testId: string;
  children?: ReactNode;
}) {
  return (
    <Card sx={{ height: '100%' }} data-testid={testId}>
      <CardContent>
        <Typography variant="h6" component="h2" color="text.secondary">
          {title}
        </Typography>
        <Typography variant="h2" component="p" sx={{ my: 1 }}>
          {value}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="h5" component="h2" sx={{ mb: 2 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

function EmptyState() {
  const { t } = useTranslation();
  return (
    <Card data-testid="dashboard-empty">
      <CardContent>
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <Typography variant="h4" component="h2">
            {t('dashboard.empty.title')}
          </Typography>
          <Typography color="text.secondary">{t('dashboard.empty.text')}</Typography>
          <Button component={Link} to={paths.scans} variant="contained" startIcon={<AddCircleOutline />}>
            {t('dashboard.empty.action')}
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}

function RecentScans({ info }: { info: TDashboardInfo }) {
  const { t } = useTranslation();
  const recent = useRecentScans(info.targets.by_type);
  const fmt = useDateFormat({ dateStyle: 'medium', timeStyle: 'short' });
  if (recent.isLoading) return <CircularProgress size={24} aria-label={t('common.loading')} />;
  if (recent.isError)
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={recent.refetch}>
            {t('dashboard.retry')}
          </Button>
        }
      >
        {t('dashboard.recentError')}
      </Alert>
    );
  if (recent.scans.length === 0)
    return (
      <Typography color="text.secondary">
        {t('dashboard.noScans')}{' '}
        <MuiLink component={Link} to={paths.scans}>
          {t('menu.newScan')}
        </MuiLink>
      </Typography>
    );
  return (
    <List dense disablePadding data-testid="recent-scans">
      {recent.scans.map((scan) => (
        <ListItem
          key={scan.id}
          disableGutters
          secondaryAction={<ScanStatusChip status={scan.status} isPartial={scan.partial !== null} />}
        >
          <ListItemText
            primary={
              <MuiLink component={Link} to={`${paths.pastScans}/${scan.id}`}>
                {scan.targets.map((x) => x.target).join(', ')}
              </MuiLink>
            }
            secondary={
              <span dir="auto">
                {`${fmt.format(new Date(scan.created_at))}${scan.status === 'running' ? ` · ${scan.percent}%` : ''}`}
              </span>
            }
          />
        </ListItem>
      ))}
    </List>
  );
}

function RiskyHosts({ hosts }: { hosts: TDashboardInfo['top_risky_hosts'] }) {
  const { t } = useTranslation();
  if (hosts.length === 0)
    return <Typography color="text.secondary">{t('dashboard.noRiskyHosts')}</Typography>;
  return (
    <Table size="small" data-testid="risky-hosts">
      <TableHead>
        <TableRow>
          <TableCell>{t('dashboard.host')}</TableCell>
          <TableCell align="right">{t('dashboard.score')}</TableCell>
          <TableCell align="right">{t('dashboard.grade')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {hosts.map((h) => (
          <TableRow key={h.host}>
            <TableCell sx={{ wordBreak: 'break-all' }}>{h.host}</TableCell>
            <TableCell align="right">{h.risk_score}</TableCell>
            <TableCell align="right">{h.grade}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function Dashboard({ info }: { info: TDashboardInfo }) {
  const { t } = useTranslation();
  const hasHistory = info.new_vs_fixed.some((p) => p.new > 0 || p.fixed > 0);
  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
        <StatCard title={t('dashboard.targets')} value={info.targets.total} testId="card-targets">
          <Typography variant="body2" color="text.secondary">
            {t('dashboard.targetsByType', info.targets.by_type)}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {t('dashboard.targetsVerified', { count: info.targets.verified })}
          </Typography>
        </StatCard>
      </Grid>
      <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
        <StatCard title={t('dashboard.scans')} value={info.scans.total} testId="card-scans">
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5 }}>
            {SCAN_STATUSES.filter((s) => info.scans.by_status[s] > 0).map((s) => (
              <Chip
                key={s}
                size="small"
                variant="outlined"
                label={`${t(`scans.status.${s}`)}: ${info.scans.by_status[s]}`}
              />
            ))}
          </Stack>
        </StatCard>
      </Grid>
      <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
        <StatCard title={t('dashboard.openFindings')} value={info.open_total} testId="card-findings">
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5 }}>
            <SeverityCountChips counts={info.open_findings} />
          </Stack>
        </StatCard>
      </Grid>
      <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
        <StatCard title={t('dashboard.riskScore')} value={info.risk_score} testId="card-risk">
          <Typography variant="body2" color="text.secondary">
            {t('dashboard.riskScoreHint')}
          </Typography>
        </StatCard>
      </Grid>
      <Grid size={12}>
        <Section title={t('dashboard.chart.title')}>
          {hasHistory ? (
            <Suspense fallback={<CircularProgress size={24} aria-label={t('common.loading')} />}>
              <NewVsFixedChart series={info.new_vs_fixed} />
            </Suspense>
          ) : (
            <Typography color="text.secondary">{t('dashboard.chart.empty')}</Typography>
          )}
        </Section>
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <Section title={t('dashboard.recentScans')}>
          <RecentScans info={info} />
        </Section>
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <Section title={t('dashboard.topRiskyHosts')}>
          <RiskyHosts hosts={info.top_risky_hosts} />
        </Section>
      </Grid>
    </Grid>
  );
}

/** Home (/): the dashboard of the signed-in user. */
export function DashboardPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { data, error, isLoading, refetch } = useGetDashboardInfoQuery();
  return (
    <>
      <PageTitle title={t('home.title')} />
      <Typography variant="h2" component="p" data-testid="home-greeting" sx={{ mb: 3 }}>
        {t('home.greeting', { name: user?.first_name ?? '' })}
      </Typography>
      <QueryState
        query={{ data, error, isLoading, refetch }}
        retryLabel={t('dashboard.retry')}
        isEmpty={(d) => d.targets.total === 0}
        empty={<EmptyState />}
      >
        {(d) => <Dashboard info={d} />}
      </QueryState>
    </>
  );
}
