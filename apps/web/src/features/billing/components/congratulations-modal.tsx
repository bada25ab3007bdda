import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Link as MuiLink,
  Stack,
  Typography,
} from '@mui/material';
import { TARIFFS, type TPlanKey } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { planText } from './plan-text.ts';
import { PlanTextList } from './plan-text-list.tsx';

/** Spec §2 "Congratulations": new plan name, features, host and subdomain limits, a recommendation, "Got it". */
export function CongratulationsModal({ plan, onClose }: { plan: TPlanKey | null; onClose: () => void }) {
  const { t } = useTranslation();
  if (!plan) return null;
  const text = planText(t, TARIFFS[plan]);
  return (
    <Dialog open onClose={onClose} aria-labelledby="congrats-title" maxWidth="sm" fullWidth>
      <DialogTitle id="congrats-title">{t('billing.congrats.title')}</DialogTitle>
      <DialogContent>
        <Typography sx={{ mb: 1 }}>{t('billing.congrats.text', { name: text.name })}</Typography>
        <Typography variant="subtitle1" component="h3">
          {text.featuresTitle}
        </Typography>
        <PlanTextList items={text.features} />
        <Typography variant="subtitle1" component="h3">
          {t('billing.limitationsTitle')}
        </Typography>
        <PlanTextList items={text.limitations} />
        <Typography variant="body2" color="text.secondary">
          {t('billing.congrats.recommendation')}
        </Typography>
        <Stack direction="row" spacing={2} sx={{ mt: 1, flexWrap: 'wrap' }}>
          <MuiLink component={RouterLink} to={paths.targets} onClick={onClose}>
            {t('targets.links.targets')}
          </MuiLink>
          <MuiLink component={RouterLink} to={paths.scheduleScan} onClick={onClose}>
            {t('targets.links.schedules')}
          </MuiLink>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onClose} autoFocus>
          {t('billing.congrats.gotIt')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
