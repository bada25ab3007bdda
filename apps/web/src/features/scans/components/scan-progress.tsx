import { Box, LinearProgress, Typography } from '@mui/material';
import type { TFunction } from 'i18next';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api-client.ts';
import { useAppDispatch } from '../../../store/index.ts';
import { useGetScanProgressQuery } from '../api/get-scan-progress.ts';
import { stageLabel } from './scan-stages-list.ts';

export const PROGRESS_POLL_MS = 3000;

/** Live progress of a pending or running scan: polls the server while the scan moves. */
export function ScanProgress({ scanId, initialPercent }: { scanId: string; initialPercent: number }) {
  const { t } = useTranslation();
  const { data } = useGetScanProgressQuery(scanId, { pollingInterval: PROGRESS_POLL_MS });
  const percent = data?.percent ?? initialPercent;
  const isWaiting = data ? data.status === 'pending' : false;
  const dispatch = useAppDispatch();
  const hasEnded = !!data && data.status !== 'pending' && data.status !== 'running';
  useEffect(() => {
    // The scan ended between two list polls: refresh the list (and the dashboard) now.
    if (hasEnded) dispatch(api.util.invalidateTags(['Scans', 'Dashboard']));
  }, [hasEnded, dispatch]);
  return (
    <Box sx={{ minWidth: 160 }} data-testid={`progress-${scanId}`}>
      <LinearProgress
        variant={isWaiting ? 'indeterminate' : 'determinate'}
        value={percent}
        aria-label={t('scans.progressLabel')}
      />
      <Typography variant="caption" color="text.secondary" component="p">
        {isWaiting
          ? t('scans.waiting')
          : [
              `${percent}%`,
              data?.stage ? t('scans.stage', { stage: stageLabel(t, data.stage) }) : null,
              data?.eta_seconds != null ? etaText(t, data.eta_seconds) : null,
            ]
              .filter(Boolean)
              .join(' · ')}
      </Typography>
    </Box>
  );
}

/** Time left: whole minutes from a minute up, "under a minute" below, so the end never reads "1 min". */
export function etaText(t: TFunction, seconds: number): string {
  return seconds < 60 ? t('scans.etaUnderMinute') : t('scans.eta', { minutes: Math.ceil(seconds / 60) });
}
