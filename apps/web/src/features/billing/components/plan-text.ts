import type { TPlanKey, TTariff } from '@perimeter/contracts';
import type { TFunction } from 'i18next';

/** A plan's display texts in the user's language; the server's English is the fallback. */
export function planText(t: TFunction, tariff: TTariff) {
  const k = `billing.plans.${tariff.key}`;
  const list = (key: string, fallback: string[]): string[] => {
    const v = t(`${k}.${key}`, { returnObjects: true, defaultValue: fallback });
    return Array.isArray(v) ? v.map(String) : fallback;
  };
  return {
    name: t(`${k}.name`, { defaultValue: tariff.name }),
    description: t(`${k}.description`, { defaultValue: tariff.description }),
    featuresTitle: t(`${k}.featuresTitle`, { defaultValue: tariff.featuresTitle }),
    features: list('features', tariff.features),
    limitations: list('limitations', tariff.limitations),
  };
}

export const planName = (t: TFunction, key: TPlanKey) => t(`billing.plans.${key}.name`);

/** Minor units → "AED 4,200.00" in the user's language. */
export function formatMoney(amount: number, currency: string, language: string): string {
  return new Intl.NumberFormat(language, { style: 'currency', currency: currency.toUpperCase() }).format(
    amount / 100,
  );
}
