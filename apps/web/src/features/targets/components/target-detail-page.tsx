import ArrowBack from '@mui/icons-material/ArrowBack';
import {
  Alert,
  Box,
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
  Typography,
} from '@mui/material';
import {
  TARGET_TYPES,
  type TScanStatus,
  type TTargetEvent,
  type TTargetInfo,
  type TTargetType,
} from '@perimeter/contracts';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useDateFormat } from '../../auth/index.ts';
import { CopyField, useGetVerificationTxtQuery } from '../../new-scan/index.ts';
import { ScanStatusChip, SeverityCountChips } from '../../scans/index.ts';
import { schedulePath } from '../../schedules/index.ts';
import { useGetTargetInfoQuery } from '../api/get-target-info.ts';
import { scansPath, useTargetActions } from '../hooks/use-target-actions.ts';
import { DisableTargetDialog, ReplaceTargetDialog } from './target-dialogs.tsx';
import { scoreColor, TargetStatusChip } from './target-status-chip.tsx';
import { ShortList } from './targets-page.tsx';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card component="section" aria-labelledby={id} sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="h5" component="h2" id={id} sx={{ mb: 2 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

function eventText(e: TTargetEvent, t: ReturnType<typeof useTranslation>['t']): string {
  if (e.kind === 'added' && e.detail) return t('targets.event.added_replacing', { detail: e.detail });
  return t(`targets.event.${e.kind}`, { detail: e.detail ?? '' });
}

/** What to publish while the target is not verified. */
function PublishProof({ target }: { target: TTargetInfo }) {
  const { t } = useTranslation();
  const { data } = useGetVerificationTxtQuery({
    target_type: target.target_type,
    user_target_id: target.user_target_id,
  });
  if (!data) return null;
  return (
    <Stack spacing={2} sx={{ mt: 2 }} data-testid="target-publish">
      <Typography variant="body2">{t('targets.detail.publish')}</Typography>
      <CopyField label={t('targets.detail.recordValue')} value={data.value} />
      {data.record_names.slice(0, 2).map((name) => (
        <CopyField key={name} label={t('targets.detail.recordName')} value={name} />
      ))}
      {data.file_urls.slice(0, 1).map((url) => (
        <CopyField key={url} label={t('targets.detail.fileUrl')} value={url} />
      ))}
    </Stack>
  );
}

function DetailBody({ target }: { target: TTargetInfo }) {
  const { t } = useTranslation();
  const dateFmt = useDateFormat({ dateStyle: 'short', timeStyle: 'short' });
  const date = (iso: string) => dateFmt.format(new Date(iso));
  const actions = useTargetActions();
  const [isDisabling, setDisabling] = useState(false);
  const [isReplacing, setReplacing] = useState(false);
  const isDisabled = target.status === 'disabled';
  const a = target.assets;
  return (
    <>
      <Stack direction="row" spacing={1} sx={{ mb: 3, flexWrap: 'wrap', gap: 1, alignItems: 'center' }}>
        <TargetStatusChip status={target.status} />
        <Chip size="small" variant="outlined" label={t(`targets.type.${target.target_type}`)} />
        <Box sx={{ flexGrow: 1 }} />
        {!isDisabled && (
          <Button variant="outlined" disabled={actions.isBusy} onClick={() => void actions.check(target)}>
            {t('targets.actions.check')}
          </Button>
        )}
        {target.status === 'verified' && (
          <Button variant="contained" disabled={actions.isBusy} onClick={() => void actions.scan(target)}>
            {t('targets.actions.scan')}
          </Button>
        )}
        {!isDisabled && (
          <Button component={Link} to={schedulePath(target)} variant="outlined">
            {t('targets.actions.schedule')}
          </Button>
        )}
        {target.status === 'verified' && (
          <Button disabled={actions.isBusy} onClick={() => void actions.disableVerification(target)}>
            {t('targets.actions.disableVerification')}
          </Button>
        )}
        {!isDisabled && (
          <Button disabled={actions.isBusy} onClick={() => setReplacing(true)}>
            {t('targets.actions.replace')}
          </Button>
        )}
        {isDisabled ? (
          <Button variant="contained" disabled={actions.isBusy} onClick={() => void actions.enable(target)}>
            {t('targets.actions.enable')}
          </Button>
        ) : (
          <Button color="error" disabled={actions.isBusy} onClick={() => setDisabling(true)}>
            {t('targets.actions.disable')}
          </Button>
        )}
      </Stack>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, lg: 6 }}>
          <Section id="target-verification" title={t('targets.detail.verification')}>
            <Stack spacing={1}>
              {target.verified_at && (
                <Typography>
                  <span dir="auto">{t('targets.detail.verifiedAt', { date: date(target.verified_at) })}</span>
                </Typography>
              )}
              <Typography color="text.secondary">
                {target.last_check_at
                  ? t('targets.detail.lastCheck', { date: date(target.last_check_at) })
                  : t('targets.detail.neverChecked')}
              </Typography>
              {target.last_check_detail && (
                <Typography variant="body2" data-testid="target-last-check">
                  {target.last_check_detail}
                </Typography>
              )}
            </Stack>
            {target.status === 'unverified' && <PublishProof target={target} />}
          </Section>
        </Grid>
        <Grid size={{ xs: 12, lg: 6 }}>
          <Section id="target-findings" title={t('targets.detail.findings')}>
            <Stack spacing={2}>
              <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', gap: 1, alignItems: 'center' }}>
                <Chip
                  color={scoreColor(target.score)}
                  label={t('targets.scoreOf', { score: target.score })}
                />
                <SeverityCountChips counts={target.counts} />
              </Stack>
              <Box>
                <Typography variant="subtitle2">{t('targets.detail.lastScan')}</Typography>
                {target.last_scan ? (
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <ScanStatusChip status={target.last_scan.status as TScanStatus} />
                    <MuiLink component={Link} to={paths.scanDetail.replace(':scanId', target.last_scan.id)}>
                      {t('targets.detail.openScan')}
                    </MuiLink>
                    <span dir="ltr">{date(target.last_scan.finished_at ?? target.last_scan.created_at)}</span>
                  </Stack>
                ) : (
                  <Typography color="text.secondary">{t('targets.notScanned')}</Typography>
                )}
                <MuiLink component={Link} to={scansPath(target)}>
                  {t('targets.actions.scans')}
                </MuiLink>
              </Box>
              <Box>
                <Typography variant="subtitle2">{t('targets.detail.periodicity')}</Typography>
                <MuiLink component={Link} to={target.periodicity ? paths.scheduleScan : schedulePath(target)}>
                  {target.periodicity ?? t('targets.noSchedule')}
                </MuiLink>
              </Box>
              {a && (
                <Box>
                  <Typography variant="subtitle2">{t('targets.detail.assets')}</Typography>
                  <Typography variant="body2" component="div">
                    {t('targets.columns.hosts')}: {a.hosts} · {t('targets.columns.subdomains')}:{' '}
                    {a.subdomains} · {t('targets.columns.ipAddresses')}: {a.ip_addresses}
                  </Typography>
                  <Typography variant="body2" component="div">
                    {t('targets.columns.openedPorts')}: <ShortList items={a.opened_ports} max={12} />
                  </Typography>
                  <Typography variant="body2" component="div">
                    {t('targets.columns.technologies')}: <ShortList items={a.technologies} max={8} />
                  </Typography>
                </Box>
              )}
            </Stack>
          </Section>
        </Grid>
        <Grid size={12}>
          <Section id="target-history" title={t('targets.detail.history')}>
            {target.history.length === 0 ? (
              <Typography color="text.secondary">{t('targets.detail.noHistory')}</Typography>
            ) : (
              <List dense disablePadding data-testid="target-history">
                {target.history.map((e) => (
                  <ListItem key={`${e.created_at} ${e.kind} ${e.detail ?? ''}`} disableGutters>
                    <ListItemText
                      primary={eventText(e, t)}
                      secondary={
                        <>
                          <span dir="ltr">{date(e.created_at)}</span>
                          {e.detail && e.kind.startsWith('verif') ? ` — ${e.detail}` : ''}
                        </>
                      }
                    />
                  </ListItem>
                ))}
              </List>
            )}
          </Section>
        </Grid>
      </Grid>
      <DisableTargetDialog
        target={isDisabling ? target : null}
        onCancel={() => setDisabling(false)}
        onConfirm={(x) => {
          setDisabling(false);
          void actions.disable(x);
        }}
      />
      <ReplaceTargetDialog
        target={isReplacing ? target : null}
        onClose={() => setReplacing(false)}
        onReplace={actions.replace}
      />
    </>
  );
}

/** A target (/targets/:targetType/:targetId): verification, findings, schedules and history. */
export function TargetDetailPage() {
  const { t } = useTranslation();
  const { targetType = '', targetId = '' } = useParams();
  const type = (TARGET_TYPES as readonly string[]).includes(targetType) ? (targetType as TTargetType) : null;
  const { data, error, isLoading } = useGetTargetInfoQuery(
    { target_type: type ?? 'domain', user_target_id: targetId },
    { skip: !type },
  );
  const isMissing = !type || (error && 'status' in error && (error.status === 404 || error.status === 400));
  return (
    <>
      <Button component={Link} to={paths.targets} startIcon={<ArrowBack />} sx={{ mb: 1 }}>
        {t('targets.detail.back')}
      </Button>
      <PageTitle title={data?.display_name ?? t('menu.targets')} />
      {isMissing ? (
        <Alert severity="warning">{t('targets.detail.notFound')}</Alert>
      ) : error ? (
        <Alert severity="error">{apiErrorMessage(error, t)}</Alert>
      ) : isLoading || !data ? (
        <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
          <CircularProgress aria-label={t('common.loading')} />
        </Box>
      ) : (
        <DetailBody target={data} />
      )}
    </>
  );
}
