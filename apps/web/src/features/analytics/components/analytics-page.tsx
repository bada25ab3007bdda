import AddCircleOutline from '@mui/icons-material/AddCircleOutlineOutlined';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  ListSubheader,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { TARGET_TYPES, type TTargetsByType } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useGetTargetsQuery } from '../../targets/index.ts';
import { useGetTargetMetricsQuery } from '../api/get-target-metrics.ts';
import { PERIODS, useAnalyticsParams } from '../hooks/use-analytics-params.ts';
import { AnalyticsCharts } from './analytics-charts.tsx';

function TargetSelect({
  value,
  targets,
  isLoading,
  onChange,
}: {
  value: string;
  targets: TTargetsByType | undefined;
  isLoading: boolean;
  onChange: (id: string) => void;
}) {
  const { t } = useTranslation();
  const known = TARGET_TYPES.some((type) => targets?.[type].some((x) => x.user_target_id === value));
  return (
    <TextField
      select
      id="analytics-target"
      label={t('analytics.filters.target')}
      value={known || !value ? value : ''}
      onChange={(e) => onChange(e.target.value)}
      disabled={isLoading}
      // "All targets" is the empty value: show it, with the label above it.
      slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
      sx={{ minWidth: 260 }}
      size="small"
    >
      <MenuItem value="">{t('analytics.filters.allTargets')}</MenuItem>
      {TARGET_TYPES.flatMap((type) =>
        targets && targets[type].length > 0
          ? [
              <ListSubheader key={`h-${type}`}>{t(`analytics.targetTypes.${type}`)}</ListSubheader>,
              ...targets[type].map((x) => (
                <MenuItem key={x.user_target_id} value={x.user_target_id}>
                  <span dir="auto">{x.display_name}</span>
                </MenuItem>
              )),
            ]
          : [],
      )}
    </TextField>
  );
}

export function AnalyticsPage() {
  const { t, i18n } = useTranslation();
  const { days, target, update } = useAnalyticsParams();
  const targets = useGetTargetsQuery();
  const metrics = useGetTargetMetricsQuery(target ? { days, user_target_id: target } : { days });
  const data = metrics.currentData;
  const fmt = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeZone: 'UTC' });
  const formatDate = (d: string) => fmt.format(new Date(`${d}T00:00:00Z`));

  const owned = targets.data;
  const noTargets = owned !== undefined && TARGET_TYPES.every((type) => owned[type].length === 0) && !target;

  return (
    <Box>
      <PageTitle title={t('analytics.title')} />
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {t('analytics.intro')}
      </Typography>
      {noTargets ? (
        <Card data-testid="analytics-no-targets">
          <CardContent>
            <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
              <Typography variant="h4" component="h2">
                {t('analytics.noTargets.title')}
              </Typography>
              <Typography color="text.secondary">{t('analytics.noTargets.text')}</Typography>
              <Button component={Link} to={paths.scans} variant="contained" startIcon={<AddCircleOutline />}>
                {t('analytics.noTargets.action')}
              </Button>
            </Stack>
          </CardContent>
        </Card>
      ) : (
        <>
          <Stack
            direction={{ xs: 'column', sm: 'row' }}
            spacing={2}
            sx={{ mb: 3, alignItems: { sm: 'center' } }}
            component="form"
            role="search"
            aria-label={t('analytics.filters.label')}
            onSubmit={(e) => e.preventDefault()}
          >
            <TargetSelect
              value={target}
              targets={targets.data}
              isLoading={targets.isLoading}
              onChange={(id) => update({ target: id })}
            />
            <TextField
              select
              id="analytics-period"
              label={t('analytics.filters.period')}
              value={days}
              onChange={(e) => update({ days: Number(e.target.value) })}
              sx={{ minWidth: 200 }}
              size="small"
            >
              {PERIODS.map((p) => (
                <MenuItem key={p} value={p}>
                  {t('analytics.filters.lastDays', { count: p })}
                </MenuItem>
              ))}
            </TextField>
            {data && (
              <Typography color="text.secondary" data-testid="analytics-range" sx={{ whiteSpace: 'nowrap' }}>
                <span dir="auto">
                  {formatDate(data.from)} – {formatDate(data.to)}
                </span>
              </Typography>
            )}
          </Stack>
          {targets.isError && (
            <Alert severity="warning" sx={{ mb: 2 }}>
              {t('analytics.targetsError')}
            </Alert>
          )}
          {metrics.isError ? (
            <Alert
              severity="error"
              action={
                <Stack direction="row" spacing={1}>
                  {target && (
                    <Button color="inherit" size="small" onClick={() => update({ target: '' })}>
                      {t('analytics.filters.allTargets')}
                    </Button>
                  )}
                  <Button color="inherit" size="small" onClick={() => void metrics.refetch()}>
                    {t('analytics.retry')}
                  </Button>
                </Stack>
              }
            >
              {apiErrorMessage(metrics.error, t)}
            </Alert>
          ) : !data ? (
            <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
              <CircularProgress aria-label={t('analytics.loading')} />
            </Box>
          ) : (
            <AnalyticsCharts metrics={data} />
          )}
        </>
      )}
    </Box>
  );
}
