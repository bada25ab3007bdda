import { z } from 'zod';

/** A string or a list of strings (YAML lets authors write either). */
const ZStringList = z
  .union([z.string(), z.number(), z.array(z.union([z.string(), z.number(), z.boolean()])), z.null()])
  .transform((v) => (v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]));

const ZCommaList = z.union([z.string(), z.array(z.string()), z.null()]).transform((v) =>
  v === null
    ? []
    : (Array.isArray(v) ? v : v.split(','))
        .flatMap((s) => s.split(/\s+/))
        .map((s) => s.trim())
        .filter(Boolean),
);

const ZNumberish = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : Number(v);
  if (Number.isNaN(n)) {
    ctx.addIssue({ code: 'custom', message: `'${v}' is not a number` });
    return z.NEVER;
  }
  return n;
});

export const ZClassification = z
  .object({
    'cvss-metrics': z.string().nullish(),
    'cvss-score': ZNumberish.nullish(),
    'cve-id': ZStringList.optional(),
    'cwe-id': ZStringList.optional(),
    'epss-score': ZNumberish.nullish(),
    'epss-percentile': ZNumberish.nullish(),
    cpe: z.string().nullish(),
  })
  .passthrough();

export const ZSeverity = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.enum(['critical', 'high', 'medium', 'low', 'info', 'unknown']));

export const ZInfo = z
  .object({
    name: z.string().min(1),
    author: ZCommaList.optional(),
    severity: ZSeverity.default('unknown'),
    description: z.string().nullish(),
    impact: z.string().nullish(),
    remediation: z.string().nullish(),
    reference: ZStringList.optional(),
    tags: ZCommaList.optional(),
    classification: ZClassification.nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  })
  .passthrough();

const ZCondition = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(['and', 'or']));

const ZOperatorBase = {
  name: z.union([z.string(), z.number()]).transform(String).optional(),
  part: z.string().optional(),
  internal: z.boolean().optional(),
  'case-insensitive': z.boolean().optional(),
};

const ZStrings = z.array(z.union([z.string(), z.number(), z.boolean()]).transform(String));

export const ZMatcher = z.discriminatedUnion('type', [
  z.object({
    ...ZOperatorBase,
    type: z.literal('word'),
    // nuclei loads a word matcher without words; it never matches.
    words: ZStrings.default([]),
    condition: ZCondition.optional(),
    negative: z.boolean().optional(),
    'match-all': z.boolean().optional(),
    encoding: z.string().optional(),
  }),
  z.object({
    ...ZOperatorBase,
    type: z.literal('regex'),
    regex: ZStrings,
    condition: ZCondition.optional(),
    negative: z.boolean().optional(),
    'match-all': z.boolean().optional(),
  }),
  z.object({
    ...ZOperatorBase,
    type: z.literal('status'),
    status: z.array(ZNumberish),
    condition: ZCondition.optional(),
    negative: z.boolean().optional(),
  }),
  z.object({
    ...ZOperatorBase,
    type: z.literal('size'),
    size: z.array(ZNumberish),
    condition: ZCondition.optional(),
    negative: z.boolean().optional(),
  }),
  z.object({
    ...ZOperatorBase,
    type: z.literal('binary'),
    binary: ZStrings,
    condition: ZCondition.optional(),
    negative: z.boolean().optional(),
  }),
  z.object({
    ...ZOperatorBase,
    type: z.literal('dsl'),
    dsl: ZStrings,
    condition: ZCondition.optional(),
    negative: z.boolean().optional(),
  }),
  z.object({
    ...ZOperatorBase,
    type: z.literal('xpath'),
    xpath: ZStrings,
    condition: ZCondition.optional(),
    negative: z.boolean().optional(),
  }),
]);

export const ZExtractor = z.discriminatedUnion('type', [
  z.object({ ...ZOperatorBase, type: z.literal('regex'), regex: ZStrings, group: ZNumberish.optional() }),
  z.object({
    ...ZOperatorBase,
    type: z.literal('kval'),
    // `kval:` left empty reads as null: an extractor that extracts nothing, as in nuclei.
    kval: ZStrings.nullable().transform((v) => v ?? []),
  }),
  z.object({ ...ZOperatorBase, type: z.literal('json'), json: ZStrings }),
  z.object({ ...ZOperatorBase, type: z.literal('xpath'), xpath: ZStrings, attribute: z.string().optional() }),
  z.object({ ...ZOperatorBase, type: z.literal('dsl'), dsl: ZStrings }),
]);

const ZOperators = {
  matchers: z.array(ZMatcher).optional(),
  'matchers-condition': ZCondition.optional(),
  extractors: z.array(ZExtractor).optional(),
};

/** Payload sets: inline lists or a file path relative to the templates directory. */
const ZPayloads = z.record(
  z.string(),
  z.union([
    // A bare `-` item is YAML null: nuclei sends it as the empty string.
    z.array(
      z
        .union([z.string(), z.number(), z.boolean(), z.null()])
        .transform((v) => (v === null ? '' : String(v))),
    ),
    z.string(),
  ]),
);

export const ZHttpRequest = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    method: z.string().optional(),
    path: ZStringList.optional(),
    raw: ZStringList.optional(),
    headers: z.record(z.string(), z.union([z.string(), z.number()]).transform(String)).optional(),
    body: z.union([z.string(), z.number()]).transform(String).optional(),
    redirects: z.boolean().optional(),
    'host-redirects': z.boolean().optional(),
    'max-redirects': ZNumberish.optional(),
    'stop-at-first-match': z.boolean().optional(),
    'cookie-reuse': z.boolean().optional(),
    'disable-cookie': z.boolean().optional(),
    'req-condition': z.boolean().optional(),
    'max-size': ZNumberish.optional(),
    unsafe: z.boolean().optional(),
    'read-all': z.boolean().optional(),
    race: z.boolean().optional(),
    payloads: ZPayloads.optional(),
    attack: z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(['batteringram', 'pitchfork', 'clusterbomb']))
      .optional(),
    ...ZOperators,
  })
  .passthrough();

export const ZDnsRequest = z
  .object({
    name: z.string().default('{{FQDN}}'),
    type: z
      .string()
      .transform((s) => s.toUpperCase())
      .default('A'),
    class: z.string().optional(),
    recursion: z.boolean().optional(),
    retries: ZNumberish.optional(),
    payloads: ZPayloads.optional(),
    ...ZOperators,
  })
  .passthrough();

const ZNetworkInput = z.object({
  data: z.union([z.string(), z.number()]).transform(String).optional(),
  type: z.string().optional(),
  read: ZNumberish.optional(),
  name: z.string().optional(),
});

export const ZNetworkRequest = z
  .object({
    host: ZStringList.optional(),
    address: ZStringList.optional(),
    port: z.union([z.number(), z.string()]).transform(String).optional(),
    inputs: z.array(ZNetworkInput).optional(),
    'read-size': ZNumberish.optional(),
    'read-all': z.boolean().optional(),
    payloads: ZPayloads.optional(),
    ...ZOperators,
  })
  .passthrough();

export const ZSslRequest = z
  .object({
    address: z.string().default('{{Host}}:{{Port}}'),
    min_version: z.string().optional(),
    max_version: z.string().optional(),
    ...ZOperators,
  })
  .passthrough();

export const ZTemplate = z
  .object({
    id: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'id must be letters, digits, dot, dash or underscore'),
    info: ZInfo,
    variables: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
      .optional(),
    flow: z.string().optional(),
    'self-contained': z.boolean().optional(),
    http: z.array(ZHttpRequest).optional(),
    requests: z.array(ZHttpRequest).optional(),
    dns: z.array(ZDnsRequest).optional(),
    tcp: z.array(ZNetworkRequest).optional(),
    network: z.array(ZNetworkRequest).optional(),
    ssl: z.array(ZSslRequest).optional(),
  })
  .passthrough();

export type TemplateDoc = z.infer<typeof ZTemplate>;
export type HttpRequestDoc = z.infer<typeof ZHttpRequest>;
export type DnsRequestDoc = z.infer<typeof ZDnsRequest>;
export type NetworkRequestDoc = z.infer<typeof ZNetworkRequest>;
export type SslRequestDoc = z.infer<typeof ZSslRequest>;
export type InfoDoc = z.infer<typeof ZInfo>;
export type MatcherDoc = z.infer<typeof ZMatcher>;
export type ExtractorDoc = z.infer<typeof ZExtractor>;

/** Keys of an http request we recognise but do not run, with the reason. */
export const UNSUPPORTED_HTTP_KEYS: Record<string, string> = {
  fuzzing: 'DAST fuzzing (needs recorded requests to fuzz)',
  'global-matchers': 'global matchers (applied to the responses of other templates)',
};

/** Template blocks we recognise but do not run, with the reason reported in the summary. */
export const UNSUPPORTED_BLOCKS: Record<string, string> = {
  code: 'code protocol (runs local code)',
  headless: 'headless browser',
  javascript: 'javascript protocol',
  workflows: 'workflow',
  file: 'file protocol (local files)',
  whois: 'whois protocol',
  websocket: 'websocket protocol',
  multi: 'multi-protocol',
};
