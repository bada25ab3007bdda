import { zodResolver } from '@hookform/resolvers/zod';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  FormControl,
  FormControlLabel,
  FormLabel,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { TARGET_TYPES, type TTarget } from '@perimeter/contracts';
import { useEffect, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useGetTargetsQuery } from '../../targets/index.ts';
import { useAddTargetsMutation } from '../api/add-targets.ts';
import { addTargetBody, MAX_NETWORK_SIZE, type TNewTargetForm, ZNewTargetForm } from '../new-scan-fns.ts';
import { ApiErrorAlert } from './api-error-alert.tsx';

type TMode = 'existing' | 'new';

/** Step 1: pick one of the user's targets, or add a domain, peer or network (checked as typed). */
export function TargetStep({
  selected,
  onSelect,
  onNext,
}: {
  selected: TTarget | null;
  onSelect: (target: TTarget) => void;
  onNext: (target: TTarget) => void;
}) {
  const { t } = useTranslation();
  const targets = useGetTargetsQuery();
  const data = targets.data;
  const all = data ? TARGET_TYPES.flatMap((type) => data[type]) : [];
  const [mode, setMode] = useState<TMode | null>(null);
  const current: TMode = mode ?? (data && all.length === 0 ? 'new' : 'existing');
  // A single registered target is the obvious choice: preselect it.
  const only = all.length === 1 ? all[0] : undefined;
  useEffect(() => {
    if (only && !selected) onSelect(only);
  }, [only, selected, onSelect]);

  if (targets.isLoading) {
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} role="status">
        <CircularProgress size={20} aria-hidden />
        <Typography>{t('newScan.target.loading')}</Typography>
      </Stack>
    );
  }
  if (targets.isError) {
    return (
      <ApiErrorAlert error={targets.error}>
        <Box sx={{ mt: 1 }}>
          <Button size="small" onClick={() => void targets.refetch()}>
            {t('newScan.retry')}
          </Button>
        </Box>
      </ApiErrorAlert>
    );
  }

  return (
    <Stack spacing={3}>
      <ToggleButtonGroup
        exclusive
        value={current}
        onChange={(_, v: TMode | null) => v && setMode(v)}
        aria-label={t('newScan.target.modeLabel')}
        size="small"
      >
        <ToggleButton value="existing">{t('newScan.target.modeExisting')}</ToggleButton>
        <ToggleButton value="new">{t('newScan.target.modeNew')}</ToggleButton>
      </ToggleButtonGroup>
      {current === 'existing' ? (
        all.length === 0 ? (
          <Alert severity="info">{t('newScan.target.empty')}</Alert>
        ) : (
          <ExistingTargets targets={all} selected={selected} onSelect={onSelect} onNext={onNext} />
        )
      ) : (
        <AddTargetForm onAdded={onNext} />
      )}
    </Stack>
  );
}

function ExistingTargets({
  targets,
  selected,
  onSelect,
  onNext,
}: {
  targets: TTarget[];
  selected: TTarget | null;
  onSelect: (target: TTarget) => void;
  onNext: (target: TTarget) => void;
}) {
  const { t } = useTranslation();
  return (
    <Stack spacing={2}>
      <FormControl>
        <FormLabel id="new-scan-target-label">{t('newScan.target.chooseLabel')}</FormLabel>
        <RadioGroup
          aria-labelledby="new-scan-target-label"
          value={selected?.user_target_id ?? ''}
          onChange={(_, id) => {
            const target = targets.find((x) => x.user_target_id === id);
            if (target) onSelect(target);
          }}
        >
          {targets.map((target) => (
            <FormControlLabel
              key={target.user_target_id}
              value={target.user_target_id}
              control={<Radio />}
              label={
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', py: 0.5 }}>
                  <Box component="span" dir="ltr" sx={{ fontWeight: 500 }}>
                    {target.display_name}
                  </Box>
                  <Chip
                    size="small"
                    variant="outlined"
                    label={t(`newScan.targetType.${target.target_type}`)}
                  />
                  <Chip
                    size="small"
                    color={target.verified ? 'success' : 'warning'}
                    label={target.verified ? t('newScan.target.verified') : t('newScan.target.unverified')}
                  />
                </Stack>
              }
            />
          ))}
        </RadioGroup>
      </FormControl>
      <Box>
        <Button variant="contained" disabled={!selected} onClick={() => selected && onNext(selected)}>
          {t('newScan.next')}
        </Button>
      </Box>
    </Stack>
  );
}

function AddTargetForm({ onAdded }: { onAdded: (target: TTarget) => void }) {
  const { t } = useTranslation();
  const [add, { isLoading, error, reset }] = useAddTargetsMutation();
  const { control, handleSubmit, watch, trigger, getValues } = useForm<TNewTargetForm>({
    resolver: zodResolver(ZNewTargetForm),
    mode: 'onChange',
    defaultValues: { target_type: 'domain', target: '' },
  });
  const type = watch('target_type');

  const submit = handleSubmit(async (values) => {
    try {
      const { added } = await add(addTargetBody(values)).unwrap();
      const target = added[0];
      if (target) onAdded(target);
    } catch {
      // Shown from the mutation's error below.
    }
  });

  return (
    <Box component="form" noValidate onSubmit={submit} aria-label={t('newScan.target.addFormLabel')}>
      <Stack spacing={2.5}>
        <Controller
          name="target_type"
          control={control}
          render={({ field }) => (
            <FormControl>
              <FormLabel id="new-scan-type-label">{t('newScan.target.typeLabel')}</FormLabel>
              <RadioGroup
                row
                aria-labelledby="new-scan-type-label"
                value={field.value}
                onChange={(_, v) => {
                  field.onChange(v);
                  reset();
                  if (getValues('target') !== '') void trigger('target');
                }}
              >
                {TARGET_TYPES.map((tt) => (
                  <FormControlLabel
                    key={tt}
                    value={tt}
                    control={<Radio />}
                    label={t(`newScan.targetType.${tt}`)}
                  />
                ))}
              </RadioGroup>
            </FormControl>
          )}
        />
        <Controller
          name="target"
          control={control}
          render={({ field, fieldState }) => (
            <TextField
              {...field}
              inputRef={field.ref}
              onChange={(e) => {
                field.onChange(e);
                reset();
              }}
              id="new-scan-target"
              label={t(`newScan.target.valueLabel.${type}`)}
              error={!!fieldState.error}
              helperText={
                fieldState.error?.message
                  ? t(fieldState.error.message, { max: MAX_NETWORK_SIZE })
                  : t(`newScan.target.hint.${type}`, { max: MAX_NETWORK_SIZE })
              }
              slotProps={{ htmlInput: { dir: 'ltr', autoComplete: 'off', spellCheck: false } }}
              fullWidth
              required
            />
          )}
        />
        <ApiErrorAlert error={error} />
        <Box>
          <Button type="submit" variant="contained" loading={isLoading}>
            {t('newScan.target.add')}
          </Button>
        </Box>
      </Stack>
    </Box>
  );
}
