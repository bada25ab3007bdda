export type OobProtocol = 'dns' | 'http' | 'smtp' | 'ldap';
export interface OobInteraction {
  /** The unique id the call-back carried: the leftmost label of the name, lowercase ([a-z0-9]). */
  id: string;
  protocol: OobProtocol;
  remoteAddress: string;
  /** ISO 8601 */
  at: string;
  rawRequest: string;
  rawResponse: string;
  /** dns only: the query type, e.g. A, AAAA, TXT */
  qType?: string;
}
export interface OobProvider {
  /** The zone the interaction server answers for, e.g. oob.example.com */
  readonly domain: string;
  /** A fresh unguessable id for one `{{interactsh-url}}`: the scan's 20-char correlation id + a 13-char nonce, [a-z0-9], no I/O. */
  newId(): string;
  /** Interactions recorded so far for these ids (may repeat earlier ones; the engine de-duplicates). */
  poll(ids: readonly string[]): Promise<OobInteraction[]>;
}
