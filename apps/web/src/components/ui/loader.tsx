import { Box, CircularProgress, LinearProgress } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** The thin bar at the very top while a lazy page loads. */
export function TopLoader() {
  const { t } = useTranslation();
  return (
    <Box sx={{ position: 'fixed', top: 0, left: 0, right: 0, zIndex: (theme) => theme.zIndex.modal + 10 }}>
      <LinearProgress color="primary" aria-label={t('common.loading')} />
    </Box>
  );
}

export function FullPageSpinner() {
  const { t } = useTranslation();
  return (
    <Box sx={{ minHeight: '60vh', display: 'grid', placeItems: 'center' }}>
      <CircularProgress aria-label={t('common.loading')} />
    </Box>
  );
}
