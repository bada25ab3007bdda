import Visibility from '@mui/icons-material/Visibility';
import VisibilityOff from '@mui/icons-material/VisibilityOff';
import { Alert, IconButton, InputAdornment, TextField, type TextFieldProps } from '@mui/material';
import { useState } from 'react';
import {
  type Control,
  type FieldPath,
  type FieldValues,
  type UseFormSetError,
  useController,
} from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, apiFieldErrors, translateValidation } from '../../lib/errors.ts';

type TFieldProps<T extends FieldValues> = Omit<TextFieldProps, 'name'> & {
  name: FieldPath<T>;
  control: Control<T>;
  serverError?: string;
};

export function FormTextField<T extends FieldValues>({ name, control, type, ...rest }: TFieldProps<T>) {
  const { t } = useTranslation();
  const { field, fieldState } = useController({ name, control });
  const [shown, setShown] = useState(false);
  const isPassword = type === 'password';
  const message =
    fieldState.error?.type === 'server'
      ? fieldState.error.message
      : translateValidation(fieldState.error?.message, t);
  return (
    <TextField
      {...rest}
      {...field}
      value={field.value ?? ''}
      inputRef={field.ref}
      id={rest.id ?? `field-${name}`}
      type={isPassword && shown ? 'text' : type}
      error={!!fieldState.error}
      helperText={message ?? rest.helperText}
      slotProps={{
        ...rest.slotProps,
        input: isPassword
          ? {
              endAdornment: (
                <InputAdornment position="end">
                  <IconButton
                    aria-label={shown ? t('common.hidePassword') : t('common.showPassword')}
                    onClick={() => setShown((v) => !v)}
                    edge="end"
                  >
                    {shown ? <VisibilityOff /> : <Visibility />}
                  </IconButton>
                </InputAdornment>
              ),
            }
          : undefined,
      }}
    />
  );
}

/** Puts the server's per-field messages on the fields and returns the message for the form. */
export function applyServerErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  known: readonly FieldPath<T>[],
  t: Parameters<typeof apiErrorMessage>[1],
): string {
  const fields = apiFieldErrors(error);
  for (const [field, message] of Object.entries(fields)) {
    if ((known as readonly string[]).includes(field))
      setError(field as FieldPath<T>, { type: 'server', message });
  }
  return apiErrorMessage(error, t);
}

export function FormAlert({
  message,
  severity = 'error',
}: {
  message: string | null;
  severity?: 'error' | 'success' | 'info' | 'warning';
}) {
  if (!message) return null;
  return (
    <Alert severity={severity} role={severity === 'error' ? 'alert' : 'status'}>
      {message}
    </Alert>
  );
}
