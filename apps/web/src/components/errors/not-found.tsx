import { Box, Button, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export function NotFound() {
  const { t } = useTranslation();
  return (
    <Box sx={{ textAlign: 'center', py: 8 }}>
      <Typography variant="h1" component="p" sx={{ fontSize: '4rem', color: 'primary.main' }}>
        404
      </Typography>
      <Typography variant="h2" component="h1" sx={{ mb: 1 }}>
        {t('errors.notFoundTitle')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {t('errors.notFoundText')}
      </Typography>
      <Button variant="contained" component={Link} to="/">
        {t('errors.backHome')}
      </Button>
    </Box>
  );
}
