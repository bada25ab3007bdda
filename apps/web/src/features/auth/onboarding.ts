import type { TUser } from '@perimeter/contracts';
import { paths } from '../../config/paths.ts';

/** The onboarding gate of spec §4, in order; null when the main area is reachable. */
export function onboardingRedirect(user: TUser | null): string | null {
  if (!user) return null;
  if (!user.metadata.email_verified) return paths.confirmEmail;
  if (!user.metadata.agreement_status) return paths.agreement;
  if (!user.metadata['2fa_enable']) return paths.twoFactorSetup;
  if (!user.tz) return paths.timezone;
  return null;
}
