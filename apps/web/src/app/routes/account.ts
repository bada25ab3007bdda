export { AccountDetails } from '../../features/account/components/account-details.tsx';
export { AccountPage } from '../../features/account/components/account-page.tsx';
export { NotificationSettings } from '../../features/account/components/notification-settings.tsx';
export { TwoFactorResetPage } from '../../features/account/components/two-factor-reset-page.tsx';
