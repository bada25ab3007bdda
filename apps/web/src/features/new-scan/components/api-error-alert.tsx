import { Alert, AlertTitle } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { readApiError } from '../../../lib/api-client.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';

/** A server error: the translated kind as the title and the server's own `detail` below it. */
export function ApiErrorAlert({ error, children }: { error: unknown; children?: ReactNode }) {
  const { t } = useTranslation();
  if (!error) return null;
  const title = apiErrorMessage(error, t);
  const detail = readApiError(error)?.detail;
  return (
    <Alert severity="error" role="alert">
      {detail && detail !== title ? <AlertTitle>{title}</AlertTitle> : title}
      {detail && detail !== title ? detail : null}
      {children}
    </Alert>
  );
}
