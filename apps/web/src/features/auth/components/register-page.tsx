import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Link, Stack, Typography } from '@mui/material';
import { type TRegistrationBody, ZRegistrationBody } from '@perimeter/contracts';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import type { z } from 'zod';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { useRegisterMutation } from '../api/registration.ts';
import { ResendEmailButton } from './resend-email-button.tsx';

const FIELDS = ['first_name', 'last_name', 'company', 'email', 'password1', 'password2'] as const;

export function RegisterPage() {
  const { t } = useTranslation();
  const [register] = useRegisterMutation();
  const [error, setFormError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { control, handleSubmit, setError, formState } = useForm<
    TRegistrationBody,
    unknown,
    z.output<typeof ZRegistrationBody>
  >({
    resolver: zodResolver(ZRegistrationBody),
    defaultValues: { first_name: '', last_name: '', company: '', email: '', password1: '', password2: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      await register(values).unwrap();
      setSentTo(values.email);
    } catch (e) {
      setFormError(applyServerErrors(e, setError, FIELDS, t));
    }
  });

  if (sentTo) {
    return (
      <AuthCard title={t('auth.register.doneTitle')}>
        <Stack spacing={2}>
          <Typography data-testid="register-done">
            {t('auth.register.doneText', { email: sentTo })}
          </Typography>
          <ResendEmailButton email={sentTo} />
          <Button component={RouterLink} to={paths.login} variant="contained">
            {t('auth.register.toLogin')}
          </Button>
        </Stack>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t('auth.register.title')} subtitle={t('auth.register.subtitle')}>
      <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
        <FormAlert message={error} />
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          <FormTextField
            control={control}
            name="first_name"
            label={t('fields.firstName')}
            autoComplete="given-name"
          />
          <FormTextField
            control={control}
            name="last_name"
            label={t('fields.lastName')}
            autoComplete="family-name"
          />
        </Stack>
        <FormTextField
          control={control}
          name="company"
          label={t('fields.company')}
          autoComplete="organization"
        />
        <FormTextField
          control={control}
          name="email"
          type="email"
          label={t('fields.email')}
          autoComplete="email"
        />
        <FormTextField
          control={control}
          name="password1"
          type="password"
          label={t('fields.password')}
          autoComplete="new-password"
          helperText={t('auth.register.passwordHint')}
        />
        <FormTextField
          control={control}
          name="password2"
          type="password"
          label={t('fields.passwordRepeat')}
          autoComplete="new-password"
        />
        <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
          {t('auth.register.submit')}
        </Button>
        <Typography variant="body2" sx={{ textAlign: 'center' }}>
          {t('auth.register.haveAccount')}{' '}
          <Link component={RouterLink} to={paths.login}>
            {t('auth.register.toLogin')}
          </Link>
        </Typography>
      </Stack>
    </AuthCard>
  );
}
