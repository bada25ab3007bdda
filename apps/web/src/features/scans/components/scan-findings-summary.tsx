import LockOutlined from '@mui/icons-material/LockOutlined';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Grid,
  List,
  ListItem,
  ListItemText,
  Link as MuiLink,
  Stack,
  Typography,
} from '@mui/material';
import { SEVERITIES, type TReport } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { SEVERITY_COLOR } from '../../../components/ui/severity-color.ts';
import { paths } from '../../../config/paths.ts';
import { ReportNotices } from '../../intel/index.ts';

const CHANGE_KINDS = ['new', 'fixed', 'regressed'] as const;
/** How many findings each "what changed" column lists; the events tabs show the rest. */
export const CHANGES_SHOWN = 5;
const HIDDEN_PARTS = ['finding_details', 'cve_details', 'leak_details'];
const PLAN_NAMES = ['try_it', 'starter', 'business', 'enterprise', 'trial_scan'];

/** The events tabs of this scan, with how many findings each holds. */
export function eventsLinks(scanId: string, bySubclass: Record<string, number>) {
  return [
    {
      key: 'vulnerabilities',
      to: `/events/vulnerabilities/${scanId}`,
      count: bySubclass.exploit_scanner ?? 0,
    },
    { key: 'cve', to: `/events/cve/${scanId}`, count: bySubclass.exploit_db ?? 0 },
    { key: 'leaks', to: `/events/leaks/${scanId}`, count: bySubclass.leakcheck ?? 0 },
  ] as const;
}

function ChangeColumn({
  kind,
  items,
}: {
  kind: (typeof CHANGE_KINDS)[number];
  items: TReport['changes']['new'];
}) {
  const { t } = useTranslation();
  return (
    <Box data-testid={`changes-${kind}`}>
      <Typography variant="subtitle1" component="h4">
        {t(`scans.changes.${kind}`, { count: items.length })}
      </Typography>
      {items.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('scans.changes.none')}
        </Typography>
      ) : (
        <List dense disablePadding>
          {items.slice(0, CHANGES_SHOWN).map((x) => (
            <ListItem key={x.id} disableGutters sx={{ gap: 1, alignItems: 'flex-start' }}>
              <Chip
                size="small"
                color={SEVERITY_COLOR[x.severity]}
                label={t(`dashboard.severity.${x.severity}`)}
              />
              <ListItemText
                primary={x.name}
                secondary={<bdi>{x.host}</bdi>}
                slotProps={{ primary: { variant: 'body2' }, secondary: { sx: { overflowWrap: 'anywhere' } } }}
                sx={{ m: 0 }}
              />
            </ListItem>
          ))}
          {items.length > CHANGES_SHOWN && (
            <Typography variant="body2" color="text.secondary">
              {t('scans.changes.more', { count: items.length - CHANGES_SHOWN })}
            </Typography>
          )}
        </List>
      )}
    </Box>
  );
}

/** The trial plan hides part of the report: say what, and which plans show it. */
export function RestrictedNotice({ restricted }: { restricted: NonNullable<TReport['restricted']> }) {
  const { t } = useTranslation();
  const plans = restricted.unlock_plans.map((p) =>
    PLAN_NAMES.includes(p) ? t(`scans.restricted.plan.${p}`) : p,
  );
  return (
    <Alert
      severity="warning"
      icon={<LockOutlined />}
      data-testid="report-restricted"
      action={
        <Button color="inherit" size="small" variant="outlined" component={Link} to={paths.accountPlanChoose}>
          {t('scans.restricted.choosePlan')}
        </Button>
      }
    >
      <AlertTitle>{t('scans.restricted.title')}</AlertTitle>
      <Typography variant="body2">{t('scans.restricted.text')}</Typography>
      <Box component="ul" sx={{ my: 1, ps: 2.5 }}>
        {restricted.hidden.map((h) => (
          <li key={h}>{HIDDEN_PARTS.includes(h) ? t(`scans.restricted.hidden.${h}`) : h}</li>
        ))}
      </Box>
      <Typography variant="body2">{t('scans.restricted.unlock', { plans: plans.join(', ') })}</Typography>
    </Alert>
  );
}

/** Findings by severity, what changed since the previous scan, links to the events tabs. */
export function ScanFindingsSummary({ report }: { report: TReport }) {
  const { t } = useTranslation();
  const { summary, changes } = report;
  return (
    <Card component="section" aria-labelledby="scan-findings-title">
      <CardContent>
        <Typography id="scan-findings-title" variant="h3" component="h2" sx={{ mb: 2 }}>
          {t('scans.findings.title')}
        </Typography>
        <Typography variant="body2" sx={{ mb: 1 }} data-testid="findings-total">
          {t('scans.findings.total', { count: summary.total })} ·{' '}
          {t('scans.findings.hosts', { count: summary.hosts })}
        </Typography>
        <Stack
          direction="row"
          component="ul"
          aria-label={t('scans.findings.bySeverity')}
          sx={{ flexWrap: 'wrap', gap: 1, p: 0, m: 0, listStyle: 'none', mb: 2 }}
          data-testid="severity-summary"
        >
          {SEVERITIES.map((s) => (
            <li key={s}>
              <Chip
                size="small"
                color={SEVERITY_COLOR[s]}
                variant={summary.severity_counts[s] > 0 ? 'filled' : 'outlined'}
                label={`${t(`dashboard.severity.${s}`)}: ${summary.severity_counts[s]}`}
              />
            </li>
          ))}
        </Stack>
        <ReportNotices notices={summary.notices} />
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1, mb: 3 }}>
          {eventsLinks(report.scan.id, summary.by_subclass).map((l) => (
            <Button key={l.key} variant="outlined" size="small" component={Link} to={l.to}>
              {l.key === 'leaks' && summary.notices?.includes('leak_check_not_configured')
                ? t('intel.notices.leakButton')
                : t(`scans.findings.open.${l.key}`, { count: l.count })}
            </Button>
          ))}
        </Stack>

        <Typography variant="h4" component="h3" sx={{ mb: 1 }}>
          {t('scans.changes.title')}
        </Typography>
        {changes.previous_scan_id === null ? (
          <Typography variant="body2" color="text.secondary" data-testid="changes-first">
            {t('scans.changes.first')}
          </Typography>
        ) : (
          <>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
              {t('scans.changes.comparedWith')}{' '}
              <MuiLink component={Link} to={`${paths.pastScans}/${changes.previous_scan_id}`}>
                {t('scans.changes.previousScan')}
              </MuiLink>
            </Typography>
            <Grid container spacing={3}>
              {CHANGE_KINDS.map((kind) => (
                <Grid key={kind} size={{ xs: 12, md: 4 }}>
                  <ChangeColumn kind={kind} items={changes[kind]} />
                </Grid>
              ))}
            </Grid>
          </>
        )}
      </CardContent>
    </Card>
  );
}
