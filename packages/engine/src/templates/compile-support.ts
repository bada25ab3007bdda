import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { listPlaceholders } from '../operators/dsl/dsl-interpolate.ts';
import { isDslFunction } from '../operators/dsl/dsl-interpreter.ts';
import { collectDslCalls, parseDsl } from '../operators/dsl/dsl-parser.ts';
import { UNSUPPORTED_DSL_FUNCTIONS } from '../operators/dsl/dsl-registry.ts';
import { compileExtractor, type ExtractorDef } from '../operators/extractors/extractors.ts';
import { compileMatcher, type MatcherDef } from '../operators/matchers/matchers.ts';
import { OperatorCompileError } from '../operators/operator-types.ts';
import { readsOobParts } from '../protocols/oob/oob-markers.ts';
import type { ExtractorDoc, MatcherDoc } from './template-schema.ts';
import type { AttackType, CompiledOperators, CompiledRequest } from './template-types.ts';

/**
 * What every protocol's compile step shares (protocols/<p>/<p>-compile.ts): the error type,
 * the options, operators, payload sets, placeholder checks and `wait_for`.
 */

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

/** The document as JSON, or undefined when JSON cannot keep it as it is (`.inf`, `.nan`). */
export function exactJson(doc: unknown): string | undefined {
  try {
    return JSON.stringify(doc, (_k, v) => {
      if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('not JSON');
      return v;
    });
  } catch {
    return undefined;
  }
}

/** What a protocol's compile step is given besides its request block. */
export interface CompileContext {
  /** The template's file (payload files are found relative to its corpus). */
  file: string;
  options: CompileOptions;
}

/** A compiled request before the template numbers it among all its requests. */
export type UnnumberedRequest = CompiledRequest extends infer R
  ? R extends CompiledRequest
    ? Omit<R, 'index'>
    : never
  : never;

/**
 * One protocol's compile step: the template keys holding its request blocks (in order), its
 * names in a flow, the name its fields are reported under, and the compile of one block.
 */
export interface ProtocolCompiler {
  keys: readonly string[];
  /** The names a `flow:` calls this protocol by (`http(1)`, `tcp()`). */
  flowNames: readonly string[];
  field: string;
  compile(doc: never, field: string, ctx: CompileContext): UnnumberedRequest;
}

const MAX_PAYLOAD_LINES = 10000;
export const MAX_WAIT_MS = 120_000;
const MATCHER_WAIT_FOR = /\bwait_?for\s*\(\s*(\d+(?:\.\d+)?)\s*\)/gi;

type OperatorLists = Pick<CompiledOperators, 'matchers' | 'extractors'>;

/**
 * A request block's compiled matchers and extractors, held weakly. They are compiled once at
 * load (so a broken regex or DSL expression is reported then) and again whenever they are
 * needed after the garbage collector took them: a loaded corpus keeps only its operators as
 * written, not thousands of compiled regexes, DSL trees and closures of templates that are not
 * running. Compiling is deterministic, so a recompiled set decides exactly as the first.
 */
class LazyOperators implements CompiledOperators {
  private compiled: WeakRef<OperatorLists>;
  readonly reportable: boolean;

  constructor(
    private readonly build: () => OperatorLists,
    readonly condition: 'and' | 'or',
    readonly waitMs: number | undefined,
  ) {
    const lists = build();
    this.compiled = new WeakRef(lists);
    this.reportable = lists.matchers.some((m) => !m.internal);
  }

  private lists(): OperatorLists {
    let lists = this.compiled.deref();
    if (!lists) {
      lists = this.build();
      this.compiled = new WeakRef(lists);
    }
    return lists;
  }

  get matchers(): CompiledOperators['matchers'] {
    return this.lists().matchers;
  }

  get extractors(): CompiledOperators['extractors'] {
    return this.lists().extractors;
  }
}

/** The operators of a request block; `oobOperators` when they read `interactsh_*` parts. */
export function compileOperators(
  field: string,
  r: {
    matchers?: MatcherDoc[];
    'matchers-condition'?: 'and' | 'or';
    extractors?: ExtractorDoc[];
  },
): { operators: CompiledOperators; oobOperators?: true } {
  const { matchers = [], extractors = [] } = r;
  let waitMs = 0;
  for (const m of matchers)
    if (m.type === 'dsl')
      for (const expr of m.dsl ?? [])
        for (const w of expr.matchAll(MATCHER_WAIT_FOR)) waitMs += Number(w[1]) * 1000;
  const build = (): OperatorLists => ({
    matchers: matchers.map((m, i) => compileMatcher(m as MatcherDef, `${field}.matchers[${i}]`)),
    extractors: extractors.map((e, i) =>
      compileExtractor(
        {
          ...e,
          ...(e.type === 'regex' && e.group !== undefined ? { group: e.group } : {}),
        } as ExtractorDef,
        `${field}.extractors[${i}]`,
      ),
    ),
  });
  try {
    const operators = new LazyOperators(
      build,
      r['matchers-condition'] ?? 'or',
      waitMs > 0 ? Math.min(waitMs, MAX_WAIT_MS) : undefined,
    );
    return { operators, ...(readsOobParts([matchers, extractors]) ? { oobOperators: true } : {}) };
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

/**
 * A payload file's lines, read when a request runs rather than at load (word lists reach
 * megabytes; most templates of a corpus never run them), held weakly like the operators.
 */
function lazyPayload(payloads: Record<string, string[]>, name: string, file: string, maxLines: number): void {
  let lines: WeakRef<string[]> | undefined;
  Object.defineProperty(payloads, name, {
    enumerable: true,
    get(): string[] {
      let list = lines?.deref();
      if (!list) {
        list = readFileSync(file, 'utf8')
          .split(/\r?\n/)
          .filter((l) => l !== '')
          .slice(0, maxLines);
        lines = new WeakRef(list);
      }
      return list;
    },
  });
}

export function loadPayloads(
  field: string,
  payloads: Record<string, string[] | string> | undefined,
  ctx: CompileContext,
): Record<string, string[]> {
  const { file, options } = ctx;
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
    try {
      if (!statSync(target).isFile()) throw new Error('not a file');
    } catch {
      throw new TemplateCompileError(
        `${field}.payloads.${name}`,
        `payload file '${value}' not found under ${root}`,
      );
    }
    lazyPayload(out, name, target, options.maxPayloadLines ?? MAX_PAYLOAD_LINES);
  }
  return out;
}

/**
 * A `{{…}}` that is no expression of ours (an SSTI or JS payload, an unknown name) is sent as
 * written, as nuclei does; one that calls a nuclei helper we lack is reported.
 */
export function checkPlaceholders(field: string, texts: string[]): void {
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

/**
 * nuclei sleeps while it fills in `{{wait_for(n)}}` and writes `true` in its place; we write
 * `true` now and let the executor wait without blocking the other templates.
 */
export function liftWaits(text: string): { text: string; waitMs: number } {
  let waitMs = 0;
  const out = text.replace(WAIT_FOR, (_m, seconds: string) => {
    waitMs += Number(seconds) * 1000;
    return 'true';
  });
  return { text: out, waitMs: Math.min(waitMs, MAX_WAIT_MS) };
}

export function attackOf(attack: string | undefined, payloads: Record<string, string[]>): AttackType {
  if (attack === 'batteringram' || attack === 'pitchfork' || attack === 'clusterbomb') return attack;
  return Object.keys(payloads).length > 1 ? 'clusterbomb' : 'batteringram';
}
