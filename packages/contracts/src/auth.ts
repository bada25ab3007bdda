import { z } from 'zod';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;
export const RECOVERY_CODE_COUNT = 10;
export const LANGUAGES = ['en', 'ru'] as const;
export type TLanguage = (typeof LANGUAGES)[number];

const name = z.string().trim().min(1, 'This field is required.').max(100);
export const ZEmail = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email('Enter a valid e-mail address.'))
  .transform((v) => v.toLowerCase());

export const ZPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
  .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`)
  .refine((v) => new Set(v).size >= 4, 'This password is too simple.');

/** An IANA time-zone name known to this runtime's ICU data. */
export const ZTimeZone = z
  .string()
  .max(64)
  .refine((tz) => isTimeZone(tz), 'Unknown time zone.');

export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const passwordsMatch = {
  check: (v: { new_password1: string; new_password2: string }) => v.new_password1 === v.new_password2,
  params: { message: 'The two passwords do not match.', path: ['new_password2'] },
};

export const ZRegistrationBody = z
  .strictObject({
    first_name: name,
    last_name: name,
    company: z.string().trim().min(1, 'This field is required.').max(200),
    email: ZEmail,
    password1: ZPassword,
    password2: z.string(),
  })
  .refine((v) => v.password1 === v.password2, {
    message: 'The two passwords do not match.',
    path: ['password2'],
  })
  .refine((v) => v.password1.toLowerCase() !== v.email, {
    message: 'The password must not be your e-mail address.',
    path: ['password1'],
  });
export type TRegistrationBody = z.input<typeof ZRegistrationBody>;

export const ZLoginBody = z.strictObject({
  email: ZEmail,
  password: z.string().min(1, 'This field is required.').max(PASSWORD_MAX_LENGTH),
});
export type TLoginBody = z.input<typeof ZLoginBody>;

export const ZLoginCodeBody = z.strictObject({
  ephemeral_token: z.string().min(1).max(512),
  /** A 6-digit TOTP code or one of the recovery codes (xxxxx-xxxxx). */
  code: z
    .string()
    .trim()
    .min(6)
    .max(32)
    .regex(/^[0-9A-Za-z-]+$/, 'Enter the 6-digit code or a recovery code.'),
});
export type TLoginCodeBody = z.input<typeof ZLoginCodeBody>;

export const ZTariffRef = z.object({ name: z.string(), key: z.string() });

export const ZNotificationPrefs = z.object({
  scan_finished: z.boolean(),
  new_critical_high: z.boolean(),
});
export type TNotificationPrefs = z.infer<typeof ZNotificationPrefs>;

export const ZUser = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  company: z.string(),
  tz: z.string().nullable(),
  language: z.enum(LANGUAGES),
  metadata: z.object({
    email_verified: z.boolean(),
    agreement_status: z.boolean(),
    '2fa_enable': z.boolean(),
  }),
  notifications: ZNotificationPrefs,
  tariffs: z.array(ZTariffRef),
  date_joined: z.string(),
});
export type TUser = z.infer<typeof ZUser>;

export const ZUpdateUserBody = z.strictObject({
  first_name: name.optional(),
  last_name: name.optional(),
  company: z.string().trim().min(1).max(200).optional(),
  tz: ZTimeZone.optional(),
  language: z.enum(LANGUAGES).optional(),
  notifications: ZNotificationPrefs.partial().strict().optional(),
});
export type TUpdateUserBody = z.input<typeof ZUpdateUserBody>;

export const ZTokenPair = z.object({ access: z.string(), refresh: z.string() });
export type TTokenPair = z.infer<typeof ZTokenPair>;

export const ZLoginResponse = z.union([
  z.object({ access: z.string(), refresh: z.string(), user: ZUser }),
  z.object({ ephemeral_token: z.string() }),
]);
export type TLoginResponse = z.infer<typeof ZLoginResponse>;

export const ZSessionResponse = z.object({ access: z.string(), refresh: z.string(), user: ZUser });
export type TSessionResponse = z.infer<typeof ZSessionResponse>;

export const ZTokenRefreshBody = z.strictObject({ refresh: z.string().min(1).max(2048) });
export type TTokenRefreshBody = z.input<typeof ZTokenRefreshBody>;

export const ZResendEmailBody = z.strictObject({ email: ZEmail });
export type TResendEmailBody = z.input<typeof ZResendEmailBody>;

export const ZPasswordResetBody = z.strictObject({ email: ZEmail });
export type TPasswordResetBody = z.input<typeof ZPasswordResetBody>;

export const ZPasswordChangeBody = z
  .strictObject({
    old_password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
    new_password1: ZPassword,
    new_password2: z.string(),
  })
  .refine(passwordsMatch.check, passwordsMatch.params);
export type TPasswordChangeBody = z.input<typeof ZPasswordChangeBody>;

export const ZPasswordResetConfirmBody = z
  .strictObject({ new_password1: ZPassword, new_password2: z.string() })
  .refine(passwordsMatch.check, passwordsMatch.params);
export type TPasswordResetConfirmBody = z.input<typeof ZPasswordResetConfirmBody>;

export const ZPasswordResetConfirmParams = z.strictObject({
  uid: z.string().min(1).max(64),
  token: z.string().min(1).max(256),
});

export const ZConfirmEmailParams = z.strictObject({ key: z.string().min(1).max(256) });

export const ZTwoFactorActivateResponse = z.object({
  secret: z.string(),
  otpauth_url: z.string(),
  qr_code: z.string(),
});
export type TTwoFactorActivateResponse = z.infer<typeof ZTwoFactorActivateResponse>;

export const ZTotpCodeBody = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^[0-9]{6}$/, 'Enter the 6-digit code from your app.'),
});
export type TTotpCodeBody = z.input<typeof ZTotpCodeBody>;

/** Deactivation accepts a TOTP code or an unused recovery code. */
export const ZTwoFactorDeactivateBody = ZLoginCodeBody.pick({ code: true }).strict();
export type TTwoFactorDeactivateBody = z.input<typeof ZTwoFactorDeactivateBody>;

export const ZRecoveryCodesResponse = z.object({ recovery_codes: z.array(z.string()) });
export type TRecoveryCodesResponse = z.infer<typeof ZRecoveryCodesResponse>;

export const ZAgreementConfirmBody = z.strictObject({ accepted: z.literal(true) });
export type TAgreementConfirmBody = z.input<typeof ZAgreementConfirmBody>;
