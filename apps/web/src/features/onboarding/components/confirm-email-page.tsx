import { Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { FormAlert } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { ResendEmailButton, useAuth } from '../../auth/index.ts';

export function ConfirmEmailPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const navigate = useNavigate();
  const [notYet, setNotYet] = useState(false);
  const email = auth.user?.email ?? '';

  return (
    <AuthCard title={t('auth.confirmEmail.title')} subtitle={t('auth.confirmEmail.text', { email })}>
      <Stack spacing={2}>
        {notYet && <FormAlert severity="info" message={t('auth.confirmEmail.notYet')} />}
        <Typography variant="body2" color="text.secondary">
          {t('auth.confirmEmail.hint')}
        </Typography>
        <Button
          variant="contained"
          onClick={async () => {
            const user = await auth.refreshUser();
            if (user?.metadata.email_verified) await navigate(paths.home);
            else setNotYet(true);
          }}
        >
          {t('auth.confirmEmail.check')}
        </Button>
        <ResendEmailButton email={email} />
      </Stack>
    </AuthCard>
  );
}
