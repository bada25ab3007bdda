import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableRow,
  Typography,
} from '@mui/material';
import { PLAN_LIMITS } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAuth, useDateFormat } from '../../auth/index.ts';
import { useCancelSubscriptionMutation } from '../api/cancel-subscription.ts';
import { useGetBillingStateQuery } from '../api/get-billing-state.ts';
import { useCongratulations } from '../hooks/use-congratulations.ts';
import { CongratulationsModal } from './congratulations-modal.tsx';
import { planName } from './plan-text.ts';

/** /account/plan — current plan, its limits and usage, change or cancel. */
export function AccountPlanPage() {
  const { t } = useTranslation();
  const notify = useNotify();
  const { refreshUser } = useAuth();
  const congrats = useCongratulations();
  const state = useGetBillingStateQuery();
  const [cancel, { isLoading: cancelling }] = useCancelSubscriptionMutation();
  const [confirmOpen, setConfirmOpen] = useState(false);

  const dayFmt = useDateFormat({ dateStyle: 'medium' });
  if (state.isLoading) return <CircularProgress aria-label={t('common.loading')} />;
  if (!state.data) return <Alert severity="error">{apiErrorMessage(state.error, t)}</Alert>;
  const s = state.data;
  const limits = PLAN_LIMITS[s.plan];
  const date = (iso: string) => dayFmt.format(new Date(iso));
  const unlimited = t('billing.byRequest');
  const oneTimeLeft = s.usage.one_time_scans_left ?? 0;
  const rows: [string, string][] = [
    [t('billing.limits.domains'), `${s.usage.domains} / ${limits.domains ?? unlimited}`],
    [t('billing.limits.externalIps'), `${s.usage.external_ips} / ${limits.externalIps}`],
    [t('billing.limits.subdomains'), String(limits.subdomains)],
    // try_it has no monthly allowance: each scan uses one paid one-time payment.
    ...((limits.oneTimeScan
      ? [
          [t('billing.limits.scans'), t('billing.limits.oneTimeScan')],
          [t('billing.limits.oneTimeScansLeft'), String(oneTimeLeft)],
        ]
      : [
          [
            t('billing.limits.scansPerMonth'),
            `${s.usage.scans_this_month} / ${limits.scansPerMonth ?? unlimited}`,
          ],
        ]) satisfies [string, string][]),
    [t('billing.limits.customScans'), limits.customScanConfig ? t('billing.yes') : t('billing.no')],
  ];
  const sub = s.subscription;
  const live = sub && (sub.status === 'active' || sub.status === 'past_due');

  return (
    <Box sx={{ maxWidth: 720 }}>
      <PageTitle title={t('billing.account.title')} />
      <Card>
        <CardContent>
          <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
            {t('billing.account.current', { name: planName(t, s.plan) })}
          </Typography>
          {sub && live && (
            <Typography color="text.secondary" sx={{ mb: 1 }}>
              {sub.cancel_at_period_end && sub.current_period_end
                ? t('billing.account.endsOn', { date: date(sub.current_period_end) })
                : sub.current_period_end
                  ? t('billing.account.renewsOn', {
                      period: t(`billing.${sub.period}`),
                      date: date(sub.current_period_end),
                    })
                  : t(`billing.${sub.period}`)}
            </Typography>
          )}
          {sub?.status === 'past_due' && (
            <Alert severity="warning" sx={{ mb: 1 }}>
              {t('billing.account.pastDue')}
            </Alert>
          )}
          <Table size="small" aria-label={t('billing.account.limitsTitle')} sx={{ my: 2 }}>
            <TableBody>
              {rows.map(([label, value]) => (
                <TableRow key={label}>
                  <TableCell component="th" scope="row">
                    {label}
                  </TableCell>
                  <TableCell>{value}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          {limits.oneTimeScan && oneTimeLeft < 1 && (
            <Alert severity="info" sx={{ mb: 2 }}>
              {t('billing.limits.noneLeft')}
            </Alert>
          )}
          <Stack direction="row" spacing={2}>
            <Button variant="contained" component={RouterLink} to={paths.accountPlanChoose}>
              {t('billing.account.change')}
            </Button>
            {live && !sub.cancel_at_period_end && (
              <Button color="error" onClick={() => setConfirmOpen(true)}>
                {t('billing.account.cancel')}
              </Button>
            )}
          </Stack>
        </CardContent>
      </Card>
      <Dialog open={confirmOpen} onClose={() => setConfirmOpen(false)} aria-labelledby="cancel-title">
        <DialogTitle id="cancel-title">{t('billing.account.cancelTitle')}</DialogTitle>
        <DialogContent>
          <Typography>{t('billing.account.cancelText')}</Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirmOpen(false)}>{t('billing.account.keep')}</Button>
          <Button
            color="error"
            disabled={cancelling}
            onClick={async () => {
              try {
                await cancel().unwrap();
                setConfirmOpen(false);
                void refreshUser();
                notify({
                  message: t('billing.account.cancelled'),
                  alert: { color: 'success', variant: 'filled' },
                });
              } catch (e) {
                notify({ message: apiErrorMessage(e, t), alert: { color: 'error', variant: 'filled' } });
              }
            }}
          >
            {t('billing.account.cancel')}
          </Button>
        </DialogActions>
      </Dialog>
      <CongratulationsModal plan={congrats.plan} onClose={congrats.dismiss} />
    </Box>
  );
}
