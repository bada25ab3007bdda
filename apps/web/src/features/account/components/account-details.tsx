import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, CardContent, CardHeader, Grid, Stack, Typography } from '@mui/material';
import { type TPasswordChangeBody, ZPasswordChangeBody, ZUpdateUserBody } from '@perimeter/contracts';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import type { z } from 'zod';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth, useChangePasswordMutation, useUpdateUserMutation } from '../../auth/index.ts';

const ZProfile = ZUpdateUserBody.pick({ first_name: true, last_name: true, company: true }).required();
type TProfile = z.input<typeof ZProfile>;

function ProfileForm() {
  const { t } = useTranslation();
  const auth = useAuth();
  const notify = useNotify();
  const [update] = useUpdateUserMutation();
  const [error, setFormError] = useState<string | null>(null);
  const { control, handleSubmit, setError, formState, reset } = useForm<
    TProfile,
    unknown,
    z.output<typeof ZProfile>
  >({
    resolver: zodResolver(ZProfile),
    defaultValues: {
      first_name: auth.user?.first_name ?? '',
      last_name: auth.user?.last_name ?? '',
      company: auth.user?.company ?? '',
    },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      const user = await update(values).unwrap();
      auth.setUser(user);
      reset(values);
      notify({ message: t('account.saved'), alert: { color: 'success', variant: 'filled' } });
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['first_name', 'last_name', 'company'], t));
    }
  });

  return (
    <Card>
      <CardHeader title={t('account.profile')} slotProps={{ title: { component: 'h2', variant: 'h3' } }} />
      <CardContent>
        <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
          <FormAlert message={error} />
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
          <FormTextField
            control={control}
            name="company"
            label={t('fields.company')}
            autoComplete="organization"
          />
          <Typography variant="body2" color="text.secondary">
            {t('fields.email')}: {auth.user?.email}
          </Typography>
          <Button type="submit" variant="contained" disabled={formState.isSubmitting || !formState.isDirty}>
            {t('common.save')}
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}

function PasswordForm() {
  const { t } = useTranslation();
  const notify = useNotify();
  const [change] = useChangePasswordMutation();
  const [error, setFormError] = useState<string | null>(null);
  const { control, handleSubmit, setError, formState, reset } = useForm<
    TPasswordChangeBody,
    unknown,
    z.output<typeof ZPasswordChangeBody>
  >({
    resolver: zodResolver(ZPasswordChangeBody),
    defaultValues: { old_password: '', new_password1: '', new_password2: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      await change(values).unwrap();
      reset();
      notify({ message: t('account.passwordChanged'), alert: { color: 'success', variant: 'filled' } });
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['old_password', 'new_password1', 'new_password2'], t));
    }
  });

  return (
    <Card>
      <CardHeader
        title={t('account.changePassword')}
        slotProps={{ title: { component: 'h2', variant: 'h3' } }}
      />
      <CardContent>
        <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
          <FormAlert message={error} />
          <FormTextField
            control={control}
            name="old_password"
            type="password"
            label={t('fields.currentPassword')}
            autoComplete="current-password"
          />
          <FormTextField
            control={control}
            name="new_password1"
            type="password"
            label={t('fields.newPassword')}
            autoComplete="new-password"
          />
          <FormTextField
            control={control}
            name="new_password2"
            type="password"
            label={t('fields.passwordRepeat')}
            autoComplete="new-password"
          />
          <Button type="submit" variant="contained" disabled={formState.isSubmitting}>
            {t('account.changePassword')}
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}

export function AccountDetails() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, md: 6 }}>
        <ProfileForm />
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <Stack spacing={3}>
          <PasswordForm />
          <Card>
            <CardHeader
              title={t('account.security')}
              slotProps={{ title: { component: 'h2', variant: 'h3' } }}
            />
            <CardContent>
              <Stack spacing={1.5}>
                <Typography variant="body2">
                  {t('account.timezone')}: <strong>{user?.tz}</strong>
                </Typography>
                <Button component={RouterLink} to={paths.timezone} variant="outlined">
                  {t('account.changeTimezone')}
                </Button>
                <Button component={RouterLink} to={paths.twoFactorReset} variant="outlined" color="warning">
                  {t('twoFactor.resetLink')}
                </Button>
              </Stack>
            </CardContent>
          </Card>
        </Stack>
      </Grid>
    </Grid>
  );
}
