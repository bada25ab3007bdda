import ContentCopyOutlined from '@mui/icons-material/ContentCopyOutlined';
import { Box, Card, CardContent, IconButton, Link as MuiLink, Tooltip, Typography } from '@mui/material';
import type { TScan } from '@perimeter/contracts';
import type { TFunction } from 'i18next';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { paths } from '../../../config/paths.ts';
import { useDateFormat } from '../../auth/index.ts';
import { ScanStatusChip } from './scan-status-chip.tsx';

/** "1 h 5 min", "3 min 20 s", "40 s" in the user's language. */
export function formatDuration(t: TFunction, seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return t('scans.info.durationHours', { h, m });
  if (m > 0) return t('scans.info.durationMinutes', { m, s: s % 60 });
  return t('scans.info.durationSeconds', { s });
}

/** Seconds between start and end (now while the scan runs); null before it starts. */
export function durationOf(scan: Pick<TScan, 'started_at' | 'finished_at'>, now: number): number | null {
  if (!scan.started_at) return null;
  const end = scan.finished_at ? Date.parse(scan.finished_at) : now;
  return (end - Date.parse(scan.started_at)) / 1000;
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <Typography component="dt" variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </>
  );
}

/** Scan info of spec §3: date and time, scan link, start time, duration, type (and targets, status). */
export function ScanInfoPanel({ scan }: { scan: TScan }) {
  const { t } = useTranslation();
  const notify = useNotify();
  const fmt = useDateFormat({ dateStyle: 'medium', timeStyle: 'short' });
  // Numeric dates have no strong direction: keep them left-to-right inside an RTL layout.
  const date = (v: string | null) => (v ? <span dir="ltr">{fmt.format(new Date(v))}</span> : '—');
  const link = `${paths.pastScans}/${scan.id}`;
  const absolute = typeof window === 'undefined' ? link : `${window.location.origin}${link}`;
  const isRunning = !!scan.started_at && !scan.finished_at && scan.status === 'running';
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    // A running scan's duration counts up on screen.
    if (!isRunning) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [isRunning]);
  const seconds = durationOf(scan, now);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(absolute);
      notify({ message: t('scans.info.linkCopied'), alert: { color: 'success', variant: 'filled' } });
    } catch {
      notify({ message: t('scans.info.copyFailed'), alert: { color: 'error', variant: 'filled' } });
    }
  };
  return (
    <Card component="section" aria-labelledby="scan-info-title">
      <CardContent>
        <Typography id="scan-info-title" variant="h3" component="h2" sx={{ mb: 2 }}>
          {t('scans.info.title')}
        </Typography>
        <Box
          component="dl"
          data-testid="scan-info"
          sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 3, rowGap: 1, m: 0 }}
        >
          <Field label={t('scans.info.dateTime')}>{date(scan.created_at)}</Field>
          <Field label={t('scans.info.link')}>
            <MuiLink component={Link} to={link}>
              <bdi>{absolute}</bdi>
            </MuiLink>
            <Tooltip title={t('scans.info.copyLink')}>
              <IconButton
                size="small"
                aria-label={t('scans.info.copyLink')}
                onClick={() => void copy()}
                sx={{ ms: 0.5 }}
              >
                <ContentCopyOutlined fontSize="inherit" />
              </IconButton>
            </Tooltip>
          </Field>
          <Field label={t('scans.info.startTime')}>{date(scan.started_at)}</Field>
          <Field label={t('scans.info.finishTime')}>{date(scan.finished_at)}</Field>
          <Field label={t('scans.info.duration')}>
            {seconds === null
              ? '—'
              : `${formatDuration(t, seconds)}${scan.finished_at ? '' : ` ${t('scans.info.soFar')}`}`}
          </Field>
          <Field label={t('scans.info.type')}>
            {t(`scans.type.${scan.scan_type}`)}
            {scan.scan_type === 'custom' && scan.config.subclasses.length > 0
              ? ` (${scan.config.subclasses.map((s) => t(`scans.subclass.${s}`)).join(', ')})`
              : ''}
          </Field>
          <Field label={t('scans.info.targets')}>
            {scan.targets.map((x, i) => (
              <span key={x.user_target_id}>
                {i > 0 ? ', ' : ''}
                <bdi>{x.target}</bdi>
              </span>
            ))}
          </Field>
          <Field label={t('scans.info.status')}>
            <ScanStatusChip status={scan.status} isPartial={scan.partial !== null} />
          </Field>
          {scan.template_sets.length > 0 && (
            <Field label={t('scans.info.templateSets')}>
              {scan.template_sets.map((s) => (
                <Box component="span" key={s.hash} sx={{ display: 'block' }} data-testid="template-set">
                  <bdi>
                    {t('scans.info.templateSetVersion', {
                      name: s.name,
                      version: s.version ?? '',
                      hash: s.hash.slice(0, 12),
                      count: s.templates,
                    })}
                  </bdi>
                </Box>
              ))}
            </Field>
          )}
        </Box>
      </CardContent>
    </Card>
  );
}
