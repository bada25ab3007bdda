export { AgreementPage } from '../../features/onboarding/components/agreement-page.tsx';
export { ConfirmEmailPage } from '../../features/onboarding/components/confirm-email-page.tsx';
export { TimezonePage } from '../../features/onboarding/components/timezone-page.tsx';
export { TwoFactorSetupPage } from '../../features/onboarding/components/two-factor-setup-page.tsx';
