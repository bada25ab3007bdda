import { Button, FormControl, InputLabel, MenuItem, Select, Stack, Typography } from '@mui/material';
import { RESOLVE_REASONS, type TEvent } from '@perimeter/contracts';
import { closeSnackbar } from 'notistack';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAppDispatch } from '../../../store/index.ts';
import { resolveEventApi } from '../api/resolve-event.ts';
import { unresolveEventApi } from '../api/unresolve-event.ts';
import type { TResolveReason } from '../hooks/use-events-params.ts';

/**
 * Mark resolved (with a reason) or reopen. The snackbar after either offers Undo, which sends the
 * opposite call: reopen after a resolve, resolve with the former reason after a reopen.
 */
export function ResolveControls({ event, onDone }: { event: TEvent; onDone: () => void }) {
  const { t } = useTranslation();
  const dispatch = useAppDispatch();
  const notify = useNotify();
  const reasonId = useId();
  const [reason, setReason] = useState<TResolveReason>('fixed');
  const [busy, setBusy] = useState(false);
  const target = { scan_subclass: event.scan_subclass, event_id: event.id };

  // Dispatched through the store, not a hook, so Undo still works after the details are closed.
  const resolve = (why: TResolveReason) =>
    dispatch(resolveEventApi.endpoints.resolveEvent.initiate({ ...target, reason: why })).unwrap();
  const reopen = () => dispatch(unresolveEventApi.endpoints.unresolveEvent.initiate(target)).unwrap();

  const fail = (e: unknown) =>
    notify({ message: apiErrorMessage(e, t), alert: { color: 'error', variant: 'filled' } });

  const offerUndo = (message: string, undo: () => Promise<TEvent>) =>
    notify({
      message,
      alert: { color: 'success', variant: 'filled' },
      action: (key) => (
        <Button
          size="small"
          color="inherit"
          onClick={() => {
            closeSnackbar(key);
            undo().then(
              () =>
                notify({ message: t('events.resolve.undone'), alert: { color: 'info', variant: 'filled' } }),
              fail,
            );
          }}
        >
          {t('common.undo')}
        </Button>
      ),
    });

  const run = async (action: 'resolve' | 'reopen') => {
    setBusy(true);
    try {
      if (action === 'resolve') {
        await resolve(reason);
        onDone();
        offerUndo(t('events.resolve.resolvedMessage'), reopen);
      } else {
        const former: TResolveReason = event.resolved_reason ?? 'fixed';
        await reopen();
        onDone();
        offerUndo(t('events.resolve.reopenedMessage'), () => resolve(former));
      }
    } catch (e) {
      fail(e);
      setBusy(false);
    }
  };

  if (event.resolved)
    return (
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="body2" data-testid="resolved-reason">
          {t('events.resolve.resolvedAs', {
            reason: t(`events.resolve.reason.${event.resolved_reason ?? 'fixed'}`),
          })}
        </Typography>
        <Button variant="outlined" disabled={busy} onClick={() => void run('reopen')}>
          {t('events.resolve.reopen')}
        </Button>
      </Stack>
    );
  return (
    <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <FormControl size="small" sx={{ minWidth: 200 }}>
        <InputLabel id={reasonId}>{t('events.resolve.reasonLabel')}</InputLabel>
        <Select
          labelId={reasonId}
          label={t('events.resolve.reasonLabel')}
          value={reason}
          onChange={(e) => setReason(e.target.value as TResolveReason)}
        >
          {RESOLVE_REASONS.map((r) => (
            <MenuItem key={r} value={r}>
              {t(`events.resolve.reason.${r}`)}
            </MenuItem>
          ))}
        </Select>
      </FormControl>
      <Button variant="contained" disabled={busy} onClick={() => void run('resolve')}>
        {t('events.resolve.resolve')}
      </Button>
    </Stack>
  );
}
