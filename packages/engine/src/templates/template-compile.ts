import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isScalar, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import type { Classification } from '../findings/types.ts';
import { listPlaceholders } from '../operators/dsl/dsl-interpolate.ts';
import { isDslFunction } from '../operators/dsl/dsl-interpreter.ts';
import { collectDslCalls, parseDsl } from '../operators/dsl/dsl-parser.ts';
import { SKIPPED_DSL_FUNCTIONS, UNSUPPORTED_DSL_FUNCTIONS } from '../operators/dsl/dsl-registry.ts';
import { compileExtractor, type ExtractorDef } from '../operators/extractors/extractors.ts';
import { compileMatcher, type MatcherDef } from '../operators/matchers/matchers.ts';
import { OperatorCompileError } from '../operators/operator-types.ts';
import { readsOobParts, usesOob } from '../protocols/oob/oob-markers.ts';
import { type CompiledFlow, compileFlow } from './flow/flow-interpreter.ts';
import { AnnotationError, compileAnnotations } from './raw-annotations.ts';
import {
  type ExtractorDoc,
  type InfoDoc,
  type MatcherDoc,
  type TemplateDoc,
  UNSUPPORTED_BLOCKS,
  UNSUPPORTED_HTTP_KEYS,
  ZTemplate,
} from './template-schema.ts';
import type {
  AttackType,
  CompiledDnsRequest,
  CompiledHttpRequest,
  CompiledNetworkRequest,
  CompiledOperators,
  CompiledRequest,
  CompiledSslRequest,
  CompiledTemplate,
  HttpPartsWanted,
  LoadOutcome,
  RawHttpSpec,
  TemplateInfo,
} from './template-types.ts';

export class TemplateCompileError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'TemplateCompileError';
  }
}

export interface CompileOptions {
  /** Root of the templates directory; payload files are resolved inside it. */
  templatesDir?: string;
  /** Maximum number of lines read from a payload file. */
  maxPayloadLines?: number;
  /** Parsed YAML by content (see template-cache.ts): a hit skips the YAML parser. */
  yamlCache?: ParsedYamlCache;
}

/** Parsed template documents looked up by the template's text. */
export interface ParsedYamlCache {
  get(source: string): unknown;
  set(source: string, parsed: unknown): void;
}

const FLOW_PROTOCOLS = ['http', 'dns', 'tcp', 'network', 'ssl'];
const MAX_PAYLOAD_LINES = 10000;

/** Removes the signature line nuclei appends (`# digest: ...`), wherever it sits. */
export function stripDigest(source: string): string {
  return source.replace(/^#\s*digest:.*$/gm, '');
}

type ZodIssue = z.ZodError['issues'][number];

const plural = (expected: string): string => (expected === 'array' ? 'a list' : `a ${expected}`);

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (v === undefined) return 'nothing';
  return `a ${typeof v}`;
}

function valueAt(doc: unknown, path: PropertyKey[]): unknown {
  let v = doc;
  for (const k of path)
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** The most specific problem of an issue: unions are opened to the branch that got furthest. */
function deepestIssue(issue: ZodIssue, base: PropertyKey[]): { path: PropertyKey[]; issues: ZodIssue[] } {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || !('errors' in issue) || issue.errors.length === 0)
    return { path, issues: [issue] };
  const branches = issue.errors.map((branch) =>
    branch.map((sub) => deepestIssue(sub, path)).reduce((a, b) => (b.path.length > a.path.length ? b : a)),
  );
  const deepest = Math.max(...branches.map((b) => b.path.length));
  const at = branches.filter((b) => b.path.length === deepest);
  return { path: at[0]?.path ?? path, issues: at.flatMap((b) => b.issues) };
}

/** Names the field and says what is wrong ("expected a list or a string, got a mapping"). */
export function describeZodError(error: z.ZodError, doc: unknown): { field: string; reason: string } {
  const issue = error.issues[0];
  if (!issue) return { field: '', reason: 'invalid template' };
  const { path, issues } = deepestIssue(issue, []);
  const field = path.map(String).join('.') || '(root)';
  const value = valueAt(doc, path);
  const expected = [
    ...new Set(issues.flatMap((i) => (i.code === 'invalid_type' ? [plural(String(i.expected))] : []))),
  ];
  if (expected.length > 0 && expected.length === issues.length)
    return {
      field,
      reason:
        value === undefined
          ? `missing (expected ${expected.join(' or ')})`
          : `expected ${expected.join(' or ')}, got ${kindOf(value)}`,
    };
  const first = issues[0] as ZodIssue;
  if (first.code === 'invalid_value' && 'values' in first)
    return { field, reason: `'${String(value)}' is not one of ${first.values.map(String).join(', ')}` };
  if (
    first.code === 'invalid_union' &&
    'options' in first &&
    Array.isArray((first as { options?: unknown[] }).options)
  )
    return {
      field,
      reason: `'${String(value)}' is not one of ${(first as { options: unknown[] }).options.join(', ')}`,
    };
  return { field, reason: first.message.replace(/^Invalid input: /, '') };
}

function toInfo(doc: InfoDoc): TemplateInfo {
  const c = doc.classification;
  let classification: Classification | undefined;
  if (c) {
    classification = {};
    if (c['cvss-metrics']) classification.cvssMetrics = c['cvss-metrics'];
    if (c['cvss-score'] !== undefined && c['cvss-score'] !== null) classification.cvssScore = c['cvss-score'];
    if (c['cve-id']?.length)
      classification.cveId = c['cve-id'].flatMap((s) => s.split(',')).map((s) => s.trim());
    if (c['cwe-id']?.length)
      classification.cweId = c['cwe-id'].flatMap((s) => s.split(',')).map((s) => s.trim());
    if (c['epss-score'] !== undefined && c['epss-score'] !== null) classification.epssScore = c['epss-score'];
    if (c['epss-percentile'] !== undefined && c['epss-percentile'] !== null)
      classification.epssPercentile = c['epss-percentile'];
    if (c.cpe) classification.cpe = c.cpe;
  }
  return {
    name: doc.name,
    authors: doc.author ?? [],
    severity: doc.severity,
    ...(doc.description ? { description: doc.description.trim() } : {}),
    ...(doc.impact ? { impact: doc.impact.trim() } : {}),
    ...(doc.remediation ? { remediation: doc.remediation.trim() } : {}),
    references: (doc.reference ?? []).flatMap((r) => r.split(/\s+/)).filter((r) => r !== ''),
    tags: doc.tags ?? [],
    ...(classification ? { classification } : {}),
    metadata: doc.metadata ?? {},
  };
}

const MATCHER_WAIT_FOR = /\bwait_?for\s*\(\s*(\d+(?:\.\d+)?)\s*\)/gi;

function compileOperators(
  field: string,
  matchers: MatcherDoc[] | undefined,
  condition: 'and' | 'or' | undefined,
  extractors: ExtractorDoc[] | undefined,
): CompiledOperators {
  let waitMs = 0;
  for (const m of matchers ?? [])
    if (m.type === 'dsl')
      for (const expr of m.dsl ?? [])
        for (const w of expr.matchAll(MATCHER_WAIT_FOR)) waitMs += Number(w[1]) * 1000;
  try {
    return {
      matchers: (matchers ?? []).map((m, i) => compileMatcher(m as MatcherDef, `${field}.matchers[${i}]`)),
      condition: condition ?? 'or',
      ...(waitMs > 0 ? { waitMs: Math.min(waitMs, MAX_WAIT_MS) } : {}),
      extractors: (extractors ?? []).map((e, i) =>
        compileExtractor(
          {
            ...e,
            ...(e.type === 'regex' && e.group !== undefined ? { group: e.group } : {}),
          } as ExtractorDef,
          `${field}.extractors[${i}]`,
        ),
      ),
    };
  } catch (err) {
    if (err instanceof OperatorCompileError) throw new TemplateCompileError(err.field, err.message);
    throw err;
  }
}

/**
 * The folder a payload path is relative to. nuclei resolves `helpers/…` against the corpus
 * root — the nearest folder above the template (or above the folder given) that holds a
 * `helpers/` folder — so validating `http/cves` alone still finds `helpers/wordlists/…`.
 */
function payloadRoot(value: string, file: string, templatesDir: string | undefined): string | undefined {
  const given = templatesDir ? path.resolve(templatesDir) : undefined;
  if (given && existsSync(path.resolve(given, value))) return given;
  if (!value.startsWith('helpers/')) return given;
  for (const start of [path.dirname(path.resolve(file)), ...(given ? [given] : [])]) {
    let dir = start;
    for (let depth = 0; depth < 12; depth++) {
      if (existsSync(path.join(dir, 'helpers'))) return dir;
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return given;
}

function loadPayloads(
  field: string,
  payloads: Record<string, string[] | string> | undefined,
  file: string,
  options: CompileOptions,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(payloads ?? {})) {
    if (Array.isArray(value)) {
      out[name] = value;
      continue;
    }
    // A string is a file path (nuclei treats a multi-line string as inline lines).
    if (value.includes('\n')) {
      out[name] = value.split('\n').filter((l) => l !== '');
      continue;
    }
    const rootDir = payloadRoot(value, file, options.templatesDir);
    if (!rootDir)
      throw new TemplateCompileError(`${field}.payloads.${name}`, 'payload file needs a templates directory');
    const root = path.resolve(rootDir);
    const target = path.resolve(root, value);
    if (!target.startsWith(root + path.sep))
      throw new TemplateCompileError(
        `${field}.payloads.${name}`,
        `payload file '${value}' is outside the templates directory`,
      );
    let text: string;
    try {
      text = readFileSync(target, 'utf8');
    } catch {
      throw new TemplateCompileError(
        `${field}.payloads.${name}`,
        `payload file '${value}' not found under ${root}`,
      );
    }
    out[name] = text
      .split(/\r?\n/)
      .filter((l) => l !== '')
      .slice(0, options.maxPayloadLines ?? MAX_PAYLOAD_LINES);
  }
  return out;
}

/**
 * YAML reads `00000000` or `0x1f` as numbers; template data (hex inputs, ports lists) needs
 * the text as written, so a number whose source has a leading zero or a radix stays a string.
 */
function parseYamlKeepingDigits(source: string): unknown {
  const doc = parseDocument(source);
  if (doc.errors.length > 0) throw doc.errors[0] as Error;
  visit(doc, {
    Scalar(_key, node) {
      if (
        isScalar(node) &&
        typeof node.value === 'number' &&
        typeof node.source === 'string' &&
        (/^[-+]?0[\dxXoObB_]/.test(node.source) ||
          (Number.isInteger(node.value) && !Number.isSafeInteger(node.value)))
      )
        node.value = node.source;
    },
  });
  return doc.toJS({ maxAliasCount: 100 });
}

/**
 * A `{{…}}` that is no expression of ours (an SSTI or JS payload, an unknown name) is sent as
 * written, as nuclei does; one that calls a nuclei helper we lack is reported.
 */
function checkPlaceholders(field: string, texts: string[]): void {
  for (const text of texts) {
    for (const expr of listPlaceholders(text)) {
      if (/^[A-Za-z_][\w.-]*$/.test(expr)) continue;
      let calls: Set<string>;
      try {
        calls = collectDslCalls(parseDsl(expr));
      } catch {
        continue;
      }
      for (const name of calls)
        if (UNSUPPORTED_DSL_FUNCTIONS.has(name.toLowerCase()) && !isDslFunction(name))
          throw new TemplateCompileError(field, `nuclei helper '${name}' is not supported`);
    }
  }
}

const WAIT_FOR = /\{\{\s*wait_?for\(\s*(\d+(?:\.\d+)?)\s*\)\s*\}\}/gi;
const MAX_WAIT_MS = 120_000;

/**
 * nuclei sleeps while it fills in `{{wait_for(n)}}` and writes `true` in its place; we write
 * `true` now and let the executor wait without blocking the other templates.
 */
function liftWaits(text: string): { text: string; waitMs: number } {
  let waitMs = 0;
  const out = text.replace(WAIT_FOR, (_m, seconds: string) => {
    waitMs += Number(seconds) * 1000;
    return 'true';
  });
  return { text: out, waitMs: Math.min(waitMs, MAX_WAIT_MS) };
}

function parseRaw(text: string): RawHttpSpec {
  const annotations: Record<string, string> = {};
  const lines = text.replace(/^\s*\n/, '').split('\n');
  while (lines.length > 0 && /^\s*@/.test(lines[0] as string)) {
    const line = (lines.shift() as string).trim();
    const m = /^@([\w-]+)\s*:?\s*(.*)$/.exec(line);
    // `@once` has no value; the others are `@name: value`.
    if (m) annotations[(m[1] as string).toLowerCase()] = (m[2] as string).trim();
  }
  const rest = lines.join('\n');
  const requestLine = rest.trimStart().split('\n')[0] ?? '';
  // The method may be a placeholder (`{{verb}} http://… HTTP/1.1`), checked once filled in.
  if (!/^([A-Za-z]+|\{\{[^{}]+\}\})\s+\S+/.test(requestLine.trim()))
    throw new TemplateCompileError('raw', `invalid request line '${requestLine.trim().slice(0, 60)}'`);
  try {
    return { kind: 'raw', text: rest.trimStart(), annotations, annotated: compileAnnotations(annotations) };
  } catch (err) {
    if (err instanceof AnnotationError) throw new TemplateCompileError('raw', err.message);
    throw err;
  }
}

function attackOf(attack: string | undefined, payloads: Record<string, string[]>): AttackType {
  if (attack === 'batteringram' || attack === 'pitchfork' || attack === 'clusterbomb') return attack;
  return Object.keys(payloads).length > 1 ? 'clusterbomb' : 'batteringram';
}

function parsePorts(field: string, port: string | undefined): number[] {
  if (port === undefined || port.trim() === '') return [];
  return port.split(',').map((p) => {
    const n = Number(p.trim());
    if (!Number.isInteger(n) || n < 1 || n > 65535)
      throw new TemplateCompileError(field, `invalid port '${p}'`);
    return n;
  });
}

function decodeInput(
  field: string,
  data: string,
  type: string | undefined,
): { data: Buffer | string; hex?: true } {
  if (type === 'hex') {
    // With placeholders the text is hex only once filled in: decoded when sent.
    if (data.includes('{{')) return { data, hex: true };
    const hex = data.replace(/\s+/g, '');
    if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new TemplateCompileError(field, 'input data is not hex');
    return { data: Buffer.from(hex, 'hex') };
  }
  return { data };
}

function compileTemplateFlow(flow: string): CompiledFlow {
  try {
    return compileFlow(flow, FLOW_PROTOCOLS);
  } catch (err) {
    throw new TemplateCompileError('flow', (err as Error).message);
  }
}

function findUnsupported(doc: Record<string, unknown>, source: string): string | undefined {
  for (const [key, reason] of Object.entries(UNSUPPORTED_BLOCKS)) if (doc[key] !== undefined) return reason;
  // Gadget chains other than URLDNS are large bytecode blobs nuclei carries copied from
  // ysoserial; we do not ship them.
  if (/generate_?java_?gadget\s*\(\s*["'](?!dns["'])/i.test(source))
    return 'needs a ysoserial gadget chain other than URLDNS (not shipped)';
  if (/generate_?dotnet_?gadget\s*\(/i.test(source)) return 'needs a .NET gadget chain (not shipped)';
  const http = [...((doc.http as unknown[]) ?? []), ...((doc.requests as unknown[]) ?? [])] as Record<
    string,
    unknown
  >[];
  for (const [key, reason] of Object.entries(UNSUPPORTED_HTTP_KEYS))
    if (http.some((r) => r && r[key] !== undefined && r[key] !== false)) return reason;
  for (const [name, reason] of Object.entries(SKIPPED_DSL_FUNCTIONS))
    if (new RegExp(`\\b${name}\\s*\\(`, 'i').test(source)) return reason;
  if (doc['self-contained'] === true) return 'self-contained (targets fixed external URLs)';
  if (
    doc.tcp === undefined &&
    doc.network === undefined &&
    doc.http === undefined &&
    doc.requests === undefined &&
    doc.dns === undefined &&
    doc.ssl === undefined
  )
    return 'no supported protocol block';
  return undefined;
}

/** Parses and compiles one template's text. Never throws: problems become outcomes. */
export function compileTemplateSource(
  source: string,
  file: string,
  options: CompileOptions = {},
): LoadOutcome {
  let raw: unknown = options.yamlCache?.get(source);
  try {
    if (raw === undefined) {
      raw = parseYamlKeepingDigits(stripDigest(source));
      options.yamlCache?.set(source, raw);
    }
  } catch (err) {
    // The YAML parser's message names the line and column and quotes the lines around it.
    return {
      status: 'invalid',
      file,
      field: '(yaml)',
      reason: (err as Error).message.trimEnd() || 'invalid YAML',
    };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { status: 'invalid', file, field: '(root)', reason: 'not a YAML mapping' };
  const rec = raw as Record<string, unknown>;
  const id = typeof rec.id === 'string' ? rec.id : undefined;
  const skip = findUnsupported(rec, source);
  if (skip) return { status: 'skipped', file, ...(id ? { id } : {}), reason: skip };
  const parsed = ZTemplate.safeParse(raw);
  if (!parsed.success)
    return { status: 'invalid', file, ...(id ? { id } : {}), ...describeZodError(parsed.error, raw) };
  try {
    const template = compileTemplateDoc(parsed.data, file, options);
    if (usesOob(stripDigest(source))) template.oob = true;
    return { status: 'ok', template };
  } catch (err) {
    if (err instanceof TemplateCompileError)
      return { status: 'invalid', file, ...(id ? { id } : {}), field: err.field, reason: err.message };
    return {
      status: 'invalid',
      file,
      ...(id ? { id } : {}),
      field: '(template)',
      reason: (err as Error).message,
    };
  }
}

export function compileTemplateDoc(
  doc: TemplateDoc,
  file: string,
  options: CompileOptions = {},
): CompiledTemplate {
  const requests: CompiledRequest[] = [];
  let index = 0;
  const variables = Object.entries(doc.variables ?? {});
  checkPlaceholders(
    'variables',
    variables.map(([, v]) => v),
  );

  const http = [...(doc.http ?? []), ...(doc.requests ?? [])];
  http.forEach((r, i) => {
    const field = `http[${i}]`;
    const payloads = loadPayloads(field, r.payloads, file, options);
    const specs: CompiledHttpRequest['specs'] = [];
    for (const [j, written] of (r.path ?? []).entries()) {
      const { text: p, waitMs } = liftWaits(written);
      checkPlaceholders(`${field}.path[${j}]`, [p]);
      specs.push({ kind: 'path', path: p, ...(waitMs ? { waitMs } : {}) });
    }
    for (const [j, written] of (r.raw ?? []).entries()) {
      const { text, waitMs } = liftWaits(written);
      checkPlaceholders(`${field}.raw[${j}]`, [text]);
      try {
        specs.push({ ...parseRaw(text), ...(waitMs ? { waitMs } : {}) });
      } catch (err) {
        if (err instanceof TemplateCompileError)
          throw new TemplateCompileError(`${field}.raw[${j}]`, err.message);
        throw err;
      }
    }
    if (specs.length === 0) throw new TemplateCompileError(`${field}.path`, 'a request needs path or raw');
    const method = (r.method ?? 'GET').toUpperCase();
    if (!/^[A-Z]+$/.test(method))
      throw new TemplateCompileError(`${field}.method`, `invalid method '${r.method}'`);
    checkPlaceholders(`${field}.headers`, Object.values(r.headers ?? {}));
    if (r.body !== undefined) checkPlaceholders(`${field}.body`, [r.body]);
    index += 1;
    requests.push({
      protocol: 'http',
      index,
      ...(r.id ? { id: r.id } : {}),
      method,
      specs,
      headers: r.headers ?? {},
      ...(r.body !== undefined ? { body: r.body } : {}),
      redirects: r.redirects === true || r['host-redirects'] === true,
      hostRedirects: r['host-redirects'] === true && r.redirects !== true,
      maxRedirects: r['max-redirects'] ?? 10,
      stopAtFirstMatch: r['stop-at-first-match'] === true,
      cookieReuse: r['cookie-reuse'] === true || r['disable-cookie'] !== true,
      reqCondition: r['req-condition'] === true,
      ...(r['max-size'] !== undefined ? { maxSize: r['max-size'] } : {}),
      unsafe: r.unsafe === true && (r.raw ?? []).length > 0,
      readAll: r['read-all'] === true,
      payloads,
      attack: attackOf(r.attack, payloads),
      operators: compileOperators(field, r.matchers, r['matchers-condition'], r.extractors),
      ...(readsOobParts([r.matchers, r.extractors]) ? { oobOperators: true } : {}),
    });
  });

  (doc.dns ?? []).forEach((r, i) => {
    const field = `dns[${i}]`;
    checkPlaceholders(`${field}.name`, [r.name]);
    const payloads = loadPayloads(field, r.payloads, file, options);
    index += 1;
    requests.push({
      protocol: 'dns',
      index,
      name: r.name,
      type: r.type,
      recursion: r.recursion !== false,
      retries: r.retries ?? 1,
      payloads,
      attack: attackOf(undefined, payloads),
      operators: compileOperators(field, r.matchers, r['matchers-condition'], r.extractors),
      ...(readsOobParts([r.matchers, r.extractors]) ? { oobOperators: true } : {}),
    });
  });

  [...(doc.tcp ?? []), ...(doc.network ?? [])].forEach((r, i) => {
    const field = `tcp[${i}]`;
    const hosts = [...(r.host ?? []), ...(r.address ?? [])];
    if (hosts.length === 0) throw new TemplateCompileError(`${field}.host`, 'no host');
    checkPlaceholders(`${field}.host`, hosts);
    const inputs = (r.inputs ?? []).map((inp, j) => {
      const data = inp.data ?? '';
      checkPlaceholders(`${field}.inputs[${j}].data`, [data]);
      return {
        ...decodeInput(`${field}.inputs[${j}].data`, data, inp.type),
        ...(inp.read !== undefined ? { read: inp.read } : {}),
        ...(inp.name !== undefined ? { name: inp.name } : {}),
      };
    });
    const payloads = loadPayloads(field, r.payloads, file, options);
    index += 1;
    requests.push({
      protocol: 'network',
      index,
      hosts,
      ports: parsePorts(`${field}.port`, r.port),
      inputs,
      readSize: r['read-size'] ?? 1024,
      ...(/\bjarm\s*\(/i.test(JSON.stringify([r.matchers ?? [], r.extractors ?? []])) ? { jarm: true } : {}),
      payloads,
      attack: attackOf(undefined, payloads),
      operators: compileOperators(field, r.matchers, r['matchers-condition'], r.extractors),
      ...(readsOobParts([r.matchers, r.extractors]) ? { oobOperators: true } : {}),
    } satisfies CompiledNetworkRequest);
  });

  (doc.ssl ?? []).forEach((r, i) => {
    const field = `ssl[${i}]`;
    checkPlaceholders(`${field}.address`, [r.address]);
    for (const [key, v] of [
      ['min_version', r.min_version],
      ['max_version', r.max_version],
    ] as const) {
      if (v !== undefined && !TLS_VERSIONS[v.toLowerCase()])
        throw new TemplateCompileError(`${field}.${key}`, `unknown TLS version '${v}'`);
    }
    index += 1;
    requests.push({
      protocol: 'ssl',
      index,
      address: r.address,
      ...(r.min_version ? { minVersion: r.min_version.toLowerCase() } : {}),
      ...(r.max_version ? { maxVersion: r.max_version.toLowerCase() } : {}),
      payloads: {},
      attack: 'batteringram',
      operators: compileOperators(field, r.matchers, r['matchers-condition'], r.extractors),
      ...(readsOobParts([r.matchers, r.extractors]) ? { oobOperators: true } : {}),
    } satisfies CompiledSslRequest);
  });

  if (requests.length === 0) throw new TemplateCompileError('(root)', 'no requests');
  const words = wordsOf(doc);
  const lowered = new Set<string>();
  for (const w of words) lowered.add(w.toLowerCase().replace(/_\d+$/, ''));
  const template: CompiledTemplate = {
    id: doc.id,
    file,
    info: toInfo(doc.info),
    variables,
    requests,
    protocols: new Set(requests.map((r) => r.protocol)),
    indexedParts: indexedPartsOf(words),
    httpParts: httpPartsOf(lowered),
  };
  if (doc.flow !== undefined) template.flow = compileTemplateFlow(doc.flow);
  return template;
}

const INDEXED = /^[A-Za-z][A-Za-z0-9_]*_\d+$/;
const FLOW_PART = /^(?:http|dns|tcp|network|ssl)_(\d+)_([A-Za-z][A-Za-z0-9_]*)$/;

/** `body_2`-style names, and the `host_1` a flow's `template.http_1_host` reads. */
function indexedPartsOf(words: Set<string>): string[] {
  const out = new Set<string>();
  for (const w of words) {
    const flow = FLOW_PART.exec(w);
    if (flow) out.add(`${flow[2]}_${flow[1]}`);
    else if (INDEXED.test(w)) out.add(w);
  }
  return [...out];
}
const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * Every word of every key and string value of the template (over-approximates any reference
 * to a part or variable; never misses one). Read from the strings themselves, not their JSON
 * form, where `\n` would glue an `n` onto the next word.
 */
function wordsOf(doc: unknown): Set<string> {
  const words = new Set<string>();
  // The info block is text for people: nothing in it is evaluated against a response.
  const { info: _info, ...rest } = (doc ?? {}) as Record<string, unknown>;
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(WORD)) words.add(m[0]);
    } else if (Array.isArray(v)) {
      for (const x of v) visit(x);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        visit(k);
        visit(x);
      }
    }
  };
  visit(rest);
  return words;
}

/** The derived http parts a template's words can reach (see `readPart` for `all`/`response`). */
function httpPartsOf(words: Set<string>): HttpPartsWanted {
  return {
    raw: words.has('raw') || words.has('response') || words.has('all'),
    request: words.has('request'),
    header: words.has('header') || words.has('all_headers'),
    title: words.has('title'),
  };
}

/** nuclei's TLS version names → Node's. SSLv3 is not offered by Node and fails cleanly. */
export const TLS_VERSIONS: Record<string, string> = {
  sslv3: 'SSLv3',
  ssl30: 'SSLv3',
  tls10: 'TLSv1',
  tls11: 'TLSv1.1',
  tls12: 'TLSv1.2',
  tls13: 'TLSv1.3',
};

export type { CompiledDnsRequest, CompiledHttpRequest };
