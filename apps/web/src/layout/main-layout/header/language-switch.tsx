import TranslateOutlined from '@mui/icons-material/TranslateOutlined';
import { IconButton, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import type { TLanguage } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useUpdateUserMutation } from '../../../features/auth/api/update-user.ts';
import { useAuth } from '../../../features/auth/auth-provider.tsx';
import { changeLanguage, LANGUAGES } from '../../../lib/i18n.ts';

const NATIVE: Record<TLanguage, string> = { en: 'English', ru: 'Русский' };

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const auth = useAuth();
  const [updateUser] = useUpdateUserMutation();

  async function choose(lng: TLanguage) {
    setAnchor(null);
    await changeLanguage(lng);
    // Signed in: keep the choice on the account too, so mails sent later (scan finished,
    // new findings) use it.
    if (auth.isAuthenticated && auth.user?.language !== lng) {
      const user = await updateUser({ language: lng })
        .unwrap()
        .catch(() => null);
      if (user) auth.setUser(user);
    }
  }

  return (
    <>
      <Tooltip title={t('header.language')}>
        <IconButton
          color="inherit"
          aria-label={t('header.language')}
          aria-haspopup="menu"
          onClick={(e) => setAnchor(e.currentTarget)}
        >
          <TranslateOutlined />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {LANGUAGES.map((lng) => (
          <MenuItem key={lng} selected={i18n.language === lng} lang={lng} onClick={() => void choose(lng)}>
            <ListItemText primary={NATIVE[lng]} secondary={lng.toUpperCase()} />
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
