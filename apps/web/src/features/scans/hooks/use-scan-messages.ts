import {
  PLAN_KEYS,
  PLAN_NAMES,
  type TMessageParams,
  type TScanMessageCode,
  type TSkippedHost,
} from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { planName } from '../../billing/index.ts';

/** A `plan` parameter is a plan key or its English name (rows written before keys): the key either way. */
function planKeyOf(v: string | number) {
  return PLAN_KEYS.find((k) => k === v || PLAN_NAMES[k] === v);
}

/**
 * The scan's message and its skipped hosts' reasons in the user's language: the server sends
 * codes and parameters beside its English text, which stands in for text without a code.
 */
export function useScanMessages() {
  const { t } = useTranslation();
  const params = (p: TMessageParams | undefined) => {
    const out: TMessageParams = { ...p };
    const key = p?.plan === undefined ? undefined : planKeyOf(p.plan);
    if (key) out.plan = planName(t, key);
    return out;
  };
  return {
    message: (s: {
      message: string | null;
      message_code?: TScanMessageCode;
      message_params?: TMessageParams;
    }): string | null =>
      s.message_code ? t(`scans.message.${s.message_code}`, { ...params(s.message_params) }) : s.message,
    skippedReason: (h: TSkippedHost): string =>
      h.code ? t(`scans.detail.skippedReason.${h.code}`, { ...params(h.params) }) : h.reason,
  };
}
