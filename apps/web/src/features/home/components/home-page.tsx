import AddCircleOutline from '@mui/icons-material/AddCircleOutlineOutlined';
import { Button, Card, CardContent, Grid, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../auth/auth-provider.tsx';

const TILES = ['targets', 'lastScan', 'openFindings', 'nextScan'] as const;

/** The home route's frame; the dashboard widgets come with the scan features. */
export function HomePage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <>
      <PageTitle title={t('home.title')} />
      <Card sx={{ mb: 3 }}>
        <CardContent>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
            <Stack sx={{ flexGrow: 1 }}>
              <Typography variant="h2" component="p" data-testid="home-greeting">
                {t('home.greeting', { name: user?.first_name ?? '' })}
              </Typography>
              <Typography color="text.secondary">{t('home.intro')}</Typography>
            </Stack>
            <Button component={Link} to={paths.scans} variant="contained" startIcon={<AddCircleOutline />}>
              {t('menu.newScan')}
            </Button>
          </Stack>
        </CardContent>
      </Card>
      <Grid container spacing={3}>
        {TILES.map((tile) => (
          <Grid key={tile} size={{ xs: 12, sm: 6, lg: 3 }}>
            <Card sx={{ height: '100%' }}>
              <CardContent>
                <Typography variant="h6" component="h2" color="text.secondary">
                  {t(`home.tiles.${tile}`)}
                </Typography>
                <Typography variant="h2" component="p" sx={{ mt: 1 }}>
                  —
                </Typography>
              </CardContent>
            </Card>
          </Grid>
        ))}
      </Grid>
    </>
  );
}
