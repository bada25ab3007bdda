import TranslateOutlined from '@mui/icons-material/TranslateOutlined';
import { IconButton, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import type { TLanguage } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { changeLanguage, LANGUAGES } from '../../../lib/i18n.ts';

const NATIVE: Record<TLanguage, string> = { en: 'English', ru: 'Русский' };

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
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
          <MenuItem
            key={lng}
            selected={i18n.language === lng}
            lang={lng}
            onClick={() => {
              void changeLanguage(lng);
              setAnchor(null);
            }}
          >
            <ListItemText primary={NATIVE[lng]} secondary={lng.toUpperCase()} />
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
