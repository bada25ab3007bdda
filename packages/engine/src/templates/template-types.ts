import type { Classification, Severity } from '../findings/types.ts';
import type { CompiledExtractor } from '../operators/extractors/extractors.ts';
import type { CompiledMatcher } from '../operators/matchers/matchers.ts';
import type { CompiledFlow } from './flow/flow-interpreter.ts';

export interface TemplateInfo {
  name: string;
  authors: string[];
  severity: Severity;
  description?: string;
  impact?: string;
  remediation?: string;
  references: string[];
  tags: string[];
  classification?: Classification;
  metadata: Record<string, unknown>;
}

export interface CompiledOperators {
  matchers: CompiledMatcher[];
  condition: 'and' | 'or';
  /** A matcher that is not internal: a match makes findings. */
  reportable: boolean;
  extractors: CompiledExtractor[];
  /** `wait_for(n)` in a DSL matcher: nuclei sleeps there before deciding; so do we (not blocking). */
  waitMs?: number;
}

export type AttackType = 'batteringram' | 'pitchfork' | 'clusterbomb';

interface RequestCommon {
  /** 1-based position among the template's requests of all protocols (for indexed parts). */
  index: number;
  /** The request's own `id:` (a flow may call `http("login")`). */
  id?: string;
  operators: CompiledOperators;
  payloads: Record<string, string[]>;
  attack: AttackType;
  /** Matchers or extractors read `interactsh_*` parts: a response carrying call-back names waits for them. */
  oobOperators?: boolean;
}

export interface RawHttpSpec {
  kind: 'raw';
  text: string;
  /** Every `@name: value` line above the request line, names lowercased. */
  annotations: Record<string, string>;
  /** The annotations nuclei defines, checked at compile time (see raw-annotations.ts). */
  annotated: RawAnnotations;
  /** `{{wait_for(n)}}` in the request: wait this long before sending it. */
  waitMs?: number;
}

export interface RawAnnotations {
  /** `@Host:` — send to this scheme://host:port (or host:port) instead of the input. */
  host?: string;
  /** `@tls-sni:` — the TLS server name; `request.host` = the request's Host header. */
  tlsSni?: string;
  /** `@timeout:` — this request's time limit in milliseconds. */
  timeoutMs?: number;
  /** `@once` — sent once per template run even inside a payload loop. */
  once?: boolean;
}
export interface PathHttpSpec {
  kind: 'path';
  path: string;
  /** `{{wait_for(n)}}` in the path: wait this long before sending it. */
  waitMs?: number;
}

export interface CompiledHttpRequest extends RequestCommon {
  protocol: 'http';
  method: string;
  specs: (RawHttpSpec | PathHttpSpec)[];
  headers: Record<string, string>;
  body?: string;
  redirects: boolean;
  hostRedirects: boolean;
  maxRedirects: number;
  stopAtFirstMatch: boolean;
  cookieReuse: boolean;
  reqCondition: boolean;
  maxSize?: number;
  /** `unsafe: true`: raw requests sent byte for byte over a socket (see http-unsafe.ts). */
  unsafe: boolean;
  /** `read-all`: with `unsafe`, read until the server closes the connection. */
  readAll: boolean;
}

export interface CompiledDnsRequest extends RequestCommon {
  protocol: 'dns';
  name: string;
  type: string;
  recursion: boolean;
  retries: number;
}

export interface CompiledNetworkRequest extends RequestCommon {
  protocol: 'network';
  hosts: string[];
  ports: number[];
  /** `hex` marks text that is hex once its placeholders are filled in. */
  inputs: { data: Buffer | string; hex?: true; read?: number; name?: string }[];
  readSize: number;
  /** A matcher or extractor calls `jarm()`: take the service's TLS fingerprint. */
  jarm?: boolean;
}

export interface CompiledSslRequest extends RequestCommon {
  protocol: 'ssl';
  address: string;
  minVersion?: string;
  maxVersion?: string;
}

export type CompiledRequest =
  | CompiledHttpRequest
  | CompiledDnsRequest
  | CompiledNetworkRequest
  | CompiledSslRequest;

export interface CompiledTemplate {
  id: string;
  file: string;
  info: TemplateInfo;
  /** Template variables in declaration order (values may hold placeholders). */
  variables: [string, string][];
  /** The `flow:` (a JavaScript subset), or undefined to run every request in order. */
  flow?: CompiledFlow;
  requests: CompiledRequest[];
  protocols: Set<CompiledRequest['protocol']>;
  /** Uses the out-of-band server (`{{interactsh-url}}` or `interactsh_*` parts): runs only with one. */
  oob?: boolean;
  /**
   * Indexed parts the template can refer to (`body_1`, `status_code_2`): every `name_N` word
   * in its text. Only these are kept from earlier responses — most templates keep none.
   */
  indexedParts: string[];
  /**
   * A run writes variables of its own: template variables, named extractors or a flow. A run
   * that writes none reads its input's variables as they are (see `newRunState`).
   */
  ownVariables: boolean;
  /**
   * The derived http parts the template can read (every word of its text, lowercased, with
   * `_N` suffixes stripped): parts it never names are not built per response. Undefined:
   * build every part.
   */
  httpParts?: HttpPartsWanted;
  /**
   * A request cluster (see template-cluster.ts): these templates share this one request, sent
   * once per input; each member's own operators decide on the response.
   */
  cluster?: CompiledTemplate[];
}

/** Derived http response parts, built only when a template's text names them. */
export interface HttpPartsWanted {
  /** `raw` and `response` (also `all`). */
  raw: boolean;
  request: boolean;
  /** `header` and `all_headers`. */
  header: boolean;
  title: boolean;
}

export type LoadOutcome =
  | { status: 'ok'; template: CompiledTemplate }
  | { status: 'invalid'; file: string; id?: string; field: string; reason: string }
  | { status: 'skipped'; file: string; id?: string; reason: string };
