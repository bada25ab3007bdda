import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import {
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  IconButton,
  Link as MuiLink,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { TARGET_TYPES, type TScanSchedule, type TTargetsByType } from '@perimeter/contracts';
import type { TFunction } from 'i18next';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { QueryState } from '../../../components/feedback/query-state.tsx';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { readApiError } from '../../../lib/api-client.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAuth } from '../../auth/index.ts';
import { useGetTargetsQuery } from '../../targets/index.ts';
import { useCreateScanScheduleMutation } from '../api/create-scan-schedule.ts';
import { useDeleteScanScheduleMutation } from '../api/delete-scan-schedule.ts';
import { useGetScanSchedulesQuery } from '../api/get-scan-schedules.ts';
import { useGetScheduleOverviewQuery } from '../api/get-schedule-overview.ts';
import { useUpdateScanScheduleMutation } from '../api/update-scan-schedule.ts';
import { ScheduleCalendar } from './schedule-calendar.tsx';
import { ScheduleForm } from './schedule-form.tsx';
import {
  bodyOf,
  defaultFormValues,
  formValuesOf,
  type TScheduleFormValues,
  WEEK_ORDER,
  weekdayName,
} from './schedule-values.ts';

function Section({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <Card component="section" aria-labelledby={id}>
      <CardContent>
        <Typography variant="h5" component="h2" id={id} sx={{ mb: 2 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

/**
 * The generic translated message loses what matters here: a 403 names the plan's limit and a 400
 * names the field, so their server text is kept (it is in English: the server does not translate).
 */
function scheduleErrorMessage(error: unknown, t: TFunction): string {
  const apiError = readApiError(error);
  if (apiError?.code === 'forbidden') return t('schedules.errors.planLimit', { detail: apiError.detail });
  const fields = Object.values(apiError?.fields ?? {}).flat();
  if (apiError?.code === 'validation_error' && fields.length > 0)
    return `${apiErrorMessage(error, t)} ${fields.join(' ')}`;
  return apiErrorMessage(error, t);
}

function useTargetNames(targets: TTargetsByType | undefined) {
  const { t } = useTranslation();
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const type of TARGET_TYPES)
      for (const x of targets?.[type] ?? []) names.set(x.user_target_id, x.display_name);
    return (ids: ReadonlyArray<{ user_target_id: string }>) =>
      ids.map((x) => names.get(x.user_target_id) ?? t('schedules.unknownTarget')).join(', ');
  }, [targets, t]);
}

function ScheduleList({
  schedules,
  targetNames,
  onEdit,
  onDelete,
}: {
  schedules: TScanSchedule[];
  targetNames: (ids: ReadonlyArray<{ user_target_id: string }>) => string;
  onEdit: (s: TScanSchedule) => void;
  onDelete: (s: TScanSchedule) => void;
}) {
  const { t, i18n } = useTranslation();
  if (schedules.length === 0)
    return (
      <Typography color="text.secondary" data-testid="schedules-empty">
        {t('schedules.list.empty')}
      </Typography>
    );
  const days = (s: TScanSchedule) =>
    WEEK_ORDER.filter((d) => s.days_numbers.includes(d))
      .map((d) => weekdayName(d, i18n.language, 'short'))
      .join(', ');
  const nextRun = (s: TScanSchedule) =>
    s.next_run_at
      ? new Intl.DateTimeFormat(i18n.language, {
          dateStyle: 'medium',
          timeStyle: 'short',
          timeZone: s.tz,
        }).format(new Date(s.next_run_at))
      : '—';
  const label = (s: TScanSchedule) => s.name || targetNames(s.targets);
  return (
    <TableContainer>
      <Table size="small" aria-label={t('schedules.list.title')} data-testid="schedules-table">
        <TableHead>
          <TableRow>
            {(['name', 'targets', 'days', 'window', 'type', 'nextRun', 'status'] as const).map((c) => (
              <TableCell key={c} scope="col" sx={{ textAlign: 'start' }}>
                {t(`schedules.list.columns.${c}`)}
              </TableCell>
            ))}
            <TableCell scope="col" sx={{ textAlign: 'end' }}>
              {t('schedules.list.columns.actions')}
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {schedules.map((s) => (
            <TableRow key={s.scan_schedule_id} data-testid={`schedule-${s.scan_schedule_id}`}>
              <TableCell component="th" scope="row" sx={{ textAlign: 'start' }}>
                <span dir="auto">{s.name || t('schedules.list.unnamed')}</span>
              </TableCell>
              <TableCell sx={{ textAlign: 'start' }}>
                <span dir="auto">{targetNames(s.targets)}</span>
              </TableCell>
              <TableCell sx={{ textAlign: 'start' }}>{days(s)}</TableCell>
              <TableCell sx={{ textAlign: 'start' }}>
                <span dir="ltr">
                  {s.start_time}–{s.end_time}
                </span>{' '}
                <Typography component="span" variant="caption" color="text.secondary">
                  {s.tz}
                </Typography>
              </TableCell>
              <TableCell sx={{ textAlign: 'start' }}>
                {s.scan_type === 'custom'
                  ? [...s.custom_scan_config.classes, ...s.custom_scan_config.subclasses]
                      .map((c) =>
                        c.startsWith('class_') ? t(`schedules.classes.${c}`) : t(`schedules.subclasses.${c}`),
                      )
                      .join(', ')
                  : t('schedules.scanType.full')}
              </TableCell>
              <TableCell sx={{ textAlign: 'start' }}>
                <span dir="auto">{nextRun(s)}</span>
              </TableCell>
              <TableCell sx={{ textAlign: 'start' }}>
                <Chip
                  size="small"
                  color={s.enabled ? 'success' : 'default'}
                  label={s.enabled ? t('schedules.list.enabled') : t('schedules.list.paused')}
                />
              </TableCell>
              <TableCell sx={{ textAlign: 'end', whiteSpace: 'nowrap' }}>
                <Tooltip title={t('schedules.edit')}>
                  <IconButton
                    aria-label={t('schedules.editNamed', { name: label(s) })}
                    onClick={() => onEdit(s)}
                  >
                    <EditOutlined />
                  </IconButton>
                </Tooltip>
                <Tooltip title={t('schedules.delete')}>
                  <IconButton
                    aria-label={t('schedules.deleteNamed', { name: label(s) })}
                    onClick={() => onDelete(s)}
                  >
                    <DeleteOutline />
                  </IconButton>
                </Tooltip>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

export function SchedulesPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const notify = useNotify();
  const tz = user?.tz || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const targets = useGetTargetsQuery();
  const schedules = useGetScanSchedulesQuery();
  const overview = useGetScheduleOverviewQuery();
  const [create, created] = useCreateScanScheduleMutation();
  const [update, updated] = useUpdateScanScheduleMutation();
  const [remove, removed] = useDeleteScanScheduleMutation();
  const [createError, setCreateError] = useState<string | null>(null);
  const [editing, setEditing] = useState<TScanSchedule | null>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<TScanSchedule | null>(null);
  const targetNames = useTargetNames(targets.data);
  // The targets screen links here with one target chosen (?target_type=…&user_target_id=…).
  const [params] = useSearchParams();
  const chosenType = params.get('target_type');
  const chosenId = params.get('user_target_id');
  const initial = useMemo(() => {
    const values = defaultFormValues(tz);
    const type = TARGET_TYPES.find((x) => x === chosenType);
    const isOwned = !!type && !!targets.data?.[type].some((x) => x.user_target_id === chosenId);
    return type && chosenId && isOwned
      ? { ...values, targets: [{ target_type: type, user_target_id: chosenId }] }
      : values;
  }, [tz, chosenType, chosenId, targets.data]);

  const owned = targets.data;
  const hasTargets = owned !== undefined && TARGET_TYPES.some((type) => owned[type].length > 0);

  const onCreate = async (values: TScheduleFormValues) => {
    setCreateError(null);
    const result = await create(bodyOf(values));
    if ('error' in result) {
      setCreateError(scheduleErrorMessage(result.error, t));
      return false;
    }
    notify({ message: t('schedules.created'), alert: { color: 'success', variant: 'filled' } });
    return true;
  };

  const onUpdate = async (values: TScheduleFormValues) => {
    if (!editing) return false;
    setEditError(null);
    const result = await update({ scan_schedule_id: editing.scan_schedule_id, ...bodyOf(values) });
    if ('error' in result) {
      setEditError(scheduleErrorMessage(result.error, t));
      return false;
    }
    setEditing(null);
    notify({ message: t('schedules.updated'), alert: { color: 'success', variant: 'filled' } });
    return true;
  };

  const onDelete = async () => {
    if (!deleting) return;
    const result = await remove(deleting.scan_schedule_id);
    setDeleting(null);
    if ('error' in result)
      notify({ message: apiErrorMessage(result.error, t), alert: { color: 'error', variant: 'filled' } });
    else notify({ message: t('schedules.deleted'), alert: { color: 'success', variant: 'filled' } });
  };

  const runLabel = (run: { name: string; targets: ReadonlyArray<{ user_target_id: string }> }) =>
    run.name || targetNames(run.targets);

  return (
    <Box>
      <PageTitle title={t('schedules.title')} />
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {t('schedules.intro')}
      </Typography>
      <Stack spacing={3}>
        <Section title={t('schedules.add')} id="schedule-create-title">
          <QueryState
            query={targets}
            retryLabel={t('schedules.retry')}
            py={3}
            isEmpty={() => !hasTargets}
            empty={
              <Stack spacing={2} sx={{ alignItems: 'flex-start' }} data-testid="schedules-no-targets">
                <Typography color="text.secondary">{t('schedules.noTargets')}</Typography>
                <Button component={Link} to={paths.scans} variant="contained">
                  {t('schedules.addTarget')}
                </Button>
              </Stack>
            }
          >
            {(data) => (
              <ScheduleForm
                idPrefix="schedule-create"
                initial={initial}
                targets={data}
                submitLabel={t('schedules.form.create')}
                isSubmitting={created.isLoading}
                error={createError}
                onSubmit={onCreate}
              />
            )}
          </QueryState>
        </Section>
        <Section title={t('schedules.list.title')} id="schedule-list-title">
          <QueryState query={schedules} retryLabel={t('schedules.retry')} py={3}>
            {(data) => (
              <ScheduleList
                schedules={data.results ?? []}
                targetNames={targetNames}
                onEdit={(s) => {
                  setEditError(null);
                  setEditing(s);
                }}
                onDelete={setDeleting}
              />
            )}
          </QueryState>
        </Section>
        <Section title={t('schedules.overview.title')} id="schedule-overview-title">
          <QueryState query={overview} retryLabel={t('schedules.retry')} py={3}>
            {(data) => (
              <Stack spacing={2}>
                <Typography variant="body2" color="text.secondary">
                  {t('schedules.overview.subtitle', { tz: data.tz })}
                </Typography>
                {data.days.every((d) => d.runs.length === 0) && (
                  <Typography color="text.secondary" data-testid="overview-empty">
                    {t('schedules.overview.empty')}{' '}
                    {!hasTargets && (
                      <MuiLink component={Link} to={paths.scans}>
                        {t('schedules.addTarget')}
                      </MuiLink>
                    )}
                  </Typography>
                )}
                <ScheduleCalendar overview={data} runLabel={runLabel} />
              </Stack>
            )}
          </QueryState>
        </Section>
      </Stack>

      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        fullWidth
        maxWidth="md"
        aria-labelledby="schedule-edit-title"
      >
        <DialogTitle id="schedule-edit-title">{t('schedules.editTitle')}</DialogTitle>
        <DialogContent>
          {editing && targets.data && (
            <Box sx={{ pt: 1 }}>
              <ScheduleForm
                key={editing.scan_schedule_id}
                idPrefix="schedule-edit"
                initial={formValuesOf(editing)}
                targets={targets.data}
                submitLabel={t('schedules.form.save')}
                isSubmitting={updated.isLoading}
                error={editError}
                onSubmit={onUpdate}
                onCancel={() => setEditing(null)}
              />
            </Box>
          )}
        </DialogContent>
      </Dialog>

      <Dialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        aria-labelledby="schedule-delete-title"
      >
        <DialogTitle id="schedule-delete-title">{t('schedules.deleteTitle')}</DialogTitle>
        <DialogContent>
          <DialogContentText>
            {deleting && t('schedules.deleteText', { name: deleting.name || targetNames(deleting.targets) })}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setDeleting(null)}>{t('schedules.cancel')}</Button>
          <Button
            color="error"
            variant="contained"
            onClick={() => void onDelete()}
            disabled={removed.isLoading}
          >
            {t('schedules.delete')}
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
