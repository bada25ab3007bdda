import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Link, Stack, Typography } from '@mui/material';
import { type TPasswordResetBody, ZPasswordResetBody } from '@perimeter/contracts';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import type { z } from 'zod';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { useRequestPasswordResetMutation } from '../api/password-reset.ts';

export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const [requestReset] = useRequestPasswordResetMutation();
  const [error, setFormError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const { control, handleSubmit, setError, formState } = useForm<
    TPasswordResetBody,
    unknown,
    z.output<typeof ZPasswordResetBody>
  >({ resolver: zodResolver(ZPasswordResetBody), defaultValues: { email: '' } });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      await requestReset(values).unwrap();
      setSent(true);
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['email'], t));
    }
  });

  return (
    <AuthCard title={t('auth.forgot.title')} subtitle={sent ? undefined : t('auth.forgot.subtitle')}>
      {sent ? (
        <Stack spacing={2}>
          <FormAlert severity="success" message={t('auth.forgot.sent')} />
          <Button component={RouterLink} to={paths.login} variant="contained">
            {t('auth.register.toLogin')}
          </Button>
        </Stack>
      ) : (
        <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
          <FormAlert message={error} />
          <FormTextField
            control={control}
            name="email"
            type="email"
            label={t('fields.email')}
            autoComplete="email"
          />
          <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
            {t('auth.forgot.submit')}
          </Button>
          <Typography variant="body2" sx={{ textAlign: 'center' }}>
            <Link component={RouterLink} to={paths.login}>
              {t('auth.forgot.back')}
            </Link>
          </Typography>
        </Stack>
      )}
    </AuthCard>
  );
}
