import { Alert, Box, Button, CircularProgress, type SxProps, type Theme } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../lib/errors.ts';

type TQuery<T> = { data?: T; error?: unknown; isLoading: boolean; refetch: () => unknown };

/**
 * The states of one query's block: a spinner while it loads, the error with a retry button, the
 * empty state, then the content with the data.
 */
export function QueryState<T>({
  query,
  errorText,
  retryLabel,
  isEmpty,
  empty,
  py = 6,
  alertSx,
  children,
}: {
  query: TQuery<T>;
  /** What could not be loaded; the server's reason follows it (alone when this is left out). */
  errorText?: string;
  retryLabel: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  /** Room around the spinner. */
  py?: number;
  alertSx?: SxProps<Theme>;
  children: (data: T) => ReactNode;
}) {
  const { t } = useTranslation();
  if (query.isLoading)
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py }}>
        <CircularProgress aria-label={t('common.loading')} />
      </Box>
    );
  if (query.error || query.data === undefined)
    return (
      <Alert
        severity="error"
        sx={alertSx}
        action={
          <Button color="inherit" size="small" onClick={() => void query.refetch()}>
            {retryLabel}
          </Button>
        }
      >
        {errorText ? `${errorText} ` : ''}
        {apiErrorMessage(query.error, t)}
      </Alert>
    );
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}
