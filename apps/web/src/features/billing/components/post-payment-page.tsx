import { Alert, Box, Button, Card, CardContent, CircularProgress, Stack, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../auth/index.ts';
import { useGetCheckoutSessionQuery } from '../api/get-checkout-session.ts';
import { useCongratulations } from '../hooks/use-congratulations.ts';
import { CongratulationsModal } from './congratulations-modal.tsx';
import { planName } from './plan-text.ts';

export const POLL_MS = 2000;

/** /post-payment?session_id=… — success, pending or failed; waits for the provider-confirmed plan. */
export function PostPaymentPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const sessionId = params.get('session_id') ?? '';
  const { user, refreshUser } = useAuth();
  const congrats = useCongratulations();
  const session = useGetCheckoutSessionQuery(sessionId, { skip: !sessionId, pollingInterval: POLL_MS });
  const s = session.data;
  const confirmed = !!s && s.status === 'complete' && user?.tariffs[0]?.key === s.plan;
  const settled = confirmed || s?.status === 'failed' || s?.status === 'expired';

  // Until the plan is confirmed (webhook for Stripe, at once for the local provider), re-read the user.
  useEffect(() => {
    if (s?.status !== 'complete' || confirmed) return;
    void refreshUser();
    const timer = setInterval(() => void refreshUser(), POLL_MS);
    return () => clearInterval(timer);
  }, [s, confirmed, refreshUser]);
  useEffect(() => {
    if (confirmed) congrats.recheck();
  }, [confirmed, congrats.recheck]);

  let body: React.ReactNode;
  if (!sessionId) body = <Alert severity="info">{t('billing.post.noSession')}</Alert>;
  else if (session.isError) body = <Alert severity="error">{t('billing.post.notFound')}</Alert>;
  else if (confirmed && s)
    body = (
      <Alert severity="success" role="status">
        {t('billing.post.success', { name: planName(t, s.plan) })}
      </Alert>
    );
  else if (s?.status === 'failed')
    body = (
      <Alert severity="error" role="alert">
        {t('billing.post.failed')} {s.failure_reason}
      </Alert>
    );
  else if (s?.status === 'expired') body = <Alert severity="warning">{t('billing.checkout.expired')}</Alert>;
  else
    body = (
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }} role="status">
        <CircularProgress size={24} aria-hidden />
        <Typography>{t('billing.post.pending')}</Typography>
      </Stack>
    );

  return (
    <Box sx={{ maxWidth: 640 }}>
      <PageTitle title={t('billing.post.title')} />
      <Card>
        <CardContent>
          {body}
          {(settled || !sessionId) && (
            <Stack direction="row" spacing={2} sx={{ mt: 2 }}>
              {s?.status === 'failed' && s.provider === 'local' ? (
                <Button
                  variant="contained"
                  component={RouterLink}
                  to={`/checkout/${encodeURIComponent(s.id)}`}
                >
                  {t('billing.post.tryAgain')}
                </Button>
              ) : null}
              <Button
                variant={confirmed ? 'contained' : 'outlined'}
                component={RouterLink}
                to={paths.accountPlan}
              >
                {t('billing.post.toPlan')}
              </Button>
              {!confirmed && (
                <Button component={RouterLink} to={paths.choosePlan}>
                  {t('billing.choosePlan')}
                </Button>
              )}
            </Stack>
          )}
        </CardContent>
      </Card>
      <CongratulationsModal plan={congrats.plan} onClose={congrats.dismiss} />
    </Box>
  );
}
