import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  TextField,
} from '@mui/material';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { readApiError } from '../../../lib/api-client.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import type { TTargetLike } from '../hooks/use-target-actions.ts';

export function DisableTargetDialog({
  target,
  onCancel,
  onConfirm,
}: {
  target: TTargetLike | null;
  onCancel: () => void;
  onConfirm: (target: TTargetLike) => void;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  return (
    <Dialog open={!!target} onClose={onCancel} aria-labelledby={titleId}>
      <DialogTitle id={titleId}>
        {t('targets.confirmDisable.title', { name: target?.display_name ?? '' })}
      </DialogTitle>
      <DialogContent>
        <DialogContentText>{t('targets.confirmDisable.text')}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel}>{t('targets.confirmDisable.cancel')}</Button>
        <Button color="error" variant="contained" onClick={() => target && onConfirm(target)}>
          {t('targets.confirmDisable.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** Replaces a mistyped target: the server disables it and adds the new value in one step. */
export function ReplaceTargetDialog({
  target,
  onClose,
  onReplace,
}: {
  target: TTargetLike | null;
  onClose: () => void;
  onReplace: (target: TTargetLike, value: string) => Promise<{ error: unknown }>;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [isSaving, setSaving] = useState(false);
  const type = target ? t(`targets.type.${target.target_type}`).toLowerCase() : '';
  const close = () => {
    setValue('');
    setError(null);
    onClose();
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!target || !value.trim()) return;
    setSaving(true);
    const result = await onReplace(target, value.trim());
    setSaving(false);
    if (result.error) setError(result.error);
    else close();
  };
  const detail = readApiError(error)?.detail;
  return (
    <Dialog open={!!target} onClose={close} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <DialogTitle id={titleId}>
          {t('targets.replace.title', { name: target?.display_name ?? '' })}
        </DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>
            {t('targets.replace.text', { name: target?.display_name ?? '', type })}
          </DialogContentText>
          <TextField
            autoFocus
            fullWidth
            label={t('targets.replace.field', { type })}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            slotProps={{ htmlInput: { dir: 'ltr', spellCheck: false, autoCapitalize: 'none' } }}
          />
          {error ? (
            <Alert severity="error" role="alert" sx={{ mt: 2 }}>
              {detail ?? apiErrorMessage(error, t)}
            </Alert>
          ) : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={close}>{t('targets.replace.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={isSaving || !value.trim()}>
            {t('targets.replace.submit')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
