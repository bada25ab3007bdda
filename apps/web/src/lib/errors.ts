import type { TFunction } from 'i18next';
import { readApiError } from './api-client.ts';

/** Messages of the contracts' zod schemas → i18n keys, so validation reads in the user's language. */
const VALIDATION_KEYS: [RegExp, string][] = [
  [/^This field is required\.$/, 'validation.required'],
  [/^Enter a valid e-mail address\.$/, 'validation.email'],
  [/^Use at least (\d+) characters\.$/, 'validation.minLength'],
  [/^Use at most (\d+) characters\.$/, 'validation.maxLength'],
  [/^This password is too simple\.$/, 'validation.tooSimple'],
  [/^The two passwords do not match\.$/, 'validation.mismatch'],
  [/^The password must not be your e-mail address\.$/, 'validation.passwordIsEmail'],
  [/^Enter the 6-digit code or a recovery code\.$/, 'validation.code'],
  [/^Enter the 6-digit code from your app\.$/, 'validation.totp'],
  [/^Unknown time zone\.$/, 'validation.timezone'],
];

export function translateValidation(message: string | undefined, t: TFunction): string | undefined {
  if (!message) return undefined;
  for (const [pattern, key] of VALIDATION_KEYS) {
    const m = pattern.exec(message);
    if (m) return t(key, { count: Number(m[1] ?? 0) });
  }
  return t('validation.invalid');
}

/** Error code → translated message; the server's own detail when the code is unknown. */
export function apiErrorMessage(error: unknown, t: TFunction): string {
  const apiError = readApiError(error);
  if (apiError) return t(`apiErrors.${apiError.code}`, { defaultValue: apiError.detail });
  if (error && typeof error === 'object' && 'status' in error && error.status === 'FETCH_ERROR') {
    return t('apiErrors.network');
  }
  return t('apiErrors.internal_error');
}

export function apiFieldErrors(error: unknown): Record<string, string> {
  const fields = readApiError(error)?.fields ?? {};
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, messages]) => messages.length > 0)
      .map(([field, messages]) => [field, messages.join(' ')]),
  );
}
