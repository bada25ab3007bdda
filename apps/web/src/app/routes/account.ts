export { AccountPage } from '../../features/account/components/account-page.tsx';
export { TwoFactorResetPage } from '../../features/account/components/two-factor-reset-page.tsx';
