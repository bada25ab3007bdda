import { Button, CircularProgress, Stack } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { FormAlert } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useVerifyEmailMutation } from '../api/verify-email.ts';
import { useAuth } from '../auth-provider.tsx';

/** Verify-by-link (public). Works signed in too: then it sets the verified flag and continues. */
export function VerifyEmailPage() {
  const { t } = useTranslation();
  const { key = '' } = useParams();
  const auth = useAuth();
  const [verify] = useVerifyEmailMutation();
  const [state, setState] = useState<{ status: 'pending' | 'ok' | 'failed'; message?: string }>({
    status: 'pending',
  });
  const started = useRef<string | null>(null);

  useEffect(() => {
    if (started.current === key) return;
    started.current = key;
    verify({ key })
      .unwrap()
      .then(() => setState({ status: 'ok' }))
      .catch((e: unknown) => setState({ status: 'failed', message: apiErrorMessage(e, t) }));
  }, [key, verify, t]);

  useEffect(() => {
    if (state.status === 'ok' && auth.isAuthenticated) auth.setVerified(true);
  }, [state.status, auth]);

  return (
    <AuthCard title={t('auth.verifyEmail.title')}>
      <Stack spacing={2}>
        {state.status === 'pending' && (
          <CircularProgress aria-label={t('common.loading')} sx={{ alignSelf: 'center' }} />
        )}
        {state.status === 'ok' && <FormAlert severity="success" message={t('auth.verifyEmail.ok')} />}
        {state.status === 'failed' && <FormAlert message={state.message ?? t('auth.verifyEmail.failed')} />}
        {state.status !== 'pending' && (
          <Button
            component={RouterLink}
            to={auth.isAuthenticated ? paths.home : paths.login}
            variant="contained"
          >
            {auth.isAuthenticated ? t('common.continue') : t('auth.register.toLogin')}
          </Button>
        )}
      </Stack>
    </AuthCard>
  );
}
