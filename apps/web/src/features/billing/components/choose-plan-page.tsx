import {
  Alert,
  Box,
  CircularProgress,
  Grid,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { PLAN_KEYS, type TBillingPeriod, type TPurchasablePlan } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useGetAvailableTariffsQuery } from '../api/get-available-tariffs.ts';
import { useGetCheckoutSessionsLinkMutation } from '../api/get-checkout-sessions-link.ts';
import { useGetTariffsInfoQuery } from '../api/get-tariffs-info.ts';
import { setTariffMarker } from '../hooks/tariff-marker.ts';
import { PlanCard } from './plan-card.tsx';

/** Goes to a checkout URL: in-app (local provider) through the router, else the provider's page. */
export function useOpenCheckout() {
  const navigate = useNavigate();
  return (url: string) => {
    const target = new URL(url, window.location.href);
    if (target.origin === window.location.origin) navigate(`${target.pathname}${target.search}`);
    else window.location.assign(url);
  };
}

/** /choose-plan and /account/plan/choose-plan: plan cards, monthly/yearly, promo code, enterprise contact. */
export function ChoosePlanPage() {
  const { t } = useTranslation();
  const tariffs = useGetTariffsInfoQuery(undefined);
  const available = useGetAvailableTariffsQuery();
  const [checkout, { isLoading }] = useGetCheckoutSessionsLinkMutation();
  const openCheckout = useOpenCheckout();
  const [period, setPeriod] = useState<TBillingPeriod>('monthly');
  const [promo, setPromo] = useState('');
  const [error, setError] = useState<string | null>(null);

  if (tariffs.isLoading || available.isLoading) return <CircularProgress aria-label={t('common.loading')} />;
  if (!tariffs.data || !available.data)
    return <Alert severity="error">{apiErrorMessage(tariffs.error ?? available.error, t)}</Alert>;
  const info = tariffs.data;
  const av = available.data;

  const choose = async (plan: TPurchasablePlan) => {
    setError(null);
    try {
      const link = await checkout({ plan, period, promo_code: promo.trim() || undefined }).unwrap();
      setTariffMarker(plan);
      openCheckout(link.url);
    } catch (e) {
      setError(apiErrorMessage(e, t));
    }
  };

  return (
    <Box>
      <PageTitle title={t('billing.choosePlan')} />
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 3, alignItems: { md: 'center' } }}>
        <ToggleButtonGroup
          exclusive
          value={period}
          onChange={(_e, v: TBillingPeriod | null) => v && setPeriod(v)}
          aria-label={t('billing.period')}
          size="small"
        >
          <ToggleButton value="monthly">{t('billing.monthly')}</ToggleButton>
          <ToggleButton value="yearly">{t('billing.yearly')}</ToggleButton>
        </ToggleButtonGroup>
        <TextField
          size="small"
          label={t('billing.promoCode')}
          value={promo}
          onChange={(e) => setPromo(e.target.value)}
          helperText={t('billing.promoHint')}
          slotProps={{ htmlInput: { maxLength: 64 } }}
        />
      </Stack>
      {error && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }}>
          {error}
        </Alert>
      )}
      <Grid container spacing={2}>
        {PLAN_KEYS.map((key) => {
          const tariff = info.tariffs[key];
          if (!tariff) return null;
          const purchasable = (av.available as readonly string[]).includes(key);
          return (
            <Grid key={key} size={{ xs: 12, sm: 6, lg: 4, xl: 'grow' }}>
              <PlanCard
                tariff={tariff}
                period={period}
                currency={info.currency}
                current={av.current === key}
                purchasable={purchasable}
                busy={isLoading}
                onChoose={() => void choose(key as TPurchasablePlan)}
              />
            </Grid>
          );
        })}
      </Grid>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
        {t('billing.enterpriseNote')}
      </Typography>
    </Box>
  );
}
