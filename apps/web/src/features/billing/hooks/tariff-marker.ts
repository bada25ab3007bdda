import { PLAN_KEYS, type TPlanKey, type TUser } from '@perimeter/contracts';

/** localStorage key of the plan just bought: set when checkout starts, cleared by "Got it". */
export const TARIFF_MARKER_KEY = 'tariff';

export function readTariffMarker(): string | null {
  try {
    return localStorage.getItem(TARIFF_MARKER_KEY);
  } catch {
    return null;
  }
}

export function setTariffMarker(plan: TPlanKey): void {
  try {
    localStorage.setItem(TARIFF_MARKER_KEY, plan);
  } catch {
    // Storage off: the modal simply does not show.
  }
}

export function clearTariffMarker(): void {
  try {
    localStorage.removeItem(TARIFF_MARKER_KEY);
  } catch {
    // ignore
  }
}

/**
 * Spec §4 "Plan-change modal": opens when the stored marker is a valid plan key and equals the
 * user's first tariff (its key; its name too when the name is the key, as in the original API).
 */
export function congratulationsPlan(
  marker: string | null,
  user: Pick<TUser, 'tariffs'> | null,
): TPlanKey | null {
  if (!marker || !(PLAN_KEYS as readonly string[]).includes(marker)) return null;
  const first = user?.tariffs[0];
  if (!first) return null;
  return first.key === marker || first.name === marker ? (marker as TPlanKey) : null;
}
