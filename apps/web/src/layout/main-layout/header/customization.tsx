import CloseOutlined from '@mui/icons-material/CloseOutlined';
import TuneOutlined from '@mui/icons-material/TuneOutlined';
import {
  Box,
  Button,
  Divider,
  Drawer,
  FormControl,
  FormControlLabel,
  FormLabel,
  IconButton,
  Radio,
  RadioGroup,
  Stack,
  Switch,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FONT_FAMILIES, PRESET_COLORS, type TPreferences } from '../../../contexts/preferences.ts';
import { usePreferences } from '../../../contexts/preferences-context.tsx';
import { PRESETS } from '../../../themes/presets.ts';

function Choice<K extends keyof TPreferences>({
  name,
  label,
  options,
}: {
  name: K;
  label: string;
  options: readonly { value: TPreferences[K] & string; label: string }[];
}) {
  const prefs = usePreferences();
  return (
    <FormControl>
      <FormLabel id={`pref-${name}`}>{label}</FormLabel>
      <RadioGroup
        row
        aria-labelledby={`pref-${name}`}
        value={prefs[name]}
        onChange={(e) => prefs.update({ [name]: e.target.value } as Partial<TPreferences>)}
      >
        {options.map((o) => (
          <FormControlLabel key={o.value} value={o.value} control={<Radio size="small" />} label={o.label} />
        ))}
      </RadioGroup>
    </FormControl>
  );
}

/** Saved UI preferences: font, orientation, mini drawer, container, mode, preset colour, direction. */
export function CustomizationButton() {
  const { t } = useTranslation();
  const prefs = usePreferences();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Tooltip title={t('customize.title')}>
        <IconButton color="inherit" aria-label={t('customize.title')} onClick={() => setOpen(true)}>
          <TuneOutlined />
        </IconButton>
      </Tooltip>
      <Drawer
        anchor="right"
        open={open}
        onClose={() => setOpen(false)}
        slotProps={{ paper: { 'aria-label': t('customize.title') } }}
        sx={{ zIndex: (theme) => theme.zIndex.modal }}
      >
        <Box sx={{ width: 320, p: 2.5 }} role="region" aria-label={t('customize.title')}>
          <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
            <Typography variant="h3" component="h2">
              {t('customize.title')}
            </Typography>
            <IconButton aria-label={t('common.close')} onClick={() => setOpen(false)}>
              <CloseOutlined />
            </IconButton>
          </Stack>
          <Divider sx={{ mb: 2 }} />
          <Stack spacing={2}>
            <Choice
              name="mode"
              label={t('customize.mode')}
              options={[
                { value: 'light', label: t('customize.light') },
                { value: 'dark', label: t('customize.dark') },
              ]}
            />
            <Choice
              name="themeDirection"
              label={t('customize.direction')}
              options={[
                { value: 'ltr', label: t('customize.ltr') },
                { value: 'rtl', label: t('customize.rtl') },
              ]}
            />
            <Choice
              name="menuOrientation"
              label={t('customize.orientation')}
              options={[
                { value: 'vertical', label: t('customize.vertical') },
                { value: 'horizontal', label: t('customize.horizontal') },
              ]}
            />
            <Choice
              name="fontFamily"
              label={t('customize.font')}
              options={FONT_FAMILIES.map((f) => ({ value: f, label: t(`customize.fonts.${f}`) }))}
            />
            <FormControl>
              <FormLabel id="pref-preset">{t('customize.preset')}</FormLabel>
              <RadioGroup
                row
                aria-labelledby="pref-preset"
                value={prefs.presetColor}
                onChange={(e) => prefs.update({ presetColor: e.target.value as TPreferences['presetColor'] })}
              >
                {PRESET_COLORS.map((p) => (
                  <Radio
                    key={p}
                    value={p}
                    slotProps={{ input: { 'aria-label': t(`customize.presets.${p}`) } }}
                    sx={{
                      color: PRESETS[p][prefs.mode].primary,
                      '&.Mui-checked': { color: PRESETS[p][prefs.mode].primary },
                    }}
                  />
                ))}
              </RadioGroup>
            </FormControl>
            <FormControlLabel
              control={
                <Switch
                  checked={prefs.miniDrawer}
                  onChange={(e) => prefs.update({ miniDrawer: e.target.checked })}
                />
              }
              label={t('customize.miniDrawer')}
            />
            <FormControlLabel
              control={
                <Switch
                  checked={prefs.container}
                  onChange={(e) => prefs.update({ container: e.target.checked })}
                />
              }
              label={t('customize.container')}
            />
            <Button variant="outlined" onClick={prefs.reset}>
              {t('customize.reset')}
            </Button>
          </Stack>
        </Box>
      </Drawer>
    </>
  );
}
