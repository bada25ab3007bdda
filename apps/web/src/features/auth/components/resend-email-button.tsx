import { Button, Stack } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormAlert } from '../../../components/ui/form.tsx';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useResendEmailMutation } from '../api/resend-email.ts';

export function ResendEmailButton({ email }: { email: string }) {
  const { t } = useTranslation();
  const [resend, { isLoading }] = useResendEmailMutation();
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  return (
    <Stack spacing={1.5}>
      {result && <FormAlert severity={result.ok ? 'success' : 'error'} message={result.text} />}
      <Button
        variant="outlined"
        disabled={isLoading}
        onClick={async () => {
          try {
            await resend({ email }).unwrap();
            setResult({ ok: true, text: t('auth.confirmEmail.resent', { email }) });
          } catch (e) {
            setResult({ ok: false, text: apiErrorMessage(e, t) });
          }
        }}
      >
        {t('auth.confirmEmail.resend')}
      </Button>
    </Stack>
  );
}
