import { readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { defaultTemplateCacheDir, TemplateYamlCache } from './template-cache.ts';
import { type CompileOptions, compileTemplateSource } from './template-compile.ts';
import type { CompiledTemplate, LoadOutcome } from './template-types.ts';

/** The corpus's largest template is 1.25 MB (a plugin-detection list); 4 MB leaves room. */
export const MAX_TEMPLATE_BYTES = 4 * 1024 * 1024;

/** Lists template files (`.yaml`/`.yml`) under a directory, sorted, skipping dot-folders. */
export async function listTemplateFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    const entries = await readdir(d, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile() && /\.ya?ml$/i.test(e.name)) out.push(full);
    }
  }
  await walk(dir);
  return out;
}

/**
 * A template file's text, or why it cannot be loaded (too large, unreadable). Read
 * synchronously: a template is a few kilobytes from the page cache, and the promise API's
 * four thread-pool round trips a file cost more CPU than the read itself.
 */
function readTemplateFile(file: string): string | LoadOutcome {
  try {
    const info = statSync(file);
    if (info.size > MAX_TEMPLATE_BYTES)
      return { status: 'invalid', file, field: '(file)', reason: `larger than ${MAX_TEMPLATE_BYTES} bytes` };
    return readFileSync(file, 'utf8');
  } catch (err) {
    return { status: 'invalid', file, field: '(file)', reason: (err as Error).message };
  }
}

export async function loadTemplateFile(file: string, options: CompileOptions = {}): Promise<LoadOutcome> {
  const text = readTemplateFile(file);
  return typeof text === 'string' ? compileTemplateSource(text, file, options) : text;
}

/** Sets smaller than this load fast enough without a cache file. */
const CACHE_MIN_FILES = 200;

export interface LoadOptions extends CompileOptions {
  /**
   * Folder of parsed-YAML caches (see template-cache.ts); default `defaultTemplateCacheDir()`.
   * Used for sets of 200 templates or more.
   */
  cacheDir?: string;
}

export interface LoadedTemplates {
  templates: CompiledTemplate[];
  invalid: Extract<LoadOutcome, { status: 'invalid' }>[];
  skipped: Extract<LoadOutcome, { status: 'skipped' }>[];
  total: number;
}

/**
 * Loads every template of a directory. Broken templates are listed with their reason, never
 * thrown; duplicate ids keep the first file and report the others as invalid.
 */
export async function loadTemplates(dir: string, options: LoadOptions = {}): Promise<LoadedTemplates> {
  const files = await listTemplateFiles(dir);
  const result: LoadedTemplates = { templates: [], invalid: [], skipped: [], total: files.length };
  const seen = new Set<string>();
  const { cacheDir = defaultTemplateCacheDir(), ...compileOptions } = options;
  const cache =
    cacheDir !== undefined && files.length >= CACHE_MIN_FILES
      ? await TemplateYamlCache.open(
          cacheDir,
          files.map((f) => path.relative(dir, f)),
        )
      : undefined;
  const opts: CompileOptions = {
    templatesDir: dir,
    ...compileOptions,
    ...(cache ? { yamlCache: cache } : {}),
  };
  for (let i = 0; i < files.length; i++) {
    const file = files[i] as string;
    const text = readTemplateFile(file);
    // Compiling is synchronous: give other work on this process a turn now and then.
    if (i % 256 === 255) await new Promise((r) => setImmediate(r));
    const outcome = typeof text === 'string' ? compileTemplateSource(text, file, opts) : text;
    if (outcome.status === 'ok') {
      if (seen.has(outcome.template.id)) {
        result.invalid.push({
          status: 'invalid',
          file,
          id: outcome.template.id,
          field: 'id',
          reason: `duplicate id '${outcome.template.id}'`,
        });
        continue;
      }
      seen.add(outcome.template.id);
      result.templates.push(outcome.template);
    } else if (outcome.status === 'invalid') result.invalid.push(outcome);
    else result.skipped.push(outcome);
  }
  // A cache that cannot be written (read-only home, full disk) only costs the next load time.
  await cache?.save().catch(() => {});
  return result;
}

/** Skipped templates counted by reason, most frequent first. */
export function countSkipReasons(skipped: { reason: string }[]): { reason: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const s of skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  return [...counts]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

export class TemplatePathError extends Error {}

export interface ValidationReport {
  valid: number;
  total: number;
  skipped: { file: string; reason: string }[];
  /** Skipped templates by reason (most frequent first). */
  skippedByReason: { reason: string; count: number }[];
  invalid: { file: string; field: string; reason: string }[];
  /** Human-readable lines; the last one is `valid N of M`. */
  lines: string[];
}

/**
 * `perimeter-scan templates validate <dir|file>`: how many templates parse and compile, the
 * reason for each one that does not (skipped templates are recognised but not run). A path
 * that does not exist throws TemplatePathError with a plain message.
 */
export async function validateTemplates(
  target: string,
  options: CompileOptions = {},
): Promise<ValidationReport> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(target);
  } catch {
    throw new TemplatePathError(`no such file or folder: ${target}`);
  }
  let loaded: LoadedTemplates;
  let base: string;
  if (info.isDirectory()) {
    loaded = await loadTemplates(target, options);
    base = target;
  } else {
    const outcome = await loadTemplateFile(target, options);
    loaded = { templates: [], invalid: [], skipped: [], total: 1 };
    if (outcome.status === 'ok') loaded.templates.push(outcome.template);
    else if (outcome.status === 'invalid') loaded.invalid.push(outcome);
    else loaded.skipped.push(outcome);
    base = path.dirname(target);
  }
  const rel = (f: string) => path.relative(base, f) || f;
  // Multi-line reasons (a YAML error quotes the lines around it) stay readable, indented.
  const indent = (s: string) => s.replace(/\n/g, '\n    ');
  const lines: string[] = [];
  for (const s of loaded.skipped) lines.push(`skipped ${rel(s.file)}: ${s.reason}`);
  for (const i of loaded.invalid) lines.push(`invalid ${rel(i.file)}: ${i.field}: ${indent(i.reason)}`);
  const skippedByReason = countSkipReasons(loaded.skipped);
  for (const r of skippedByReason) lines.push(`skipped ${r.count}: ${r.reason}`);
  lines.push(`valid ${loaded.templates.length} of ${loaded.total}`);
  return {
    valid: loaded.templates.length,
    total: loaded.total,
    skipped: loaded.skipped.map((s) => ({ file: rel(s.file), reason: s.reason })),
    skippedByReason,
    invalid: loaded.invalid.map((i) => ({ file: rel(i.file), field: i.field, reason: i.reason })),
    lines,
  };
}
