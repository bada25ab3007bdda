import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Link as MuiLink,
  Stack,
  Step,
  StepLabel,
  Stepper,
  Typography,
} from '@mui/material';
import { PLAN_NAMES, SCAN_SUBCLASS_VALUES, type TScan, type TTarget } from '@perimeter/contracts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../auth/index.ts';
import { OneTimeScanPayment } from '../../billing/index.ts';
import { useStartScanMutation } from '../../scans/index.ts';
import { useCreateScanMutation } from '../api/create-scan.ts';
import { useOneTimePayment } from '../hooks/use-one-time-payment.ts';
import { createScanBody, planOf, type TScanChoice } from '../new-scan-fns.ts';
import { ApiErrorAlert } from './api-error-alert.tsx';
import { ScanTypeStep } from './scan-type-step.tsx';
import { TargetStep } from './target-step.tsx';
import { VerificationStep } from './verification-step.tsx';

type TStepKey = 'target' | 'verification' | 'scanType' | 'payment' | 'review';

function scanPath(id: string) {
  return paths.scanDetail.replace(':scanId', encodeURIComponent(id));
}

/** /scans: the new-scan stepper of spec §2 (settings, verification, scan type, card, create). */
export function NewScanPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const plan = planOf(user?.tariffs);
  const payment = useOneTimePayment(plan);
  const navigate = useNavigate();

  const [active, setActive] = useState<TStepKey>('target');
  const [target, setTarget] = useState<TTarget | null>(null);
  const [choice, setChoice] = useState<TScanChoice>({ scanType: 'full' });
  const [paid, setPaid] = useState(false);
  const [skippedVerification, setSkippedVerification] = useState(false);
  const [emptyTried, setEmptyTried] = useState(false);
  const [create, created] = useCreateScanMutation();
  const [start, started] = useStartScanMutation();
  const [createdScan, setCreatedScan] = useState<TScan | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  // A created scan has used its payment already (the server binds it at creation): starting it, or
  // retrying a refused start, needs no card even though the count of unused payments went down.
  const needsPayment = payment.needed && !paid && !createdScan;
  const steps: TStepKey[] = [
    'target',
    'verification',
    'scanType',
    'review',
    ...(needsPayment || paid ? (['payment'] as const) : []),
  ];
  const index = Math.max(0, steps.indexOf(active));
  const isVerified = !!target?.verified;

  const firstRender = useRef(true);
  useEffect(() => {
    // Moves focus to the new step's heading for keyboard and screen-reader users (not on page load).
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    if (active) heading.current?.focus();
  }, [active]);

  const go = (key: TStepKey) => setActive(key);
  const back = () => {
    const prev = steps[index - 1];
    if (prev === 'verification' && skippedVerification) go('target');
    else if (prev) go(prev);
  };
  const afterScanType = () => {
    if (
      choice.scanType === 'custom' &&
      (choice.subclasses.length === 0 || choice.templates?.severities?.length === 0)
    ) {
      setEmptyTried(true);
      return;
    }
    go('review');
  };

  const submit = async (andStart: boolean) => {
    if (!target) return;
    started.reset();
    try {
      const scan =
        createdScan ??
        (await create(
          createScanBody({ target_type: target.target_type, user_target_id: target.user_target_id }, choice),
        ).unwrap());
      setCreatedScan(scan);
      if (andStart) await start(scan.id).unwrap();
      navigate(scanPath(scan.id));
    } catch {
      // Shown from the mutations' errors.
    }
  };

  const title = (key: TStepKey) => t(`newScan.steps.${key}`);
  const submitErrors = (
    <>
      {created.isError && <ApiErrorAlert error={created.error} />}
      {started.isError && createdScan && (
        <ApiErrorAlert error={started.error}>
          <Typography variant="body2" sx={{ mt: 1 }}>
            {t('newScan.review.createdNotStarted')}{' '}
            <MuiLink component={Link} to={scanPath(createdScan.id)}>
              {t('newScan.review.openScan')}
            </MuiLink>
          </Typography>
        </ApiErrorAlert>
      )}
    </>
  );

  return (
    <>
      <PageTitle title={t('newScan.title')} />
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {t('newScan.intro', { plan: PLAN_NAMES[plan] })}
      </Typography>
      <Stepper activeStep={index} alternativeLabel sx={{ mb: 3 }} aria-label={t('newScan.stepsLabel')}>
        {steps.map((key, i) => (
          <Step key={key} completed={i < index}>
            <StepLabel
              optional={
                key === 'verification' && skippedVerification ? (
                  <Typography variant="caption">{t('newScan.verify.skipped')}</Typography>
                ) : undefined
              }
            >
              {title(key)}
            </StepLabel>
          </Step>
        ))}
      </Stepper>
      <Card>
        <CardContent>
          <Stack spacing={3}>
            <Typography
              ref={heading}
              tabIndex={-1}
              variant="h3"
              component="h2"
              sx={{ outline: 'none' }}
              aria-live="polite"
            >
              {t('newScan.stepOf', { n: index + 1, total: steps.length, title: title(active) })}
            </Typography>

            {active === 'target' && (
              <TargetStep
                selected={target}
                onSelect={setTarget}
                onNext={(tg) => {
                  setTarget(tg);
                  setCreatedScan(null);
                  setSkippedVerification(tg.verified);
                  go(tg.verified ? 'scanType' : 'verification');
                }}
              />
            )}

            {active === 'verification' && target && (
              <>
                <VerificationStep
                  target={target}
                  onVerified={(res) => setTarget({ ...target, verified: true, verified_at: res.checked_at })}
                />
                <Nav onBack={back} onNext={() => go('scanType')} nextDisabled={!isVerified} />
              </>
            )}

            {active === 'scanType' && (
              <>
                <ScanTypeStep
                  plan={plan}
                  choice={choice}
                  onChange={(c) => {
                    setChoice(c);
                    setCreatedScan(null);
                  }}
                  showEmptyError={emptyTried}
                />
                {payment.isLoading && (
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} role="status">
                    <CircularProgress size={18} aria-hidden />
                    <Typography variant="body2">{t('newScan.payment.loading')}</Typography>
                  </Stack>
                )}
                {payment.isError && (
                  <ApiErrorAlert error={payment.error}>
                    <Box sx={{ mt: 1 }}>
                      <Button size="small" onClick={payment.refetch}>
                        {t('newScan.retry')}
                      </Button>
                    </Box>
                  </ApiErrorAlert>
                )}
                <Nav
                  onBack={back}
                  onNext={afterScanType}
                  nextDisabled={payment.isLoading || payment.isError}
                />
              </>
            )}

            {active === 'review' && target && (
              <Stack spacing={2.5}>
                <Box
                  component="dl"
                  sx={{
                    m: 0,
                    display: 'grid',
                    gridTemplateColumns: 'max-content 1fr',
                    columnGap: 3,
                    rowGap: 1,
                  }}
                >
                  <Typography component="dt" color="text.secondary">
                    {t('newScan.review.target')}
                  </Typography>
                  <Typography component="dd" sx={{ m: 0 }}>
                    <bdi>{target.display_name}</bdi> ({t(`newScan.targetType.${target.target_type}`)})
                  </Typography>
                  <Typography component="dt" color="text.secondary">
                    {t('newScan.review.verification')}
                  </Typography>
                  <Typography component="dd" sx={{ m: 0 }}>
                    {t('newScan.target.verified')}
                  </Typography>
                  <Typography component="dt" color="text.secondary">
                    {t('newScan.review.scanType')}
                  </Typography>
                  <Typography component="dd" sx={{ m: 0 }}>
                    {choice.scanType === 'full'
                      ? t('newScan.scanType.full')
                      : `${t('newScan.scanType.custom')}: ${SCAN_SUBCLASS_VALUES.filter((s) =>
                          choice.subclasses.includes(s),
                        )
                          .map((s) => t(`newScan.subclass.${s}.name`))
                          .join(', ')}`}
                  </Typography>
                  <Typography component="dt" color="text.secondary">
                    {t('newScan.review.plan')}
                  </Typography>
                  <Typography component="dd" sx={{ m: 0 }}>
                    {PLAN_NAMES[plan]}
                  </Typography>
                </Box>
                <Typography variant="body2" color="text.secondary">
                  {t('newScan.review.help')}
                </Typography>
                {submitErrors}
                <Stack direction="row" spacing={1.5} sx={{ flexWrap: 'wrap', rowGap: 1.5 }}>
                  <Button variant="outlined" onClick={back} disabled={created.isLoading || started.isLoading}>
                    {t('newScan.back')}
                  </Button>
                  {/* Without an unused payment the server refuses the creation itself (403). */}
                  {!needsPayment && (
                    <Button
                      variant="outlined"
                      onClick={() => void submit(false)}
                      disabled={started.isLoading}
                      loading={created.isLoading && !started.isLoading && !createdScan}
                    >
                      {t('newScan.review.createOnly')}
                    </Button>
                  )}
                  {needsPayment ? (
                    <Button variant="contained" onClick={() => go('payment')} disabled={created.isLoading}>
                      {t('newScan.review.toPayment')}
                    </Button>
                  ) : (
                    <Button
                      variant="contained"
                      onClick={() => void submit(true)}
                      disabled={created.isLoading && !started.isLoading}
                      loading={started.isLoading}
                    >
                      {t('newScan.review.createAndStart')}
                    </Button>
                  )}
                </Stack>
              </Stack>
            )}

            {active === 'payment' && (
              <Stack spacing={2.5}>
                {paid ? (
                  <Alert severity="success">{t('newScan.payment.paid')}</Alert>
                ) : (
                  <OneTimeScanPayment
                    onPaid={() => {
                      setPaid(true);
                      void submit(true);
                    }}
                  />
                )}
                {(created.isLoading || started.isLoading) && (
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} role="status">
                    <CircularProgress size={18} aria-hidden />
                    <Typography variant="body2">{t('newScan.payment.starting')}</Typography>
                  </Stack>
                )}
                {submitErrors}
                <Stack direction="row" spacing={1.5} sx={{ flexWrap: 'wrap', rowGap: 1.5 }}>
                  <Button variant="outlined" onClick={back} disabled={created.isLoading || started.isLoading}>
                    {t('newScan.back')}
                  </Button>
                  {paid && (
                    <Button
                      variant="contained"
                      onClick={() => void submit(true)}
                      loading={created.isLoading || started.isLoading}
                    >
                      {t('newScan.review.createAndStart')}
                    </Button>
                  )}
                </Stack>
              </Stack>
            )}
          </Stack>
        </CardContent>
      </Card>
    </>
  );
}

function Nav({
  onBack,
  onNext,
  nextDisabled = false,
}: {
  onBack: () => void;
  onNext?: () => void;
  nextDisabled?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Stack direction="row" spacing={1.5}>
      <Button variant="outlined" onClick={onBack}>
        {t('newScan.back')}
      </Button>
      {onNext && (
        <Button variant="contained" onClick={onNext} disabled={nextDisabled}>
          {t('newScan.next')}
        </Button>
      )}
    </Stack>
  );
}
