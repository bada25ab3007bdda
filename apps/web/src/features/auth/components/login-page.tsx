import { zodResolver } from '@hookform/resolvers/zod';
import { Box, Button, Link, Stack, Typography } from '@mui/material';
import { type TLoginBody, ZLoginBody } from '@perimeter/contracts';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import type { z } from 'zod';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../auth-provider.tsx';

export function LoginPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [error, setFormError] = useState<string | null>(null);
  const { control, handleSubmit, setError, formState } = useForm<
    TLoginBody,
    unknown,
    z.output<typeof ZLoginBody>
  >({
    resolver: zodResolver(ZLoginBody),
    defaultValues: { email: '', password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      const step = await auth.login(values);
      if (step === 'code') await navigate(paths.twoFactorApp, { state: location.state });
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['email', 'password'], t));
    }
  });

  return (
    <AuthCard title={t('auth.login.title')} subtitle={t('auth.login.subtitle')}>
      <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
        <FormAlert message={error} />
        <FormTextField
          control={control}
          name="email"
          type="email"
          label={t('fields.email')}
          autoComplete="email"
        />
        <FormTextField
          control={control}
          name="password"
          type="password"
          label={t('fields.password')}
          autoComplete="current-password"
        />
        <Box sx={{ textAlign: 'end' }}>
          <Link component={RouterLink} to={paths.passwordReset}>
            {t('auth.login.forgot')}
          </Link>
        </Box>
        <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
          {t('auth.login.submit')}
        </Button>
        <Typography variant="body2" sx={{ textAlign: 'center' }}>
          {t('auth.login.noAccount')}{' '}
          <Link component={RouterLink} to={paths.register}>
            {t('auth.login.register')}
          </Link>
        </Typography>
      </Stack>
    </AuthCard>
  );
}
