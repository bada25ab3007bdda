import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Checkbox,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  FormLabel,
  Radio,
  RadioGroup,
  Stack,
  Switch,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import {
  LOCAL_TIME_PATTERN,
  SCAN_CLASS_VALUES,
  SCAN_SUBCLASS_VALUES,
  TARGET_TYPES,
  type TTarget,
  type TTargetsByType,
} from '@perimeter/contracts';
import { useMemo, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { visuallyHidden } from '../../../components/ui/visually-hidden.ts';
import { DEFAULT_WINDOW, type TScheduleFormValues, WEEK_ORDER, weekdayName } from './schedule-values.ts';

function timeZones(current: string): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes(current) ? zones : [current, ...zones];
}

/** Add or edit a schedule. The caller sends the values; a server error comes back as `error`. */
export function ScheduleForm({
  initial,
  targets,
  submitLabel,
  isSubmitting,
  error,
  onSubmit,
  onCancel,
  idPrefix,
}: {
  initial: TScheduleFormValues;
  targets: TTargetsByType;
  submitLabel: string;
  isSubmitting: boolean;
  error: string | null;
  onSubmit: (values: TScheduleFormValues) => Promise<boolean>;
  onCancel?: () => void;
  idPrefix: string;
}) {
  const { t, i18n } = useTranslation();
  const { control, handleSubmit, watch, reset, setValue, formState } = useForm<TScheduleFormValues>({
    defaultValues: initial,
  });
  const [zones] = useState(() => timeZones(initial.tz));
  const options = useMemo(() => TARGET_TYPES.flatMap((type) => targets[type]), [targets]);
  const chosen = watch('targets');
  const scanType = watch('scan_type');
  const chosenType = chosen[0]?.target_type;

  const submit = handleSubmit(async (values) => {
    if (await onSubmit(values)) reset(initial);
  });

  return (
    <Box component="form" noValidate onSubmit={submit} aria-labelledby={`${idPrefix}-title`}>
      <Stack spacing={3}>
        {error && <Alert severity="error">{error}</Alert>}
        <Controller
          name="name"
          control={control}
          rules={{ maxLength: { value: 120, message: t('schedules.form.nameTooLong') } }}
          render={({ field, fieldState }) => (
            <TextField
              {...field}
              id={`${idPrefix}-name`}
              label={t('schedules.form.name')}
              helperText={fieldState.error?.message ?? t('schedules.form.nameHelp')}
              error={!!fieldState.error}
            />
          )}
        />
        <Controller
          name="targets"
          control={control}
          rules={{ validate: (v) => v.length > 0 || t('schedules.form.targetsRequired') }}
          render={({ field, fieldState }) => (
            <Autocomplete<TTarget, true>
              multiple
              disableCloseOnSelect
              id={`${idPrefix}-targets`}
              options={options}
              groupBy={(o) => t(`schedules.targetTypes.${o.target_type}`)}
              getOptionLabel={(o) => o.display_name}
              isOptionEqualToValue={(o, v) => o.user_target_id === v.user_target_id}
              // One schedule scans targets of one type (docs/schedules.md).
              getOptionDisabled={(o) => chosenType !== undefined && o.target_type !== chosenType}
              value={options.filter((o) => field.value.some((v) => v.user_target_id === o.user_target_id))}
              onChange={(_, value) =>
                field.onChange(
                  value.map((o) => ({ target_type: o.target_type, user_target_id: o.user_target_id })),
                )
              }
              noOptionsText={t('schedules.form.noTargets')}
              renderInput={(params) => (
                <TextField
                  {...params}
                  inputRef={field.ref}
                  label={t('schedules.form.targets')}
                  error={!!fieldState.error}
                  helperText={fieldState.error?.message ?? t('schedules.form.targetsHelp')}
                />
              )}
            />
          )}
        />
        <Controller
          name="days"
          control={control}
          rules={{ validate: (v) => v.length > 0 || t('schedules.form.daysRequired') }}
          render={({ field, fieldState }) => (
            <FormControl error={!!fieldState.error} component="fieldset">
              <FormLabel component="legend" id={`${idPrefix}-days-label`}>
                {t('schedules.form.days')}
              </FormLabel>
              <ToggleButtonGroup
                value={field.value}
                onChange={(_, value: number[]) => field.onChange(value)}
                aria-labelledby={`${idPrefix}-days-label`}
                color="primary"
                size="small"
                sx={{ flexWrap: 'wrap', mt: 1 }}
              >
                {WEEK_ORDER.map((d) => (
                  // The visible short name is part of the accessible name (WCAG 2.5.3), the full name follows.
                  <ToggleButton key={d} value={d}>
                    {weekdayName(d, i18n.language, 'short')}
                    <Box component="span" sx={visuallyHidden}>
                      {` (${weekdayName(d, i18n.language, 'long')})`}
                    </Box>
                  </ToggleButton>
                ))}
              </ToggleButtonGroup>
              {fieldState.error && <FormHelperText>{fieldState.error.message}</FormHelperText>}
            </FormControl>
          )}
        />
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          {(['start_time', 'end_time'] as const).map((name) => (
            <Controller
              key={name}
              name={name}
              control={control}
              rules={{ pattern: { value: LOCAL_TIME_PATTERN, message: t('schedules.form.timeInvalid') } }}
              render={({ field, fieldState }) => (
                <TextField
                  {...field}
                  id={`${idPrefix}-${name}`}
                  type="time"
                  label={t(name === 'start_time' ? 'schedules.form.startTime' : 'schedules.form.endTime')}
                  error={!!fieldState.error}
                  helperText={fieldState.error?.message}
                  slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 60 } }}
                  sx={{ minWidth: 160 }}
                />
              )}
            />
          ))}
          <Controller
            name="tz"
            control={control}
            rules={{ validate: (v) => zones.includes(v) || t('schedules.form.tzInvalid') }}
            render={({ field, fieldState }) => (
              <Autocomplete
                id={`${idPrefix}-tz`}
                options={zones}
                value={field.value}
                disableClearable
                onChange={(_, value) => field.onChange(value)}
                sx={{ minWidth: 260, flexGrow: 1 }}
                renderInput={(params) => (
                  <TextField
                    {...params}
                    inputRef={field.ref}
                    label={t('schedules.form.tz')}
                    error={!!fieldState.error}
                    helperText={fieldState.error?.message}
                  />
                )}
              />
            )}
          />
        </Stack>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="body2" color="text.secondary">
            {t('schedules.form.defaultWindow')}
          </Typography>
          <Button
            size="small"
            onClick={() => {
              setValue('days', [...DEFAULT_WINDOW.days], { shouldDirty: true });
              setValue('start_time', DEFAULT_WINDOW.start_time, { shouldDirty: true });
              setValue('end_time', DEFAULT_WINDOW.end_time, { shouldDirty: true });
            }}
          >
            {t('schedules.form.useDefaultWindow')}
          </Button>
        </Stack>
        <Controller
          name="scan_type"
          control={control}
          render={({ field }) => (
            <FormControl component="fieldset">
              <FormLabel component="legend">{t('schedules.form.scanType')}</FormLabel>
              <RadioGroup row {...field}>
                <FormControlLabel value="full" control={<Radio />} label={t('schedules.scanType.full')} />
                <FormControlLabel value="custom" control={<Radio />} label={t('schedules.scanType.custom')} />
              </RadioGroup>
            </FormControl>
          )}
        />
        {scanType === 'custom' && (
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={3}>
            <Controller
              name="classes"
              control={control}
              render={({ field }) => (
                <FormControl component="fieldset">
                  <FormLabel component="legend">{t('schedules.form.classes')}</FormLabel>
                  <FormGroup>
                    {SCAN_CLASS_VALUES.map((c) => (
                      <FormControlLabel
                        key={c}
                        control={
                          <Checkbox
                            checked={field.value.includes(c)}
                            onChange={(e) =>
                              field.onChange(
                                e.target.checked ? [...field.value, c] : field.value.filter((x) => x !== c),
                              )
                            }
                          />
                        }
                        label={t(`schedules.classes.${c}`)}
                      />
                    ))}
                  </FormGroup>
                </FormControl>
              )}
            />
            <Controller
              name="subclasses"
              control={control}
              rules={{
                validate: (v, all) =>
                  all.scan_type === 'full' ||
                  v.length > 0 ||
                  all.classes.length > 0 ||
                  t('schedules.form.customRequired'),
              }}
              render={({ field, fieldState }) => (
                <FormControl component="fieldset" error={!!fieldState.error}>
                  <FormLabel component="legend">{t('schedules.form.subclasses')}</FormLabel>
                  <FormGroup>
                    {SCAN_SUBCLASS_VALUES.map((c) => (
                      <FormControlLabel
                        key={c}
                        control={
                          <Checkbox
                            checked={field.value.includes(c)}
                            onChange={(e) =>
                              field.onChange(
                                e.target.checked ? [...field.value, c] : field.value.filter((x) => x !== c),
                              )
                            }
                          />
                        }
                        label={t(`schedules.subclasses.${c}`)}
                      />
                    ))}
                  </FormGroup>
                  {fieldState.error && <FormHelperText>{fieldState.error.message}</FormHelperText>}
                </FormControl>
              )}
            />
          </Stack>
        )}
        <Controller
          name="enabled"
          control={control}
          render={({ field }) => (
            <FormControlLabel
              control={<Switch checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />}
              label={t('schedules.form.enabled')}
            />
          )}
        />
        <Stack direction="row" spacing={2}>
          <Button type="submit" variant="contained" disabled={isSubmitting || formState.isSubmitting}>
            {submitLabel}
          </Button>
          {onCancel && <Button onClick={onCancel}>{t('schedules.cancel')}</Button>}
        </Stack>
      </Stack>
    </Box>
  );
}
