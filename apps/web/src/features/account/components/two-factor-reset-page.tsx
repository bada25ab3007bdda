import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, CardContent, Stack, Typography } from '@mui/material';
import { type TTwoFactorDeactivateBody, ZTwoFactorDeactivateBody } from '@perimeter/contracts';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth, useDeactivateTwoFactorMutation } from '../../auth/index.ts';

/** Turns two-factor off with a current code or a recovery code; the gate then asks for a new setup. */
export function TwoFactorResetPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const navigate = useNavigate();
  const [deactivate] = useDeactivateTwoFactorMutation();
  const [error, setFormError] = useState<string | null>(null);
  const { control, handleSubmit, setError, formState } = useForm<
    TTwoFactorDeactivateBody,
    unknown,
    z.output<typeof ZTwoFactorDeactivateBody>
  >({ resolver: zodResolver(ZTwoFactorDeactivateBody), defaultValues: { code: '' } });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      await deactivate(values).unwrap();
      await auth.refreshUser();
      await navigate(paths.twoFactorSetup);
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['code'], t));
    }
  });

  return (
    <>
      <PageTitle title={t('twoFactor.resetTitle')} />
      <Card sx={{ maxWidth: 560 }}>
        <CardContent>
          <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
            <Typography>{t('twoFactor.resetText')}</Typography>
            <FormAlert message={error} />
            <FormTextField
              control={control}
              name="code"
              label={t('fields.codeOrRecovery')}
              autoComplete="one-time-code"
            />
            <Button type="submit" variant="contained" color="warning" disabled={formState.isSubmitting}>
              {t('twoFactor.resetSubmit')}
            </Button>
          </Stack>
        </CardContent>
      </Card>
    </>
  );
}
