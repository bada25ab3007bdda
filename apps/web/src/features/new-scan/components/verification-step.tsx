import { Alert, AlertTitle, Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import type { TTarget, TVerificationResult } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCheckVerificationMutation } from '../api/check-verification.ts';
import { useGetVerificationTxtQuery } from '../api/get-verification-txt.ts';
import { ApiErrorAlert } from './api-error-alert.tsx';
import { CopyField } from './copy-field.tsx';

/** Step 2: what to publish to prove ownership, and the check with what to fix when it fails. */
export function VerificationStep({
  target,
  onVerified,
}: {
  target: TTarget;
  onVerified: (result: TVerificationResult) => void;
}) {
  const { t } = useTranslation();
  const ref = { target_type: target.target_type, user_target_id: target.user_target_id };
  // Decided once: a target verified in this step keeps its record on screen next to the result.
  const [wasVerified] = useState(target.verified);
  const txt = useGetVerificationTxtQuery(ref, { skip: wasVerified });
  const [check, checking] = useCheckVerificationMutation();
  const [result, setResult] = useState<TVerificationResult | null>(null);

  if (target.verified && !result) {
    return (
      <Alert severity="success" role="status">
        {t('newScan.verify.alreadyVerified', { target: target.display_name })}
      </Alert>
    );
  }
  if (txt.isLoading) {
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} role="status">
        <CircularProgress size={20} aria-hidden />
        <Typography>{t('newScan.verify.loading')}</Typography>
      </Stack>
    );
  }
  if (txt.isError || !txt.data) {
    return (
      <ApiErrorAlert error={txt.error}>
        <Box sx={{ mt: 1 }}>
          <Button size="small" onClick={() => void txt.refetch()}>
            {t('newScan.retry')}
          </Button>
        </Box>
      </ApiErrorAlert>
    );
  }
  const data = txt.data;
  const isFile = target.target_type === 'peer';

  const runCheck = async () => {
    setResult(null);
    try {
      const res = await check(ref).unwrap();
      setResult(res);
      if (res.verified) onVerified(res);
    } catch {
      // Shown from the mutation's error below.
    }
  };

  return (
    <Stack spacing={2.5}>
      <Typography>
        {isFile
          ? t('newScan.verify.fileIntro', { target: target.display_name })
          : t('newScan.verify.txtIntro', { target: target.display_name })}
      </Typography>
      {isFile ? (
        <Stack spacing={2}>
          {data.file_urls.map((url, i) => (
            <CopyField key={url} label={t('newScan.verify.fileUrl', { n: i + 1 })} value={url} />
          ))}
          <CopyField label={t('newScan.verify.fileContent')} value={data.value} />
        </Stack>
      ) : (
        <Stack spacing={2}>
          <Typography variant="body2" color="text.secondary">
            {t('newScan.verify.recordNamesHint')}
          </Typography>
          {data.record_names.map((name, i) => (
            <CopyField key={name} label={t('newScan.verify.recordName', { n: i + 1 })} value={name} />
          ))}
          <CopyField label={t('newScan.verify.recordType')} value="TXT" />
          <CopyField label={t('newScan.verify.recordValue')} value={data.value} />
        </Stack>
      )}
      <Box>
        <Button variant="outlined" onClick={() => void runCheck()} loading={checking.isLoading}>
          {t('newScan.verify.check')}
        </Button>
      </Box>
      <Box aria-live="polite">
        {result?.verified && (
          <Alert severity="success">
            <AlertTitle>{t('newScan.verify.passed')}</AlertTitle>
            {result.detail}
          </Alert>
        )}
        {result && !result.verified && (
          <Alert severity="warning">
            <AlertTitle>{t('newScan.verify.failed')}</AlertTitle>
            <Typography variant="body2" sx={{ mb: 1 }}>
              {result.detail}
            </Typography>
            <Typography variant="subtitle2" component="h3">
              {t('newScan.verify.whatToFix')}
            </Typography>
            <Box component="ul" sx={{ m: 0, paddingInlineStart: 2.5 }}>
              {(isFile
                ? [
                    t('newScan.verify.fixFile.url'),
                    t('newScan.verify.fixFile.content'),
                    t('newScan.verify.fixFile.reach'),
                  ]
                : [
                    t('newScan.verify.fixTxt.name'),
                    t('newScan.verify.fixTxt.value'),
                    t('newScan.verify.fixTxt.wait'),
                  ]
              ).map((line) => (
                <li key={line}>
                  <Typography variant="body2">{line}</Typography>
                </li>
              ))}
            </Box>
          </Alert>
        )}
        {checking.isError && <ApiErrorAlert error={checking.error} />}
      </Box>
    </Stack>
  );
}
