import { zodResolver } from '@hookform/resolvers/zod';
import ContentCopyOutlined from '@mui/icons-material/ContentCopyOutlined';
import DownloadOutlined from '@mui/icons-material/DownloadOutlined';
import {
  Box,
  Button,
  Link,
  List,
  ListItem,
  Stack,
  Step,
  StepLabel,
  Stepper,
  Typography,
} from '@mui/material';
import { type TTotpCodeBody, type TTwoFactorActivateResponse, ZTotpCodeBody } from '@perimeter/contracts';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import type { z } from 'zod';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { applyServerErrors, FormAlert, FormTextField } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useActivateTwoFactorMutation, useAuth, useConfirmTwoFactorMutation } from '../../auth/index.ts';

export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

export function downloadText(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  URL.revokeObjectURL(url);
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation();
  const notify = useNotify();
  const text = codes.join('\n');
  return (
    <Stack spacing={2}>
      <FormAlert severity="warning" message={t('twoFactor.codesWarning')} />
      <List
        dense
        data-testid="recovery-codes"
        sx={{ columns: 2, fontFamily: 'monospace', bgcolor: 'action.hover', borderRadius: 1, p: 1 }}
      >
        {codes.map((c) => (
          <ListItem key={c} sx={{ fontFamily: 'monospace', fontSize: 16 }}>
            {c}
          </ListItem>
        ))}
      </List>
      <Stack direction="row" spacing={1}>
        <Button
          startIcon={<ContentCopyOutlined />}
          variant="outlined"
          onClick={async () => {
            await navigator.clipboard.writeText(text);
            notify({ message: t('twoFactor.copied'), alert: { color: 'success', variant: 'filled' } });
          }}
        >
          {t('twoFactor.copy')}
        </Button>
        <Button
          startIcon={<DownloadOutlined />}
          variant="outlined"
          onClick={() =>
            downloadText('perimeter-recovery-codes.txt', `${t('twoFactor.codesFileHeader')}\n\n${text}\n`)
          }
        >
          {t('twoFactor.download')}
        </Button>
      </Stack>
      <Button variant="contained" size="large" onClick={onDone} data-testid="codes-continue">
        {t('twoFactor.savedContinue')}
      </Button>
    </Stack>
  );
}

export function TwoFactorSetupPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const navigate = useNavigate();
  const [activate, { isLoading: activating }] = useActivateTwoFactorMutation();
  const [confirm] = useConfirmTwoFactorMutation();
  const [setup, setSetup] = useState<TTwoFactorActivateResponse | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setFormError] = useState<string | null>(null);
  const { control, handleSubmit, setError, formState } = useForm<
    TTotpCodeBody,
    unknown,
    z.output<typeof ZTotpCodeBody>
  >({
    resolver: zodResolver(ZTotpCodeBody),
    defaultValues: { code: '' },
  });
  const step = codes ? 2 : setup ? 1 : 0;
  const alreadyEnabled = auth.user?.metadata['2fa_enable'] && !codes;

  const onConfirm = handleSubmit(async (values) => {
    setFormError(null);
    try {
      const res = await confirm(values).unwrap();
      setCodes(res.recovery_codes);
    } catch (e) {
      setFormError(applyServerErrors(e, setError, ['code'], t));
    }
  });

  if (alreadyEnabled) {
    return (
      <AuthCard title={t('twoFactor.title')}>
        <Stack spacing={2}>
          <FormAlert severity="success" message={t('twoFactor.alreadyEnabled')} />
          <Button component={RouterLink} to={paths.twoFactorReset} variant="outlined">
            {t('twoFactor.resetLink')}
          </Button>
        </Stack>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t('twoFactor.title')} subtitle={t('twoFactor.subtitle')}>
      <Stepper activeStep={step} alternativeLabel sx={{ mb: 3 }}>
        {(['stepStart', 'stepScan', 'stepCodes'] as const).map((s) => (
          <Step key={s}>
            <StepLabel>{t(`twoFactor.${s}`)}</StepLabel>
          </Step>
        ))}
      </Stepper>
      <FormAlert message={error} />
      {step === 0 && (
        <Stack spacing={2}>
          <Typography>{t('twoFactor.intro')}</Typography>
          <Typography variant="body2" color="text.secondary">
            {t('twoFactor.apps')}
          </Typography>
          <Button
            variant="contained"
            size="large"
            disabled={activating}
            data-testid="twofa-start"
            onClick={async () => {
              setFormError(null);
              try {
                setSetup(await activate().unwrap());
              } catch (e) {
                setFormError(apiErrorMessage(e, t));
              }
            }}
          >
            {t('twoFactor.start')}
          </Button>
        </Stack>
      )}
      {step === 1 && setup && (
        <Stack component="form" spacing={2.5} noValidate onSubmit={onConfirm}>
          <Typography>{t('twoFactor.scan')}</Typography>
          <Box sx={{ alignSelf: 'center', bgcolor: '#fff', p: 1, borderRadius: 1 }}>
            <img src={setup.qr_code} alt={t('twoFactor.qrAlt')} width={200} height={200} />
          </Box>
          <Typography variant="body2">{t('twoFactor.manual')}</Typography>
          <Typography
            component="code"
            data-testid="totp-secret"
            data-secret={setup.secret}
            sx={{
              fontFamily: 'monospace',
              fontSize: 18,
              textAlign: 'center',
              wordBreak: 'break-all',
              userSelect: 'all',
            }}
          >
            {groupSecret(setup.secret)}
          </Typography>
          <Link
            href={setup.otpauth_url}
            variant="body2"
            sx={{ textAlign: 'center' }}
            data-testid="otpauth-link"
          >
            {t('twoFactor.openInApp')}
          </Link>
          <FormTextField
            control={control}
            name="code"
            label={t('fields.totpCode')}
            autoComplete="one-time-code"
            slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
          />
          <Button
            type="submit"
            variant="contained"
            size="large"
            disabled={formState.isSubmitting}
            data-testid="twofa-confirm"
          >
            {t('twoFactor.confirm')}
          </Button>
        </Stack>
      )}
      {step === 2 && codes && (
        <RecoveryCodes
          codes={codes}
          onDone={async () => {
            await auth.refreshUser();
            await navigate(paths.home);
          }}
        />
      )}
    </AuthCard>
  );
}
