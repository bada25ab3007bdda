import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type CompileOptions, compileTemplateSource } from './template-compile.js';
import type { CompiledTemplate, LoadOutcome } from './template-types.js';

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

export async function loadTemplateFile(file: string, options: CompileOptions = {}): Promise<LoadOutcome> {
  try {
    const info = await stat(file);
    if (info.size > MAX_TEMPLATE_BYTES)
      return { status: 'invalid', file, field: '(file)', reason: `larger than ${MAX_TEMPLATE_BYTES} bytes` };
    return compileTemplateSource(await readFile(file, 'utf8'), file, options);
  } catch (err) {
    return { status: 'invalid', file, field: '(file)', reason: (err as Error).message };
  }
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
export async function loadTemplates(dir: string, options: CompileOptions = {}): Promise<LoadedTemplates> {
  const files = await listTemplateFiles(dir);
  const result: LoadedTemplates = { templates: [], invalid: [], skipped: [], total: files.length };
  const seen = new Set<string>();
  const opts = { templatesDir: dir, ...options };
  for (const file of files) {
    const outcome = await loadTemplateFile(file, opts);
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
  return result;
}

export interface ValidationReport {
  valid: number;
  total: number;
  skipped: { file: string; reason: string }[];
  invalid: { file: string; field: string; reason: string }[];
  /** Human-readable lines; the last one is `valid N of M`. */
  lines: string[];
}

/**
 * `perimeter-scan templates validate <dir>`: how many templates parse and compile, the
 * reason for each one that does not (skipped templates are recognised but not run).
 */
export async function validateTemplates(
  dir: string,
  options: CompileOptions = {},
): Promise<ValidationReport> {
  const loaded = await loadTemplates(dir, options);
  const rel = (f: string) => path.relative(dir, f) || f;
  const lines: string[] = [];
  for (const s of loaded.skipped) lines.push(`skipped ${rel(s.file)}: ${s.reason}`);
  for (const i of loaded.invalid) lines.push(`invalid ${rel(i.file)}: ${i.field}: ${i.reason}`);
  lines.push(`valid ${loaded.templates.length} of ${loaded.total}`);
  return {
    valid: loaded.templates.length,
    total: loaded.total,
    skipped: loaded.skipped.map((s) => ({ file: rel(s.file), reason: s.reason })),
    invalid: loaded.invalid.map((i) => ({ file: rel(i.file), field: i.field, reason: i.reason })),
    lines,
  };
}
