// The auth feature's public entry: what other features use of the session and the account.

export { useConfirmAgreementMutation } from './api/agreement-confirm.ts';
export { useChangePasswordMutation } from './api/password-change.ts';
export { useActivateTwoFactorMutation } from './api/two-factor-activate.ts';
export { useConfirmTwoFactorMutation } from './api/two-factor-confirm.ts';
export { useDeactivateTwoFactorMutation } from './api/two-factor-deactivate.ts';
export { useUpdateUserMutation } from './api/update-user.ts';
export { useAuth } from './auth-provider.tsx';
export { ResendEmailButton } from './components/resend-email-button.tsx';
export { useDateFormat } from './use-date-format.ts';
