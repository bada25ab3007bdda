import type { DslValue } from '../operators/dsl/dsl-functions.ts';
import type { OperatorEvent } from '../operators/operator-types.ts';
import type { DnsAnswers } from '../protocols/dns/dns-answers.ts';
import type { HttpClient } from '../protocols/http/http-client.ts';
import type { HostGate, RequestRate } from './politeness.ts';

/** One protocol response, mapped to named parts for the operators. */
export interface ProtocolResponse {
  event: OperatorEvent;
  matchedAt: string;
  /** host:port the request went to (error budget, fingerprint). */
  endpoint: string;
  path: string;
  request?: string;
  response?: string;
  curl?: string;
  /** Evidence built only when a finding needs it (request, masked response, curl). */
  evidence?: () => { request: string; response: string; curl: string };
  /** For `cookie-reuse`. */
  setCookies?: string[];
}

export interface DnsServer {
  host: string;
  port: number;
}

/** What executors share during a run. */
export interface RunContext {
  signal: AbortSignal;
  http: HttpClient;
  rate: RequestRate;
  hosts: HostGate;
  timeoutMs: number;
  maxResponseBytes: number;
  dnsServers: DnsServer[];
  /** Answers to the run's DNS questions, shared by the templates asking the same one. */
  dnsAnswers?: DnsAnswers;
  /**
   * Scope check before contacting any address (a request, a redirect target). Without it a
   * request goes only to its input's host name (a template's `@Host:` to a fixed outside
   * host is refused) unless `allowOtherHosts` is set.
   */
  isUrlAllowed?: (url: string) => boolean | Promise<boolean>;
  /** Without `isUrlAllowed`: let requests go to hosts other than the input's. */
  allowOtherHosts?: boolean;
  /** Address of a host name known from the scan's DNS answers. */
  resolve?: (hostname: string) => string | undefined;
  log: (level: 'info' | 'warn', message: string) => void;
  /** The out-of-band server, when the scan has one: `{{interactsh-url}}` becomes `<newId()>.<domain>`. */
  oob?: { readonly domain: string; newId(): string };
}

export type Variables = Record<string, DslValue>;
