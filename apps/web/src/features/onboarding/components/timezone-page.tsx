import { Autocomplete, Button, Stack, TextField, Typography } from '@mui/material';
import { isTimeZone } from '@perimeter/contracts';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AuthCard } from '../../../components/ui/auth-card.tsx';
import { FormAlert } from '../../../components/ui/form.tsx';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAuth, useUpdateUserMutation } from '../../auth/index.ts';

export function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return Array.from(new Set(['UTC', ...zones])).sort();
}

export function browserTimeZone(): string {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return tz && isTimeZone(tz) ? tz : 'UTC';
}

function nowIn(tz: string, locale: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }).format(
      new Date(),
    );
  } catch {
    return '';
  }
}

/** Time-zone selection: searchable IANA list, browser zone preselected. */
export function TimezonePage() {
  const { t, i18n } = useTranslation();
  const auth = useAuth();
  const navigate = useNavigate();
  const options = useMemo(timeZones, []);
  const [value, setValue] = useState<string | null>(auth.user?.tz ?? browserTimeZone());
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [update, { isLoading }] = useUpdateUserMutation();
  const [clock, setClock] = useState('');

  useEffect(() => {
    setClock(value ? nowIn(value, i18n.language) : '');
    const id = setInterval(() => setClock(value ? nowIn(value, i18n.language) : ''), 30_000);
    return () => clearInterval(id);
  }, [value, i18n.language]);

  return (
    <AuthCard title={t('timezone.title')} subtitle={t('timezone.subtitle')}>
      <Stack spacing={2.5}>
        <FormAlert message={error} />
        {saved && <FormAlert severity="success" message={t('timezone.saved')} />}
        <Autocomplete
          options={options}
          value={value}
          onChange={(_e, v) => setValue(v)}
          autoHighlight
          renderInput={(params) => <TextField {...params} label={t('fields.timezone')} />}
        />
        {clock && (
          <Typography variant="body2" color="text.secondary" data-testid="tz-clock">
            {t('timezone.localTime', { time: clock })}
          </Typography>
        )}
        <Button
          variant="contained"
          size="large"
          disabled={!value || isLoading}
          onClick={async () => {
            if (!value) return;
            setError(null);
            try {
              const user = await update({ tz: value }).unwrap();
              const wasOnboarding = !auth.user?.tz;
              auth.setUser(user);
              if (wasOnboarding) await navigate(paths.home);
              else setSaved(true);
            } catch (e) {
              setError(apiErrorMessage(e, t));
            }
          }}
        >
          {t('common.save')}
        </Button>
      </Stack>
    </AuthCard>
  );
}
