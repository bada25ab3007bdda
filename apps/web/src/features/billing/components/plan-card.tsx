import CheckIcon from '@mui/icons-material/Check';
import { Button, Card, CardActions, CardContent, Chip, Stack, Typography } from '@mui/material';
import type { TBillingPeriod, TCurrency, TTariff } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { planText } from './plan-text.ts';
import { PlanTextList } from './plan-text-list.tsx';

export const ENTERPRISE_CONTACT = 'mailto:sales@perimeter.local?subject=Enterprise%20plan';

export interface PlanCardProps {
  tariff: TTariff;
  period: TBillingPeriod;
  currency: TCurrency;
  current: boolean;
  purchasable: boolean;
  busy?: boolean;
  onChoose: () => void;
}

/** One plan: price for the chosen period, features, host and subdomain limits, and its action. */
export function PlanCard({ tariff, period, currency, current, purchasable, busy, onChoose }: PlanCardProps) {
  const { t } = useTranslation();
  const text = planText(t, tariff);
  const cur = currency.toUpperCase();
  let price: string;
  let note: string | null = null;
  if (tariff.isEnterprise) price = t('billing.onRequest');
  else if (tariff.key === 'trial_scan') price = t('billing.free');
  else if (tariff.key === 'try_it') {
    price = `${cur} ${tariff.price.yearly}`;
    note = t('billing.oneTime');
  } else if (period === 'yearly') {
    price = `${cur} ${tariff.price.monthly[0]}`;
    note = t('billing.perMonthBilledYearly', { amount: `${cur} ${tariff.price.yearly}` });
  } else {
    price = `${cur} ${tariff.price.monthly[1]}`;
    note = t('billing.perMonth');
  }
  const headingId = `plan-${tariff.key}-title`;
  return (
    <Card
      component="section"
      aria-labelledby={headingId}
      sx={{ height: '100%', display: 'flex', flexDirection: 'column' }}
    >
      <CardContent sx={{ flexGrow: 1 }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
          <Typography id={headingId} variant="h3" component="h2">
            {text.name}
          </Typography>
          {current && <Chip size="small" color="primary" label={t('billing.currentPlan')} />}
        </Stack>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {text.description}
        </Typography>
        <Typography variant="h2" component="p" data-testid={`price-${tariff.key}`}>
          {price}
        </Typography>
        {note && (
          <Typography variant="caption" color="text.secondary">
            {note}
          </Typography>
        )}
        <Typography variant="subtitle1" component="h3" sx={{ mt: 2 }}>
          {text.featuresTitle}
        </Typography>
        <PlanTextList items={text.features} mark={<CheckIcon fontSize="small" color="success" />} />
        <Typography variant="subtitle2" component="h3">
          {t('billing.limitationsTitle')}
        </Typography>
        <PlanTextList items={text.limitations} />
      </CardContent>
      <CardActions sx={{ p: 2 }}>
        {tariff.isEnterprise ? (
          <Button fullWidth variant="outlined" href={ENTERPRISE_CONTACT}>
            {t('billing.contactUs')}
          </Button>
        ) : current && tariff.key !== 'try_it' ? (
          <Button fullWidth variant="outlined" disabled>
            {t('billing.currentPlan')}
          </Button>
        ) : purchasable ? (
          <Button
            fullWidth
            variant="contained"
            disabled={busy}
            onClick={onChoose}
            aria-label={t('billing.chooseNamed', { name: text.name })}
          >
            {tariff.key === 'try_it' ? t('billing.buyOneScan') : t('billing.choose')}
          </Button>
        ) : null}
      </CardActions>
    </Card>
  );
}
