import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useDateFormat } from '../../auth/index.ts';
import { useGetBillingPortalLinkMutation } from '../api/get-billing-portal-link.ts';
import { useGetBillingStateQuery } from '../api/get-billing-state.ts';
import { formatMoney } from './plan-text.ts';

/** /account/payment — payment method and invoices; Stripe's customer portal when Stripe is used. */
export function PaymentPage() {
  const { t, i18n } = useTranslation();
  const dayFmt = useDateFormat({ dateStyle: 'medium' });
  const state = useGetBillingStateQuery();
  const [portal, { isLoading, error: portalError }] = useGetBillingPortalLinkMutation();
  if (state.isLoading) return <CircularProgress aria-label={t('common.loading')} />;
  if (!state.data) return <Alert severity="error">{apiErrorMessage(state.error, t)}</Alert>;
  const s = state.data;
  return (
    <Box sx={{ maxWidth: 900 }}>
      <PageTitle title={t('billing.payment.title')} />
      <Card sx={{ mb: 2 }}>
        <CardContent>
          <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
            {t('billing.payment.method')}
          </Typography>
          <Typography data-testid="payment-card">
            {s.card
              ? t('billing.payment.card', { brand: s.card.brand.toUpperCase(), last4: s.card.last4 })
              : t('billing.payment.noCard')}
          </Typography>
          {s.provider === 'stripe' && (
            <Button
              sx={{ mt: 2 }}
              variant="contained"
              disabled={isLoading}
              onClick={async () => {
                const res = await portal()
                  .unwrap()
                  .catch(() => null);
                if (res) window.location.assign(res.url);
              }}
            >
              {t('billing.payment.portal')}
            </Button>
          )}
          {portalError && <Alert severity="error">{apiErrorMessage(portalError, t)}</Alert>}
        </CardContent>
      </Card>
      <Card>
        <CardContent>
          <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
            {t('billing.payment.invoices')}
          </Typography>
          {s.invoices.length === 0 ? (
            <Typography color="text.secondary">{t('billing.payment.noInvoices')}</Typography>
          ) : (
            <Table size="small" aria-label={t('billing.payment.invoices')}>
              <TableHead>
                <TableRow>
                  <TableCell>{t('billing.payment.date')}</TableCell>
                  <TableCell>{t('billing.payment.description')}</TableCell>
                  <TableCell>{t('billing.payment.amount')}</TableCell>
                  <TableCell>{t('billing.payment.status')}</TableCell>
                  <TableCell>{t('billing.payment.method')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {s.invoices.map((inv) => (
                  <TableRow key={inv.id}>
                    <TableCell>{dayFmt.format(new Date(inv.created_at))}</TableCell>
                    <TableCell>{inv.description}</TableCell>
                    <TableCell>{formatMoney(inv.amount, inv.currency, i18n.language)}</TableCell>
                    <TableCell>{t(`billing.payment.${inv.status}`)}</TableCell>
                    <TableCell>{inv.card ?? '—'}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
