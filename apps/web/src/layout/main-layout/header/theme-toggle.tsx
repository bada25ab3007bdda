import DarkModeOutlined from '@mui/icons-material/DarkModeOutlined';
import LightModeOutlined from '@mui/icons-material/LightModeOutlined';
import { IconButton, Tooltip } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { usePreferences } from '../../../contexts/preferences-context.tsx';

/** The tooltip names the theme the click switches to: 'Dark theme' in light mode, 'Light theme' in dark. */
export function ThemeToggle() {
  const { t } = useTranslation();
  const { mode, update } = usePreferences();
  const label = mode === 'light' ? t('header.darkTheme') : t('header.lightTheme');
  return (
    <Tooltip title={label}>
      <IconButton
        color="inherit"
        aria-label={label}
        onClick={() => update({ mode: mode === 'light' ? 'dark' : 'light' })}
      >
        {mode === 'light' ? <DarkModeOutlined /> : <LightModeOutlined />}
      </IconButton>
    </Tooltip>
  );
}
