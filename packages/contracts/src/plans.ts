import { z } from 'zod';

/** The spec's plan keys (section 3, "Plan/tariff"). */
export const PLAN_KEYS = ['trial_scan', 'try_it', 'starter', 'business', 'enterprise'] as const;
export const ZPlanKey = z.enum(PLAN_KEYS);
export type TPlanKey = z.infer<typeof ZPlanKey>;

export const PLAN_NAMES: Record<TPlanKey, string> = {
  trial_scan: 'Trial scan',
  try_it: 'Try it!',
  starter: 'Starter',
  business: 'Business',
  enterprise: 'Enterprise',
};
