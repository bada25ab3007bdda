import { Button, Link, Paper, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { COOKIE_CONSENT_DAYS, COOKIE_CONSENT_NAME } from '../../config/layout.ts';
import { PRIVACY_POLICY_URL } from '../../config/paths.ts';

export function hasCookieConsent(cookie: string = document.cookie): boolean {
  return cookie.split(';').some((c) => c.trim().startsWith(`${COOKIE_CONSENT_NAME}=`));
}

export function acceptCookies(): void {
  const maxAge = COOKIE_CONSENT_DAYS * 24 * 60 * 60;
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing in Firefox and Safari
  document.cookie = `${COOKIE_CONSENT_NAME}=true; Max-Age=${maxAge}; Path=/; SameSite=Lax${secure}`;
}

export function CookieBanner() {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(() => !hasCookieConsent());
  if (!visible) return null;
  return (
    <Paper
      role="region"
      aria-label={t('cookies.label')}
      elevation={8}
      sx={{
        position: 'fixed',
        insetInline: 16,
        bottom: 16,
        zIndex: (theme) => theme.zIndex.snackbar - 1,
        p: 2,
        maxWidth: 880,
        mx: 'auto',
      }}
    >
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
        <Typography variant="body2" sx={{ flexGrow: 1 }}>
          {t('cookies.text')}{' '}
          <Link href={PRIVACY_POLICY_URL} target="_blank" rel="noopener">
            {t('cookies.policy')}
          </Link>
        </Typography>
        <Button
          variant="contained"
          onClick={() => {
            acceptCookies();
            setVisible(false);
          }}
        >
          {t('cookies.accept')}
        </Button>
      </Stack>
    </Paper>
  );
}
