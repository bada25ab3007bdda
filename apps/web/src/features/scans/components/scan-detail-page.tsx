import {
  Alert,
  Box,
  Breadcrumbs,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Grid,
  Link as MuiLink,
  Stack,
  Typography,
} from '@mui/material';
import type { TScan, TScanProgress } from '@perimeter/contracts';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { QueryState } from '../../../components/feedback/query-state.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { api } from '../../../lib/api-client.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAppDispatch } from '../../../store/index.ts';
import { LateInteractionsCard } from '../../oob/index.ts';
import { schedulePath } from '../../schedules/index.ts';
import { useGetScanQuery } from '../api/get-scan.ts';
import { useGetScanProgressQuery } from '../api/get-scan-progress.ts';
import { useGetScanReportQuery } from '../api/get-scan-report.ts';
import { isMoving, ScanActions } from './scan-actions.tsx';
import { RestrictedNotice, ScanFindingsSummary } from './scan-findings-summary.tsx';
import { ScanInfoPanel } from './scan-info-panel.tsx';
import { PROGRESS_POLL_MS } from './scan-progress.tsx';
import { ScanReportDownloads } from './scan-report-downloads.tsx';
import { ScanScopeTable } from './scan-scope-table.tsx';
import { ScanStages } from './scan-stages.tsx';

const errorStatus = (e: unknown) => (e && typeof e === 'object' && 'status' in e ? e.status : null);

function Loading() {
  const { t } = useTranslation();
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
      <CircularProgress aria-label={t('common.loading')} />
    </Box>
  );
}

function ScanNotFound() {
  const { t } = useTranslation();
  return (
    <Card data-testid="scan-not-found">
      <CardContent>
        <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
          {t('scans.detail.notFoundTitle')}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          {t('scans.detail.notFoundText')}
        </Typography>
        <Button variant="contained" component={Link} to={paths.pastScans}>
          {t('scans.detail.backToReports')}
        </Button>
      </CardContent>
    </Card>
  );
}

function ReportSection({ scan }: { scan: TScan }) {
  const { t } = useTranslation();
  const hasRun = scan.status !== 'created';
  const { data, error, isLoading, refetch } = useGetScanReportQuery(scan.id, { skip: !hasRun });
  if (!hasRun) return null;
  return (
    <QueryState
      query={{ data, error, isLoading, refetch }}
      errorText={t('scans.findings.loadError')}
      retryLabel={t('scans.retry')}
    >
      {(report) => (
        <Stack spacing={3}>
          {report.restricted && <RestrictedNotice restricted={report.restricted} />}
          <ScanFindingsSummary report={report} />
        </Stack>
      )}
    </QueryState>
  );
}

/**
 * The scan as it is now: the progress (polled while the scan moves) is newer than the scan row
 * loaded with the page, so status, start and end times follow it — never "Pending" at 62 %.
 */
export function liveScan(scan: TScan, progress: TScanProgress | undefined): TScan {
  if (!progress) return scan;
  return {
    ...scan,
    status: progress.status,
    stage: progress.stage,
    percent: progress.percent,
    started_at: progress.started_at ?? scan.started_at,
    finished_at: progress.finished_at ?? scan.finished_at,
  };
}

/**
 * While the scan moves, the findings total and the scope chips are read again whenever the
 * progress counts change, so the page never shows two different numbers for one thing.
 */
function useFollowCounts(scan: TScan, progress: TScanProgress | undefined) {
  const dispatch = useAppDispatch();
  const key = progress ? JSON.stringify(progress.counts) : '';
  const seen = useRef(key);
  const moving = isMoving(scan);
  useEffect(() => {
    if (seen.current === key) return;
    // The first counts come with the first report and scope: nothing to read again yet.
    const isFirst = seen.current === '';
    seen.current = key;
    if (moving && !isFirst)
      dispatch(
        api.util.invalidateTags([
          { type: 'ScanReport', id: scan.id },
          { type: 'ScanScope', id: scan.id },
        ]),
      );
  }, [key, moving, scan.id, dispatch]);
}

function ScanDetail({ scan: loaded }: { scan: TScan }) {
  const { t } = useTranslation();
  // The same subscription ScanStages polls (RTK Query shares it): one request, one truth.
  const { data: progress } = useGetScanProgressQuery(loaded.id, {
    skip: loaded.status === 'created',
    pollingInterval: isMoving(loaded) ? PROGRESS_POLL_MS : 0,
  });
  const scan = liveScan(loaded, progress);
  useFollowCounts(scan, progress);
  const title = t('scans.detail.title', { targets: scan.targets.map((x) => x.target).join(', ') });
  return (
    <>
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        spacing={2}
        sx={{ justifyContent: 'space-between', alignItems: { md: 'flex-start' } }}
      >
        <Box sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
          <PageTitle title={title} />
        </Box>
        <ScanActions scan={scan} size="medium">
          {scan.status !== 'created' && <ScanReportDownloads scanId={scan.id} />}
          {scan.targets[0] && (
            <Button component={Link} to={schedulePath(scan.targets[0])} variant="outlined">
              {t('targets.links.scheduleScan')}
            </Button>
          )}
        </ScanActions>
      </Stack>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, lg: 6 }}>
          <ScanInfoPanel scan={scan} />
        </Grid>
        <Grid size={{ xs: 12, lg: 6 }}>
          <ScanStages scan={loaded} />
        </Grid>
        <Grid size={12}>
          <ReportSection scan={scan} />
        </Grid>
        <LateInteractionsCard scan={scan} />
        {scan.status !== 'created' && (
          <Grid size={12}>
            <ScanScopeTable scan={scan} />
          </Grid>
        )}
      </Grid>
    </>
  );
}

/** Scan detail (/scans/past-scans/:scanId): info, live stages, findings and changes, scope, downloads. */
export function ScanDetailPage() {
  const { t } = useTranslation();
  const { scanId = '' } = useParams();
  const { data, error, isLoading, refetch } = useGetScanQuery(scanId, { skip: !scanId });
  const status = errorStatus(error);
  return (
    <>
      <Breadcrumbs aria-label={t('scans.detail.breadcrumbs')} sx={{ mb: 1 }}>
        <MuiLink component={Link} to={paths.pastScans}>
          {t('menu.reports')}
        </MuiLink>
        <Typography color="text.primary">{t('pages.scanDetail')}</Typography>
      </Breadcrumbs>
      {isLoading ? (
        <Loading />
      ) : data ? (
        <ScanDetail scan={data} />
      ) : !scanId || status === 404 || status === 400 ? (
        // 400: not a scan id at all; 404: unknown, or another user's scan.
        <>
          <PageTitle title={t('pages.scanDetail')} />
          <ScanNotFound />
        </>
      ) : (
        <>
          <PageTitle title={t('pages.scanDetail')} />
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => void refetch()}>
                {t('scans.retry')}
              </Button>
            }
          >
            {t('scans.detail.loadError')} {apiErrorMessage(error, t)}
          </Alert>
        </>
      )}
    </>
  );
}
