export { ForgotPasswordPage } from '../../features/auth/components/forgot-password-page.tsx';
export { LoginPage } from '../../features/auth/components/login-page.tsx';
export { RegisterPage } from '../../features/auth/components/register-page.tsx';
export { ResetConfirmPage } from '../../features/auth/components/reset-confirm-page.tsx';
export {
  TwoFactorAppPage,
  TwoFactorRecoveryPage,
} from '../../features/auth/components/two-factor-code-page.tsx';
export { VerifyEmailPage } from '../../features/auth/components/verify-email-page.tsx';
