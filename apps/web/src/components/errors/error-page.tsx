import { Box, Button, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, useRouteError } from 'react-router';

export function describeError(error: unknown): { status: string | null; text: string } {
  if (isRouteErrorResponse(error)) return { status: String(error.status), text: error.statusText };
  if (error instanceof Error) return { status: null, text: error.message };
  return { status: null, text: typeof error === 'string' ? error : '' };
}

/** Generic unexpected-error page: status and status text, or the message (spec §8). */
export function ErrorPage() {
  const { t } = useTranslation();
  const { status, text } = describeError(useRouteError());
  return (
    <Box component="main" sx={{ textAlign: 'center', py: 8, px: 2 }}>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {t('errors.unexpectedTitle')}
      </Typography>
      {status && (
        <Typography variant="h2" component="p" color="error" data-testid="error-status">
          {status}
        </Typography>
      )}
      <Typography color="text.secondary" sx={{ mb: 3 }} data-testid="error-text">
        {text || t('errors.unexpectedText')}
      </Typography>
      <Button variant="contained" href="/">
        {t('errors.backHome')}
      </Button>
    </Box>
  );
}
