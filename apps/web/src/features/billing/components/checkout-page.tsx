import { Alert, Box, Card, CardContent, CircularProgress, Divider, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { readApiError } from '../../../lib/api-client.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useGetCheckoutSessionQuery } from '../api/get-checkout-session.ts';
import { usePayLocalCheckoutMutation } from '../api/pay-local-checkout.ts';
import { CardForm, type CardFormProps } from './card-form.tsx';
import { formatMoney, planName } from './plan-text.ts';

/** /checkout/:sessionId — the local provider's card step. */
export function CheckoutPage() {
  const { t, i18n } = useTranslation();
  const { sessionId = '' } = useParams();
  const navigate = useNavigate();
  const session = useGetCheckoutSessionQuery(sessionId, { skip: !sessionId });
  const [pay, { isLoading }] = usePayLocalCheckoutMutation();
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<CardFormProps['fieldErrors']>({});

  if (session.isLoading) return <CircularProgress aria-label={t('common.loading')} />;
  if (!session.data) return <Alert severity="error">{apiErrorMessage(session.error, t)}</Alert>;
  const s = session.data;
  const money = (n: number) => formatMoney(n, s.currency, i18n.language);

  return (
    <Box sx={{ maxWidth: 560 }}>
      <PageTitle title={t('billing.checkout.title')} />
      <Card>
        <CardContent>
          <Stack spacing={1} sx={{ mb: 2 }}>
            <Typography variant="h3" component="h2">
              {planName(t, s.plan)}
              {s.mode === 'subscription' ? ` · ${t(`billing.${s.period}`)}` : ` · ${t('billing.oneTime')}`}
            </Typography>
            {s.discount > 0 && (
              <Typography variant="body2" color="text.secondary">
                {t('billing.checkout.discount', { code: s.promo_code ?? '', amount: money(s.discount) })}
              </Typography>
            )}
            <Typography variant="h2" component="p">
              {t('billing.checkout.total', { amount: money(s.amount) })}
            </Typography>
          </Stack>
          <Divider sx={{ mb: 2 }} />
          {s.status === 'complete' ? (
            <Alert severity="success">{t('billing.checkout.alreadyPaid')}</Alert>
          ) : s.status === 'expired' ? (
            <Alert severity="warning">{t('billing.checkout.expired')}</Alert>
          ) : (
            <>
              {s.status === 'failed' && s.failure_reason && (
                <Alert severity="warning" sx={{ mb: 2 }}>
                  {s.failure_reason}
                </Alert>
              )}
              <Alert severity="info" sx={{ mb: 2 }}>
                {t('billing.checkout.testCards')}
              </Alert>
              <CardForm
                busy={isLoading}
                error={error}
                fieldErrors={fieldErrors}
                submitLabel={t('billing.checkout.pay', { amount: money(s.amount) })}
                onSubmit={async (values) => {
                  setError(null);
                  setFieldErrors({});
                  try {
                    await pay({ ...values, session_id: s.id }).unwrap();
                    navigate(`/post-payment?session_id=${encodeURIComponent(s.id)}`);
                  } catch (e) {
                    const fields = readApiError(e)?.fields ?? {};
                    setFieldErrors(
                      Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v[0] ?? ''])),
                    );
                    setError(apiErrorMessage(e, t));
                  }
                }}
              />
            </>
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
