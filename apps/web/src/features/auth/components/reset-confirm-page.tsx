import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Stack } from '@mui/material';
import { type TPasswordResetConfirmBody, ZPasswordResetConfirmBody } from '@perimeter/contracts';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import type { z } from 'zod';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { useConfirmPasswordResetMutation } from '../api/password-reset-confirm.ts';

export function ResetConfirmPage() {
  const { t } = useTranslation();
  const { uid = '', token = '' } = useParams();
  const [confirmReset] = useConfirmPasswordResetMutation();
  const [error, setFormError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const { control, handleSubmit, setError, formState } = useForm<
    TPasswordResetConfirmBody,
    unknown,
    z.output<typeof ZPasswordResetConfirmBody>
  >({
    resolver: zodResolver(ZPasswordResetConfirmBody),
    defaultValues: { new_password1: '', new_password2: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      await confirmReset({ uid, token, ...values }).unwrap();
      setDone(true);
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['new_password1', 'new_password2'], t));
    }
  });

  return (
    <AuthCard
      title={t('auth.resetConfirm.title')}
      subtitle={done ? undefined : t('auth.resetConfirm.subtitle')}
    >
      {done ? (
        <Stack spacing={2}>
          <FormAlert severity="success" message={t('auth.resetConfirm.done')} />
          <Button component={RouterLink} to={paths.login} variant="contained">
            {t('auth.register.toLogin')}
          </Button>
        </Stack>
      ) : (
        <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
          <FormAlert message={error} />
          <FormTextField
            control={control}
            name="new_password1"
            type="password"
            label={t('fields.newPassword')}
            autoComplete="new-password"
            helperText={t('auth.register.passwordHint')}
          />
          <FormTextField
            control={control}
            name="new_password2"
            type="password"
            label={t('fields.passwordRepeat')}
            autoComplete="new-password"
          />
          <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
            {t('auth.resetConfirm.submit')}
          </Button>
        </Stack>
      )}
    </AuthCard>
  );
}
