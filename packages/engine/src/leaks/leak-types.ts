/** One e-mail address seen in one leak, as a source reports it. */
export interface LeakRecord {
  email: string;
  /** Masked password (`p******d`); absent when the source gives none (HIBP). */
  passwordMasked?: string;
  /** The password encrypted with the configured key (AES-256-GCM), for storage at rest. */
  passwordEncrypted?: string;
  /** Digest of the clear password, for deduplication. */
  passwordDigest?: string;
  /** Breach / leak names. */
  sources: string[];
  /** Date of the leak as the source gives it (YYYY-MM-DD or YYYY-MM). */
  leakDate?: string;
}

export type LeakErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'bad_response'
  | 'unreachable';

/** A source failure with a message fit for the scan log. */
export class LeakSourceError extends Error {
  constructor(
    readonly source: string,
    readonly code: LeakErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LeakSourceError';
  }
}

/** Where leaked credentials come from: the local index, or a commercial API. */
export interface LeakSource {
  readonly name: string;
  /** Every leak record for addresses of the domain (and its subdomains). */
  searchDomain(domain: string, signal?: AbortSignal): Promise<LeakRecord[]>;
  /** Records of one address, for sources without (or besides) domain search. */
  searchEmail?(email: string, signal?: AbortSignal): Promise<LeakRecord[]>;
}
