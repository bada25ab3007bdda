import type { TMessageParams, TScanMessageCode } from '@perimeter/contracts';

/**
 * The messages a scan waits or ends with. The `message` column keeps the English text (the API's
 * `message`, the logs); the UI and the PDF translate the code and parameters that `scanMessageOf`
 * reads back from it. Every writer goes through `scanMessage`, so text and reading cannot drift.
 */
export const SCAN_MESSAGE_TEXTS: { [C in TScanMessageCode]: (p: Record<string, string>) => string } = {
  canceled_by_user: () => 'Cancelled by the user.',
  worker_lost: () => 'The worker running this scan stopped answering; retrying.',
  scan_failed: (p) =>
    `The scan failed: ${p.reason} What it found before is kept; start it again to complete it.`,
  plan_subdomain_limit: (p) =>
    `Plan limit: the ${p.plan} plan covers ${p.subdomains} subdomains per scan; the first ${p.subdomains} found were scanned and ${p.skipped} more were not (listed in skipped_hosts).`,
  target_disabled: (p) => `${p.target} is disabled.`,
  target_unverified: (p) =>
    `${p.target} is not verified. Publish the verification record and check verification first.`,
  ownership_unavailable: (p) => `Ownership of ${p.target} could not be checked right now: ${p.detail}`,
  ownership_lost: (p) =>
    `Ownership of ${p.target} could no longer be confirmed, so it is now unverified and cannot be scanned. ${p.detail} Publish the verification record again and check verification.`,
};

/** The English text of a message. */
export function scanMessage(code: TScanMessageCode, params: TMessageParams = {}): string {
  return SCAN_MESSAGE_TEXTS[code](Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each text as a pattern: the parameters become named groups (a repeated one matches itself). */
const PATTERNS = (Object.keys(SCAN_MESSAGE_TEXTS) as TScanMessageCode[]).map((code) => {
  const names: string[] = [];
  const marker = new Proxy({} as Record<string, string>, {
    get: (_, name: string) => {
      if (!names.includes(name)) names.push(name);
      return `\uE000${name}\uE001`;
    },
  });
  const seen = new Set<string>();
  const source = escapeRegExp(SCAN_MESSAGE_TEXTS[code](marker)).replace(
    /\uE000(\w+)\uE001/g,
    (_, name: string) => {
      if (seen.has(name)) return `\\k<${name}>`;
      seen.add(name);
      return `(?<${name}>[\\s\\S]*?)`;
    },
  );
  return { code, names, re: new RegExp(`^${source}$`) };
});

/** A stored message read back as its code and parameters (numbers as numbers); nothing for other text. */
export function scanMessageOf(
  message: string | null,
): { message_code: TScanMessageCode; message_params: TMessageParams } | Record<string, never> {
  if (!message) return {};
  for (const p of PATTERNS) {
    const match = p.re.exec(message);
    if (!match) continue;
    const params: TMessageParams = {};
    for (const name of p.names) {
      const v = match.groups?.[name] ?? '';
      params[name] = /^\d+$/.test(v) ? Number(v) : v;
    }
    return { message_code: p.code, message_params: params };
  }
  return {};
}
