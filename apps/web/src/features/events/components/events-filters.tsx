import {
  Button,
  Checkbox,
  FormControl,
  FormControlLabel,
  InputLabel,
  ListItemText,
  MenuItem,
  Select,
  Stack,
  Switch,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
} from '@mui/material';
import { SEVERITIES, type TScanSubclass, type TSeverity } from '@perimeter/contracts';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { hasFilters, type TEventsState, type TExistence, type TMatch } from '../hooks/use-events-params.ts';

const TYPING_DELAY_MS = 400;

/**
 * A text filter with its contains/equals toggle (`is_contains`). The text reaches the address after
 * a short pause in typing (or at once on Enter), so each key press does not cost a request.
 */
function TextMatchFilter({
  label,
  value,
  match,
  onChange,
}: {
  label: string;
  value: string;
  match: TMatch;
  onChange: (value: string, match: TMatch) => void;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // A change from outside (clear filters, back button) replaces what is typed.
  useEffect(() => setText(value), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (next: string) => {
    clearTimeout(timer.current);
    if (next.trim() !== value) onChange(next.trim(), match);
  };
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
      <TextField
        size="small"
        label={label}
        value={text}
        sx={{ minWidth: 170 }}
        slotProps={{ htmlInput: { maxLength: 255 } }}
        onChange={(e) => {
          const next = e.target.value;
          setText(next);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => commit(next), TYPING_DELAY_MS);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit(text);
        }}
      />
      <ToggleButtonGroup
        size="small"
        exclusive
        value={match}
        aria-label={t('events.filters.matchOf', { field: label })}
        onChange={(_e, v: TMatch | null) => v && onChange(text.trim(), v)}
      >
        <ToggleButton value="contains">{t('events.filters.contains')}</ToggleButton>
        <ToggleButton value="equals">{t('events.filters.equals')}</ToggleButton>
      </ToggleButtonGroup>
    </Stack>
  );
}

function ExistenceSelect({
  label,
  value,
  labels,
  onChange,
}: {
  label: string;
  value: TExistence;
  labels: Record<TExistence, string>;
  onChange: (v: TExistence) => void;
}) {
  const id = useId();
  return (
    <FormControl size="small" sx={{ minWidth: 200 }}>
      <InputLabel id={id}>{label}</InputLabel>
      <Select
        labelId={id}
        label={label}
        value={value}
        onChange={(e) => onChange(e.target.value as TExistence)}
      >
        {(['all', 'with', 'without'] as const).map((v) => (
          <MenuItem key={v} value={v}>
            {labels[v]}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}

/** The spec's filters of one events tab; every change goes to the address through `update`. */
export function EventsFilters({
  subclass,
  state,
  update,
}: {
  subclass: TScanSubclass;
  state: TEventsState;
  update: (patch: Partial<TEventsState>) => void;
}) {
  const { t } = useTranslation();
  const severityId = useId();
  return (
    <Stack
      direction="row"
      useFlexGap
      spacing={2}
      sx={{ mb: 2, flexWrap: 'wrap', alignItems: 'center' }}
      data-testid="events-filters"
    >
      <FormControl size="small" sx={{ minWidth: 200, maxWidth: 320 }}>
        <InputLabel id={severityId} shrink>
          {t('events.filters.severity')}
        </InputLabel>
        <Select<TSeverity[]>
          labelId={severityId}
          label={t('events.filters.severity')}
          multiple
          displayEmpty
          value={state.severity}
          renderValue={(selected) =>
            selected.length === 0
              ? t('events.filters.allSeverities')
              : selected.map((s) => t(`events.severity.${s}`)).join(', ')
          }
          onChange={(e) => {
            const v = e.target.value;
            const chosen = typeof v === 'string' ? v.split(',') : v;
            update({ severity: SEVERITIES.filter((s) => chosen.includes(s)) });
          }}
          notched
        >
          {SEVERITIES.map((s) => (
            <MenuItem key={s} value={s}>
              <Checkbox size="small" checked={state.severity.includes(s)} tabIndex={-1} disableRipple />
              <ListItemText primary={t(`events.severity.${s}`)} />
            </MenuItem>
          ))}
        </Select>
      </FormControl>
      <FormControlLabel
        control={
          <Switch
            checked={state.hideResolved}
            onChange={(_e, checked) => update({ hideResolved: checked })}
          />
        }
        label={t('events.filters.hideResolved')}
      />
      {subclass === 'leakcheck' ? (
        <TextMatchFilter
          label={t('events.filters.email')}
          value={state.email}
          match={state.emailMatch}
          onChange={(email, emailMatch) => update({ email, emailMatch })}
        />
      ) : null}
      <TextMatchFilter
        label={subclass === 'leakcheck' ? t('events.filters.emailDomain') : t('events.filters.subdomain')}
        value={state.subdomain}
        match={state.subdomainMatch}
        onChange={(subdomain, subdomainMatch) => update({ subdomain, subdomainMatch })}
      />
      <TextMatchFilter
        label={t('events.filters.mainDomain')}
        value={state.domain}
        match={state.domainMatch}
        onChange={(domain, domainMatch) => update({ domain, domainMatch })}
      />
      {subclass === 'exploit_db' && (
        <ExistenceSelect
          label={t('events.filters.vulns')}
          value={state.vulns}
          labels={{
            all: t('events.filters.vulnsAll'),
            with: t('events.filters.vulnsWith'),
            without: t('events.filters.vulnsWithout'),
          }}
          onChange={(vulns) => update({ vulns })}
        />
      )}
      {subclass === 'exploit_db' && (
        <FormControlLabel
          control={<Switch checked={state.kev} onChange={(_e, kev) => update({ kev })} />}
          label={t('intel.filters.knownExploited')}
        />
      )}
      {subclass === 'leakcheck' && (
        <ExistenceSelect
          label={t('events.filters.password')}
          value={state.password}
          labels={{
            all: t('events.filters.passwordAll'),
            with: t('events.filters.passwordWith'),
            without: t('events.filters.passwordWithout'),
          }}
          onChange={(password) => update({ password })}
        />
      )}
      {hasFilters(state) && (
        <Button
          size="small"
          onClick={() =>
            update({
              severity: [],
              hideResolved: false,
              subdomain: '',
              subdomainMatch: 'contains',
              domain: '',
              domainMatch: 'contains',
              vulns: 'all',
              kev: false,
              email: '',
              emailMatch: 'contains',
              password: 'all',
            })
          }
        >
          {t('events.filters.clear')}
        </Button>
      )}
    </Stack>
  );
}
