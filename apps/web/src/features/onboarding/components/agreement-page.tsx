import { Box, Button, Checkbox, FormControlLabel, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { FormAlert } from '../../../components/ui/form.tsx';
import { STORAGE_KEYS } from '../../../config/layout.ts';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAuth, useConfirmAgreementMutation } from '../../auth/index.ts';

export const TERMS_SECTIONS = ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9'] as const;

export function AgreementPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const navigate = useNavigate();
  const [confirm, { isLoading }] = useConfirmAgreementMutation();
  const [checked, setChecked] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const accepted = auth.user?.metadata.agreement_status ?? false;

  return (
    <AuthCard title={t('terms.title')} subtitle={t('terms.updated')}>
      <Stack spacing={2}>
        <Box
          tabIndex={0}
          role="document"
          aria-label={t('terms.title')}
          sx={{ maxHeight: 360, overflowY: 'auto', border: 1, borderColor: 'divider', borderRadius: 1, p: 2 }}
        >
          <Typography sx={{ mb: 2 }}>{t('terms.intro')}</Typography>
          {TERMS_SECTIONS.map((s) => (
            <Box key={s} sx={{ mb: 2 }}>
              <Typography variant="h4" component="h2" sx={{ mb: 0.5 }}>
                {t(`terms.${s}Title`)}
              </Typography>
              <Typography variant="body2">{t(`terms.${s}Body`)}</Typography>
            </Box>
          ))}
        </Box>
        <FormAlert message={error} />
        {accepted ? (
          <FormAlert severity="success" message={t('terms.alreadyAccepted')} />
        ) : (
          <>
            <FormControlLabel
              control={<Checkbox checked={checked} onChange={(e) => setChecked(e.target.checked)} />}
              label={t('terms.checkbox')}
            />
            <Button
              variant="contained"
              size="large"
              disabled={!checked || isLoading}
              onClick={async () => {
                setError(null);
                try {
                  const user = await confirm().unwrap();
                  localStorage.setItem(STORAGE_KEYS.agreementAccepted, 'true');
                  auth.setUser(user);
                  await navigate(paths.home);
                } catch (e) {
                  setError(apiErrorMessage(e, t));
                }
              }}
            >
              {t('terms.accept')}
            </Button>
          </>
        )}
      </Stack>
    </AuthCard>
  );
}
