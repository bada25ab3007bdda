import CheckCircleOutlined from '@mui/icons-material/CheckCircleOutlined';
import RadioButtonUncheckedOutlined from '@mui/icons-material/RadioButtonUncheckedOutlined';
import StopCircleOutlined from '@mui/icons-material/StopCircleOutlined';
import {
  Alert,
  Box,
  Card,
  CardContent,
  CircularProgress,
  LinearProgress,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  Typography,
} from '@mui/material';
import type { TScan } from '@perimeter/contracts';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api-client.ts';
import { useAppDispatch } from '../../../store/index.ts';
import { useGetScanProgressQuery } from '../api/get-scan-progress.ts';
import { useScanMessages } from '../hooks/use-scan-messages.ts';
import { isMoving } from './scan-actions.tsx';
import { ScanPartialNotice } from './scan-partial-notice.tsx';
import { etaText, PROGRESS_POLL_MS } from './scan-progress.tsx';
import { stageLabel, stagesOf } from './scan-stages-list.ts';

type TStageState = 'done' | 'active' | 'stopped' | 'waiting';

function StageIcon({ state }: { state: TStageState }) {
  if (state === 'done') return <CheckCircleOutlined color="success" fontSize="small" />;
  if (state === 'active') return <CircularProgress size={18} aria-hidden />;
  if (state === 'stopped') return <StopCircleOutlined color="warning" fontSize="small" />;
  return <RadioButtonUncheckedOutlined color="disabled" fontSize="small" />;
}

/** Per-stage progress of one scan; polls while it moves and refreshes the page's data when it ends. */
export function ScanStages({ scan }: { scan: TScan }) {
  const { t } = useTranslation();
  const dispatch = useAppDispatch();
  const moving = isMoving(scan);
  const { data, isError } = useGetScanProgressQuery(scan.id, {
    skip: scan.status === 'created',
    pollingInterval: moving ? PROGRESS_POLL_MS : 0,
  });
  const status = data?.status ?? scan.status;
  const hasEnded = moving && !!data && !isMoving(data);
  useEffect(() => {
    // The scan ended while this page was open: reload its info, report, scope (and lists).
    if (hasEnded) dispatch(api.util.invalidateTags(['Scans', 'ScanReport', 'ScanScope', 'Dashboard']));
  }, [hasEnded, dispatch]);

  const percent = status === 'done' ? 100 : (data?.percent ?? scan.percent);
  const current = data?.stage ?? scan.stage;
  const stages = stagesOf(scan, current);
  const at = current ? stages.indexOf(current) : -1;
  const stateOf = (i: number): TStageState => {
    if (status === 'done') return 'done';
    if (status === 'created' || status === 'pending' || at < 0) return 'waiting';
    if (i < at) return 'done';
    if (i > at) return 'waiting';
    return status === 'running' ? 'active' : 'stopped';
  };
  const isWaiting = status === 'pending';
  const eta = data?.eta_seconds;
  const caption = isWaiting
    ? t('scans.waiting')
    : [
        `${percent}%`,
        status === 'running' && current ? t('scans.stage', { stage: stageLabel(t, current) }) : null,
        status === 'running' && eta != null ? etaText(t, eta) : null,
      ]
        .filter(Boolean)
        .join(' · ');
  const counts = Object.entries(data?.counts ?? {}).filter(([, n]) => n > 0);
  const messages = useScanMessages();
  const message = messages.message(data ?? scan);

  return (
    <Card component="section" aria-labelledby="scan-stages-title">
      <CardContent>
        <Typography id="scan-stages-title" variant="h3" component="h2" sx={{ mb: 2 }}>
          {t('scans.detail.progressTitle')}
        </Typography>
        {scan.status === 'created' ? (
          <Typography color="text.secondary">{t('scans.detail.notStarted')}</Typography>
        ) : (
          <>
            <Box data-testid="scan-detail-progress">
              <LinearProgress
                variant={isWaiting ? 'indeterminate' : 'determinate'}
                value={percent}
                aria-label={t('scans.progressLabel')}
                aria-valuetext={caption}
              />
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} aria-live="polite">
                {caption}
              </Typography>
            </Box>
            <List dense aria-label={t('scans.detail.stagesLabel')} sx={{ mt: 1 }}>
              {stages.map((stage, i) => {
                const state = stateOf(i);
                return (
                  <ListItem key={stage} disableGutters data-testid={`stage-${stage}`} data-state={state}>
                    <ListItemIcon sx={{ minWidth: 32 }}>
                      <StageIcon state={state} />
                    </ListItemIcon>
                    <ListItemText
                      primary={stageLabel(t, stage)}
                      secondary={t(`scans.detail.stageState.${state}`)}
                      slotProps={{
                        primary: { sx: { fontWeight: state === 'active' ? 600 : undefined } },
                      }}
                    />
                  </ListItem>
                );
              })}
            </List>
            {counts.length > 0 && (
              <Typography variant="body2" color="text.secondary">
                {t('scans.detail.foundSoFar')}{' '}
                {counts
                  .map(([k, n]) => `${t(`scans.detail.count.${k}`, { defaultValue: k })}: ${n}`)
                  .join(' · ')}
              </Typography>
            )}
            {data && data.skipped_hosts.length > 0 && (
              <Alert severity="info" sx={{ mt: 2 }}>
                {t('scans.detail.skippedHosts', { count: data.skipped_hosts.length })}{' '}
                {data.skipped_hosts.map((h) => (
                  <Box component="span" key={h.host} sx={{ display: 'block' }}>
                    <bdi>{h.host}</bdi>: {messages.skippedReason(h)}
                  </Box>
                ))}
              </Alert>
            )}
            {status === 'done' && <ScanPartialNotice partial={data ? data.partial : scan.partial} />}
            {message && (
              <Alert
                severity={status === 'canceled' ? 'warning' : 'info'}
                sx={{ mt: 2 }}
                data-testid="scan-message"
              >
                {message}
              </Alert>
            )}
            {isError && (
              <Alert severity="warning" sx={{ mt: 2 }}>
                {t('scans.detail.progressError')}
              </Alert>
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}
