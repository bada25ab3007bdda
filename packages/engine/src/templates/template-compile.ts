import { isScalar, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import type { Classification } from '../findings/types.ts';
import { SKIPPED_DSL_FUNCTIONS } from '../operators/dsl/dsl-registry.ts';
import { FLOW_PROTOCOLS, PROTOCOL_KEYS, protocolCompilers } from '../protocols/compilers.ts';
import { usesOob } from '../protocols/oob/oob-markers.ts';
import {
  type CompileOptions,
  checkPlaceholders,
  exactJson,
  TemplateCompileError,
} from './compile-support.ts';
import { type CompiledFlow, compileFlow } from './flow/flow-interpreter.ts';
import {
  type InfoDoc,
  type TemplateDoc,
  UNSUPPORTED_BLOCKS,
  UNSUPPORTED_HTTP_KEYS,
  ZTemplate,
} from './template-schema.ts';
import type {
  CompiledRequest,
  CompiledTemplate,
  HttpPartsWanted,
  LoadOutcome,
  TemplateInfo,
} from './template-types.ts';

export { type CompileOptions, type ParsedYamlCache, TemplateCompileError } from './compile-support.ts';

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
  return ownStrings(doc.toJS({ maxAliasCount: 100 }));
}

/**
 * The parser's strings are slices of the template's text: a compiled template keeping one of
 * them would keep the whole text alive. A JSON round trip gives the document its own strings
 * (as a parsed-YAML cache hit has); a document JSON cannot hold as it is (`.inf`) stays as parsed.
 */
function ownStrings(parsed: unknown): unknown {
  const json = exactJson(parsed);
  return json === undefined ? parsed : JSON.parse(json);
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
  if (PROTOCOL_KEYS.every((key) => doc[key] === undefined)) return 'no supported protocol block';
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

  const blocks = doc as Record<string, unknown[] | undefined>;
  for (const compiler of protocolCompilers) {
    const docs = compiler.keys.flatMap((key) => blocks[key] ?? []);
    docs.forEach((r, i) => {
      index += 1;
      const compiled = compiler.compile(r as never, `${compiler.field}[${i}]`, { file, options });
      requests.push({ ...compiled, index } as CompiledRequest);
    });
  }

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
    ownVariables:
      variables.length > 0 ||
      doc.flow !== undefined ||
      requests.some((r) => r.operators.extractors.some((e) => e.name !== undefined)),
    httpParts: httpPartsOf(lowered),
  };
  if (doc.flow !== undefined) template.flow = compileTemplateFlow(doc.flow);
  return template;
}

const INDEXED = /^[A-Za-z][A-Za-z0-9_]*_\d+$/;
const FLOW_PART = new RegExp(`^(?:${FLOW_PROTOCOLS.join('|')})_(\\d+)_([A-Za-z][A-Za-z0-9_]*)$`);

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
