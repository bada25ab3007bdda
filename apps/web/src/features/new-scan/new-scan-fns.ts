import {
  PLAN_KEYS,
  PLAN_LIMITS,
  SCAN_SUBCLASS_VALUES,
  SUBCLASS_OF_CLASS,
  type TBillingState,
  type TCreateScanBody,
  type TPlanKey,
  type TScanClass,
  type TScanSubclass,
  type TTargetType,
  type TTemplateSelection,
  ZAddTargetsBody,
  ZTargetType,
} from '@perimeter/contracts';
import { z } from 'zod';

/**
 * The largest network the server accepts, in addresses (MAX_NETWORK_SIZE of the targets module:
 * a /20 of IPv4, a /116 of IPv6). Checked here too so the user learns it while typing.
 */
export const MAX_NETWORK_SIZE = 4096;

/** i18n keys of the add-target messages (zod messages are keys, translated where shown). */
export const TARGET_ERRORS = {
  required: 'newScan.target.errors.required',
  tooLong: 'newScan.target.errors.tooLong',
  domain: 'newScan.target.errors.domain',
  domainIsAddress: 'newScan.target.errors.domainIsAddress',
  peer: 'newScan.target.errors.peer',
  peerIsNetwork: 'newScan.target.errors.peerIsNetwork',
  network: 'newScan.target.errors.network',
  networkTooLarge: 'newScan.target.errors.networkTooLarge',
} as const;

const ipv4 = z.ipv4();
const ipv6 = z.ipv6();
const cidrv4 = z.cidrv4();
const cidrv6 = z.cidrv6();
const isAddress = (v: string) => ipv4.safeParse(v).success || ipv6.safeParse(v).success;
const isCidr = (v: string) => cidrv4.safeParse(v).success || cidrv6.safeParse(v).success;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A public-looking DNS name: Unicode allowed (IDN → punycode by the URL parser), two labels at least. */
export function isDomainName(value: string): boolean {
  const v = value.trim().replace(/\.$/, '');
  if (v.length === 0 || v.length > 253 || /[\s/:@?#[\]\\]/.test(v) || isAddress(v)) return false;
  let ascii: string;
  try {
    ascii = new URL(`http://${v}`).hostname;
  } catch {
    return false;
  }
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return false;
  const tld = labels.at(-1) ?? '';
  return /^[a-z]{2,63}$/.test(tld) || /^xn--[a-z0-9-]{1,59}$/.test(tld);
}

/** Addresses of a network written as address/prefix, or null when it is not one. */
export function networkSize(value: string): number | null {
  const v = value.trim();
  if (!isCidr(v)) return null;
  const [address, bits] = v.split('/');
  const total = (address ?? '').includes(':') ? 128 : 32;
  return 2 ** (total - Number(bits));
}

/** The add-target form: the type the user picked and the value as typed, checked for that type. */
export const ZNewTargetForm = z
  .object({
    target_type: ZTargetType,
    target: z.string().trim().min(1, TARGET_ERRORS.required).max(300, TARGET_ERRORS.tooLong),
  })
  .superRefine(({ target_type, target }, ctx) => {
    const v = target.trim();
    if (v.length === 0 || v.length > 300) return;
    const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['target'], message });
    if (target_type === 'domain') {
      if (isAddress(v) || isCidr(v)) issue(TARGET_ERRORS.domainIsAddress);
      else if (!isDomainName(v)) issue(TARGET_ERRORS.domain);
    } else if (target_type === 'peer') {
      if (isCidr(v)) issue(TARGET_ERRORS.peerIsNetwork);
      else if (!isAddress(v)) issue(TARGET_ERRORS.peer);
    } else {
      const size = networkSize(v);
      if (size === null) issue(TARGET_ERRORS.network);
      else if (size > MAX_NETWORK_SIZE) issue(TARGET_ERRORS.networkTooLarge);
    }
  });
export type TNewTargetForm = z.infer<typeof ZNewTargetForm>;

/** The add_targets body of one new target, checked against the server's own schema. */
export function addTargetBody(form: TNewTargetForm) {
  return ZAddTargetsBody.parse({ targets: [{ target_type: form.target_type, target: form.target.trim() }] });
}

/** The user's plan as the server reads it: the first tariff's key, else the trial plan. */
export function planOf(tariffs: readonly { key: string }[] | undefined): TPlanKey {
  const key = tariffs?.[0]?.key;
  return (PLAN_KEYS as readonly string[]).includes(key ?? '') ? (key as TPlanKey) : 'trial_scan';
}

/** Classes a user can pick, with their subclasses; class_resources (discovery) always runs. */
export const PICKABLE_CLASSES: readonly { cls: TScanClass; subclasses: TScanSubclass[] }[] = (
  ['class_exploitation', 'class_information_gathering'] as const
).map((cls) => ({ cls, subclasses: SCAN_SUBCLASS_VALUES.filter((s) => SUBCLASS_OF_CLASS[s] === cls) }));

export type TLock = { locked: false } | { locked: true; reason: 'plan_subclass' | 'plan_custom' };

export function subclassLock(plan: TPlanKey, subclass: TScanSubclass): TLock {
  return PLAN_LIMITS[plan].subclasses.includes(subclass)
    ? { locked: false }
    : { locked: true, reason: 'plan_subclass' };
}

export function customScanLock(plan: TPlanKey): TLock {
  return PLAN_LIMITS[plan].customScanConfig ? { locked: false } : { locked: true, reason: 'plan_custom' };
}

export type TScanChoice =
  | { scanType: 'full' }
  | { scanType: 'custom'; subclasses: TScanSubclass[]; templates?: TTemplateSelection };

/** Tags to bring back, from a comma- or space-separated field: lower case, no duplicates. */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,]+/)
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/** create_abstract_scan's body: whole classes where every subclass was chosen, and the chosen subclasses. */
export function createScanBody(
  target: { target_type: TTargetType; user_target_id: string },
  choice: TScanChoice,
) {
  if (choice.scanType === 'full') {
    return { targets: [target], scan_type: 'full' } satisfies TCreateScanBody;
  }
  const chosen = SCAN_SUBCLASS_VALUES.filter((s) => choice.subclasses.includes(s));
  const classes = PICKABLE_CLASSES.filter(({ subclasses }) =>
    subclasses.every((s) => chosen.includes(s)),
  ).map(({ cls }) => cls);
  const templates = chosen.includes('exploit_scanner') ? choice.templates : undefined;
  const hasTemplates = !!(templates?.severities?.length || templates?.include_tags?.length);
  return {
    targets: [target],
    scan_type: 'custom',
    custom_scan_config: { classes, subclasses: chosen, ...(hasTemplates ? { templates } : {}) },
  } satisfies TCreateScanBody;
}

/**
 * Whether starting a scan needs the one-time payment first. Only try_it is paid per scan: each paid
 * try_it payment is used by exactly one scan's creation, and the server counts the unused ones as
 * `usage.one_time_scans_left`. At 0 (or unknown) the card step comes before the start.
 */
export function needsOneTimePayment(
  plan: TPlanKey,
  billing: { usage: Pick<TBillingState['usage'], 'one_time_scans_left'> } | undefined,
): boolean {
  if (plan !== 'try_it') return false;
  return (billing?.usage.one_time_scans_left ?? 0) < 1;
}
