import type { TOobInteraction } from '@perimeter/contracts';

const PROTOCOLS = new Set(['dns', 'http', 'smtp', 'ldap']);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The out-of-band part of a template finding's evidence as the API gives it: the engine's
 * `interactions` (camelCase, as stored with the finding) in the contract's shape, and `late`.
 * Empty for findings without call-backs.
 */
export function oobEvidence(evidence: unknown): { interactions?: TOobInteraction[]; late?: boolean } {
  const e = evidence as { interactions?: unknown; late?: unknown } | undefined;
  if (!e || !Array.isArray(e.interactions)) return {};
  const interactions = (e.interactions as Record<string, unknown>[])
    .filter((i) => i && PROTOCOLS.has(text(i.protocol)))
    .slice(0, 5)
    .map((i) => ({
      id: text(i.id),
      protocol: i.protocol as TOobInteraction['protocol'],
      remote_address: text(i.remoteAddress),
      at: text(i.at),
      raw_request: text(i.rawRequest),
      raw_response: text(i.rawResponse),
      q_type: typeof i.qType === 'string' ? i.qType : null,
    }));
  return { interactions, ...(e.late === true ? { late: true } : {}) };
}
