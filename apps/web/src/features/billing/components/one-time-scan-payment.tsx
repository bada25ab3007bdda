import { Alert, Stack, Typography } from '@mui/material';
import { TARIFFS, type TCheckoutSession } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { readApiError } from '../../../lib/api-client.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAuth } from '../../auth/index.ts';
import { useGetCheckoutSessionsLinkMutation } from '../api/get-checkout-sessions-link.ts';
import { usePayLocalCheckoutMutation } from '../api/pay-local-checkout.ts';
import { setTariffMarker } from '../hooks/tariff-marker.ts';
import { CardForm, type CardFormProps } from './card-form.tsx';
import { useOpenCheckout } from './choose-plan-page.tsx';

/**
 * The card step of the new-scan flow for a one-time scan (try_it): with the local provider the card form
 * pays in place and `onPaid` runs; with Stripe the user is sent to Stripe Checkout.
 */
export function OneTimeScanPayment({ onPaid }: { onPaid: (session: TCheckoutSession) => void }) {
  const { t } = useTranslation();
  const { refreshUser, user } = useAuth();
  const [link] = useGetCheckoutSessionsLinkMutation();
  const [pay, { isLoading }] = usePayLocalCheckoutMutation();
  const openCheckout = useOpenCheckout();
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<CardFormProps['fieldErrors']>({});
  const price = TARIFFS.try_it.price.yearly;

  return (
    <Stack spacing={2}>
      <Typography variant="h3" component="h2">
        {t('billing.oneTimeScan.title')}
      </Typography>
      <Typography color="text.secondary">{t('billing.oneTimeScan.text', { price })}</Typography>
      <Alert severity="info">{t('billing.oneTimeScan.hidden')}</Alert>
      <CardForm
        busy={isLoading}
        error={error}
        fieldErrors={fieldErrors}
        submitLabel={t('billing.oneTimeScan.pay')}
        onSubmit={async (values) => {
          setError(null);
          setFieldErrors({});
          try {
            const session = await link({ plan: 'try_it', period: 'monthly' }).unwrap();
            // The Congratulations modal is for a plan change, not for each further one-time payment.
            if (user?.tariffs[0]?.key !== 'try_it') setTariffMarker('try_it');
            if (!session.url.includes('/checkout/')) {
              openCheckout(session.url);
              return;
            }
            const paid = await pay({ ...values, session_id: session.session_id }).unwrap();
            if (paid.status !== 'complete') {
              setError(paid.failure_reason ?? t('billing.post.failed'));
              return;
            }
            await refreshUser();
            onPaid(paid);
          } catch (e) {
            const fields = readApiError(e)?.fields ?? {};
            setFieldErrors(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v[0] ?? ''])));
            setError(apiErrorMessage(e, t));
          }
        }}
      />
    </Stack>
  );
}
