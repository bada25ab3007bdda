import { z } from 'zod';
import { PLAN_KEYS, PLAN_LIMITS, PLAN_NAMES, type TPlanKey, ZPlanKey } from './plans.ts';

/** Spec 9: currency is configuration (BILLING_CURRENCY); the figures are the same. */
export const CURRENCIES = ['usd', 'aed'] as const;
export const ZCurrency = z.enum(CURRENCIES);
export type TCurrency = z.infer<typeof ZCurrency>;

export const TARIFF_TYPES = ['subscription', 'payment'] as const;
export const ZTariffType = z.enum(TARIFF_TYPES);
export type TTariffType = z.infer<typeof ZTariffType>;

export const BILLING_PERIODS = ['monthly', 'yearly'] as const;
export const ZBillingPeriod = z.enum(BILLING_PERIODS);
export type TBillingPeriod = z.infer<typeof ZBillingPeriod>;

/** Spec 3 "Plan/tariff" display fields. price.monthly = [per month when paid yearly, per month when paid monthly]. */
export const ZTariff = z.object({
  key: ZPlanKey,
  type: ZTariffType,
  name: z.string(),
  description: z.string(),
  price: z.object({ monthly: z.tuple([z.string(), z.string()]), yearly: z.string() }),
  featuresTitle: z.string(),
  features: z.array(z.string()),
  limitations: z.array(z.string()),
  isEnterprise: z.boolean(),
});
export type TTariff = z.infer<typeof ZTariff>;

type TariffDisplay = Omit<TTariff, 'key' | 'name' | 'limitations'>;

const DISPLAY: Record<TPlanKey, TariffDisplay> = {
  trial_scan: {
    type: 'payment',
    description: 'A demo scan with a basic report.',
    price: { monthly: ['0', '0'], yearly: '0' },
    featuresTitle: 'What you get',
    features: ['Demo scan', 'Basic report'],
    isEnterprise: false,
  },
  try_it: {
    type: 'payment',
    description: 'A one-time scan with full module access.',
    price: { monthly: ['200', '200'], yearly: '200' },
    featuresTitle: 'One-time scan',
    features: [
      'Full module access',
      'Vulnerability database check',
      'Detailed report',
      'No follow-up notifications',
      'Scans three times per week with choice of days and times',
      'Class and subclass choice',
      'Email support and one hour of voice support per month',
    ],
    isEnterprise: false,
  },
  starter: {
    type: 'subscription',
    description: 'Weekly scans of one domain.',
    price: { monthly: ['350', '500'], yearly: '4,200' },
    featuresTitle: 'Everything for one domain',
    features: ['4 scans per month (weekly)', 'One domain', 'Detailed report'],
    isEnterprise: false,
  },
  business: {
    type: 'subscription',
    description: 'Up to 3 domains per organization, three scans a week.',
    price: { monthly: ['700', '1,000'], yearly: '8,400' },
    featuresTitle: 'Everything in Starter, plus',
    features: [
      'Up to 3 domains per organization',
      '12 scans per month (three per week)',
      'Choice of scan days, times and classes',
      'Email plus one hour of phone support monthly',
    ],
    isEnterprise: false,
  },
  enterprise: {
    type: 'subscription',
    description: 'On request: individual scope and scan frequency.',
    price: { monthly: ['0', '0'], yearly: '0' },
    featuresTitle: 'Everything in Business, plus',
    features: [
      'Each extra 1000 assets paid separately',
      'Domains by request',
      'Individual scan frequency; twice-weekly scanning',
      'Dedicated manager with one hour of phone support weekly',
      'Custom subclasses (extra fees)',
      'Manual leak detection',
    ],
    isEnterprise: true,
  },
};

/** "Host and Subdomain Limitations:" lines, from the limits table the scans module enforces. */
export function planLimitations(key: TPlanKey): string[] {
  const l = PLAN_LIMITS[key];
  const assets = key === 'business' || key === 'enterprise' ? 'external assets' : 'external IPs';
  const lines = [
    l.domains === null ? 'Domains by request' : `${l.domains} domain${l.domains === 1 ? '' : 's'}`,
    `${l.externalIps.toLocaleString('en-US')} ${assets}`,
    `${l.subdomains.toLocaleString('en-US')} subdomains`,
  ];
  if (l.oneTimeScan) lines.unshift('One scan');
  return lines;
}

/** The five plans with their display fields (spec sections 3 and 9). */
export const TARIFFS: Record<TPlanKey, TTariff> = Object.fromEntries(
  PLAN_KEYS.map((key) => [
    key,
    { key, name: PLAN_NAMES[key], limitations: planLimitations(key), ...DISPLAY[key] },
  ]),
) as Record<TPlanKey, TTariff>;

/** Amounts charged, in minor units (cents / fils). try_it is one payment; enterprise is by request. */
export const PLAN_AMOUNTS: Record<'try_it' | 'starter' | 'business', { monthly: number; yearly: number }> = {
  try_it: { monthly: 20_000, yearly: 20_000 },
  starter: { monthly: 50_000, yearly: 420_000 },
  business: { monthly: 100_000, yearly: 840_000 },
};
export const PURCHASABLE_PLANS = ['try_it', 'starter', 'business'] as const;
export const ZPurchasablePlan = z.enum(PURCHASABLE_PLANS);
export type TPurchasablePlan = z.infer<typeof ZPurchasablePlan>;

const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).optional());

/** GET /users/get_tariffs_info?tariffs_types=subscription&tariffs_types=payment */
export const ZTariffsInfoQuery = z.object({ tariffs_types: repeated(ZTariffType) });
export const ZTariffsInfo = z.object({
  tariffs: z.partialRecord(ZPlanKey, ZTariff),
  currency: ZCurrency,
});
export type TTariffsInfo = z.infer<typeof ZTariffsInfo>;

/** GET /users/get_available_tariffs */
export const ZAvailableTariffs = z.object({
  current: ZPlanKey,
  /** Plans the user can buy now through checkout. */
  available: z.array(ZPurchasablePlan),
  /** Plans given by request (contact us). */
  on_request: z.array(ZPlanKey),
  currency: ZCurrency,
});
export type TAvailableTariffs = z.infer<typeof ZAvailableTariffs>;

/** GET /users/get_checkout_sessions_link?plan=starter&period=yearly&promo_code=... */
export const ZCheckoutLinkQuery = z.object({
  plan: ZPurchasablePlan,
  period: ZBillingPeriod.default('monthly'),
  promo_code: z
    .string()
    .trim()
    .max(64)
    .regex(/^[0-9A-Za-z_-]*$/, 'Promo codes are letters, digits, "-" and "_".')
    .optional(),
});
export type TCheckoutLinkQuery = z.input<typeof ZCheckoutLinkQuery>;
export const ZCheckoutLink = z.object({ url: z.string(), session_id: z.string() });
export type TCheckoutLink = z.infer<typeof ZCheckoutLink>;

export const ZPortalLink = z.object({ url: z.string() });
export type TPortalLink = z.infer<typeof ZPortalLink>;

export const CHECKOUT_STATUSES = ['open', 'complete', 'failed', 'expired'] as const;
export const ZCheckoutSession = z.object({
  id: z.string(),
  provider: z.enum(['local', 'stripe']),
  plan: ZPurchasablePlan,
  period: ZBillingPeriod,
  mode: z.enum(['subscription', 'payment']),
  status: z.enum(CHECKOUT_STATUSES),
  amount: z.number().int(),
  discount: z.number().int(),
  currency: ZCurrency,
  promo_code: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
});
export type TCheckoutSession = z.infer<typeof ZCheckoutSession>;

export const ZCheckoutSessionQuery = z.object({ session_id: z.string().min(1).max(255) });

/** The local provider's card form (spec 2, card fields). Only brand and last four are kept. */
export const ZLocalPayBody = z.strictObject({
  session_id: z.string().min(1).max(255),
  card_number: z
    .string()
    .transform((v) => v.replace(/[\s-]/g, ''))
    .pipe(z.string().regex(/^\d{12,19}$/, 'Enter the card number.')),
  name_on_card: z.string().trim().min(1, 'Enter the name on the card.').max(120),
  expiry: z.string().regex(/^(0[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})$/, 'Use MM/YY.'),
  cvc: z.string().regex(/^\d{3,4}$/, 'Enter the last three digits.'),
  remember_card: z.boolean().default(false),
});
export type TLocalPayBody = z.input<typeof ZLocalPayBody>;

export const ZSubscriptionStatus = z.enum(['active', 'past_due', 'canceled', 'incomplete', 'unpaid']);
export const ZBillingState = z.object({
  plan: ZPlanKey,
  provider: z.enum(['local', 'stripe']),
  currency: ZCurrency,
  subscription: z
    .object({
      plan: ZPlanKey,
      period: ZBillingPeriod,
      status: ZSubscriptionStatus,
      current_period_end: z.string().nullable(),
      cancel_at_period_end: z.boolean(),
    })
    .nullable(),
  card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  invoices: z.array(
    z.object({
      id: z.string(),
      plan: z.string(),
      amount: z.number().int(),
      currency: ZCurrency,
      status: z.enum(['paid', 'failed']),
      description: z.string(),
      card: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
  usage: z.object({
    domains: z.number().int(),
    external_ips: z.number().int(),
    scans_this_month: z.number().int(),
    /** Paid one-time scans (try_it) not used by a scan yet: the new-scan flow asks for a card at 0. */
    one_time_scans_left: z.number().int().optional(),
  }),
});
export type TBillingState = z.infer<typeof ZBillingState>;

/** Luhn check of a digits-only card number. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** MM/YY or MM/YYYY → month and four-digit year, or null. */
export function parseExpiry(v: string): { month: number; year: number } | null {
  const m = /^(0[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})$/.exec(v.trim());
  if (!m) return null;
  const year = Number(m[2]);
  return { month: Number(m[1]), year: year < 100 ? 2000 + year : year };
}

/** Expired when the last day of the expiry month is before `now`. */
export function expiryValid(v: string, now: Date = new Date()): boolean {
  const e = parseExpiry(v);
  if (!e) return false;
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + 1;
  return e.year > y || (e.year === y && e.month >= m);
}

export function cardBrand(digits: string): string {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^6(011|5)/.test(digits)) return 'discover';
  return 'card';
}
