import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Link, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Navigate, Link as RouterLink } from 'react-router';
import { z } from 'zod';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../auth-provider.tsx';

const ZAppCode = z.object({
  code: z
    .string()
    .trim()
    .regex(/^[0-9]{6}$/, 'Enter the 6-digit code from your app.'),
});
const ZRecoveryCode = z.object({
  code: z
    .string()
    .trim()
    .min(6, 'Enter the 6-digit code or a recovery code.')
    .max(32)
    .regex(/^[0-9A-Za-z-]+$/, 'Enter the 6-digit code or a recovery code.'),
});

/** Second login step: a TOTP code from the app, or one of the recovery codes. */
export function TwoFactorCodePage({ kind }: { kind: 'app' | 'recovery' }) {
  const { t } = useTranslation();
  const auth = useAuth();
  const [error, setFormError] = useState<string | null>(null);
  const { control, handleSubmit, setError, formState } = useForm<{ code: string }>({
    resolver: zodResolver(kind === 'app' ? ZAppCode : ZRecoveryCode),
    defaultValues: { code: '' },
  });

  if (!auth.ephemeral_token) return <Navigate to={paths.login} replace />;

  const onSubmit = handleSubmit(async ({ code }) => {
    setFormError(null);
    try {
      await auth.loginWithCode(code);
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['code'], t));
    }
  });

  const key = kind === 'app' ? 'auth.twoFactorApp' : 'auth.twoFactorRecovery';
  return (
    <AuthCard title={t(`${key}.title`)} subtitle={t(`${key}.subtitle`)}>
      <Stack component="form" spacing={2.5} noValidate onSubmit={onSubmit}>
        <FormAlert message={error} />
        <FormTextField
          control={control}
          name="code"
          label={t(kind === 'app' ? 'fields.totpCode' : 'fields.recoveryCode')}
          autoComplete="one-time-code"
          slotProps={{
            htmlInput: kind === 'app' ? { inputMode: 'numeric', maxLength: 6 } : { maxLength: 32 },
          }}
          autoFocus
        />
        <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
          {t('auth.twoFactorApp.submit')}
        </Button>
        <Typography variant="body2" sx={{ textAlign: 'center' }}>
          {kind === 'app' ? (
            <Link component={RouterLink} to={paths.twoFactorRecovery}>
              {t('auth.twoFactorApp.useRecovery')}
            </Link>
          ) : (
            <Link component={RouterLink} to={paths.twoFactorApp}>
              {t('auth.twoFactorRecovery.useApp')}
            </Link>
          )}
        </Typography>
      </Stack>
    </AuthCard>
  );
}

export function TwoFactorAppPage() {
  return <TwoFactorCodePage kind="app" />;
}

export function TwoFactorRecoveryPage() {
  return <TwoFactorCodePage kind="recovery" />;
}
