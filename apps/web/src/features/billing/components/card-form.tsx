import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Checkbox, FormControlLabel, Stack, TextField } from '@mui/material';
import { expiryValid, luhnValid, parseExpiry } from '@perimeter/contracts';
import { type Control, Controller, type FieldPath, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';

const digits = (v: string) => v.replace(/[\s-]/g, '');

/** The spec's card fields; messages are i18n keys. Luhn and expiry are checked before sending. */
export const ZCardForm = z.object({
  card_number: z
    .string()
    .refine((v) => /^\d{12,19}$/.test(digits(v)), 'billing.card.numberRequired')
    .refine((v) => luhnValid(digits(v)), 'billing.card.numberInvalid'),
  name_on_card: z.string().trim().min(1, 'billing.card.nameRequired').max(120, 'billing.card.nameRequired'),
  expiry: z
    .string()
    .refine((v) => parseExpiry(v) !== null, 'billing.card.expiryFormat')
    .refine((v) => parseExpiry(v) === null || expiryValid(v), 'billing.card.expired'),
  cvc: z.string().regex(/^\d{3,4}$/, 'billing.card.cvcInvalid'),
  remember_card: z.boolean(),
});
export type TCardForm = z.infer<typeof ZCardForm>;

/** 4242424242424242 → "4242 4242 4242 4242"; "1229" → "12/29". */
const groupCard = (v: string) =>
  digits(v)
    .replace(/\D/g, '')
    .slice(0, 19)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
const formatExpiry = (v: string) => {
  const d = v.replace(/\D/g, '').slice(0, 4);
  return d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d;
};

function Field({
  control,
  name,
  label,
  format,
  autoComplete,
  inputMode,
  serverError,
}: {
  control: Control<TCardForm>;
  name: Exclude<FieldPath<TCardForm>, 'remember_card'>;
  label: string;
  format?: (v: string) => string;
  autoComplete: string;
  inputMode?: 'numeric' | 'text';
  serverError?: string;
}) {
  const { t } = useTranslation();
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          inputRef={field.ref}
          onChange={(e) => field.onChange(format ? format(e.target.value) : e.target.value)}
          id={`card-${name}`}
          label={label}
          autoComplete={autoComplete}
          error={!!fieldState.error || !!serverError}
          helperText={fieldState.error?.message ? t(fieldState.error.message) : serverError}
          slotProps={{ htmlInput: { inputMode } }}
          fullWidth
        />
      )}
    />
  );
}

export interface CardFormProps {
  busy?: boolean;
  submitLabel: string;
  error?: string | null;
  fieldErrors?: Partial<Record<'card_number' | 'expiry' | 'cvc' | 'name_on_card', string>>;
  onSubmit: (values: TCardForm) => void | Promise<void>;
}

/** Card number, name on card, expiry, last three digits and "remember card" (spec §2). */
export function CardForm({ busy, submitLabel, error, fieldErrors = {}, onSubmit }: CardFormProps) {
  const { t } = useTranslation();
  const { control, handleSubmit } = useForm<TCardForm>({
    resolver: zodResolver(ZCardForm),
    defaultValues: { card_number: '', name_on_card: '', expiry: '', cvc: '', remember_card: false },
  });
  return (
    <Stack
      component="form"
      noValidate
      spacing={2}
      onSubmit={handleSubmit(onSubmit)}
      aria-label={t('billing.card.title')}
    >
      {error && (
        <Alert severity="error" role="alert">
          {error}
        </Alert>
      )}
      <Field
        control={control}
        name="card_number"
        label={t('billing.card.number')}
        format={groupCard}
        autoComplete="cc-number"
        inputMode="numeric"
        serverError={fieldErrors.card_number}
      />
      <Field
        control={control}
        name="name_on_card"
        label={t('billing.card.name')}
        autoComplete="cc-name"
        serverError={fieldErrors.name_on_card}
      />
      <Stack direction="row" spacing={2}>
        <Field
          control={control}
          name="expiry"
          label={t('billing.card.expiry')}
          format={formatExpiry}
          autoComplete="cc-exp"
          inputMode="numeric"
          serverError={fieldErrors.expiry}
        />
        <Field
          control={control}
          name="cvc"
          label={t('billing.card.cvc')}
          format={(v) => v.replace(/\D/g, '').slice(0, 4)}
          autoComplete="cc-csc"
          inputMode="numeric"
          serverError={fieldErrors.cvc}
        />
      </Stack>
      <Controller
        control={control}
        name="remember_card"
        render={({ field }) => (
          <FormControlLabel
            control={<Checkbox checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />}
            label={t('billing.card.remember')}
          />
        )}
      />
      <Button type="submit" variant="contained" size="large" disabled={busy}>
        {submitLabel}
      </Button>
    </Stack>
  );
}
