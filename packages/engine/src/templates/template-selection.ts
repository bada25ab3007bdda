import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import type { CompiledTemplate } from './template-types.ts';

/**
 * Tags a scan leaves out unless asked for, as nuclei does: `dos` and `fuzz` always, plus what
 * nuclei's own default ignore list (nuclei-templates `.nuclei-ignore`) names — `local`,
 * `bruteforce` and `txt-service` at the time of writing. A set's own ignore list adds to these.
 */
export const DEFAULT_EXCLUDED_TAGS = ['dos', 'fuzz', 'local', 'bruteforce', 'txt-service'] as const;

export interface IgnoreList {
  tags: string[];
  /** Paths relative to the set's root (`dns/soa-detect.yaml`). */
  files: string[];
}

/** A set's `.nuclei-ignore` (tags and files left out by default), or empty lists. */
export async function readIgnoreList(dir: string): Promise<IgnoreList> {
  let text: string;
  try {
    text = await readFile(path.join(dir, '.nuclei-ignore'), 'utf8');
  } catch {
    return { tags: [], files: [] };
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return { tags: [], files: [] };
  }
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
  const d = (doc ?? {}) as { tags?: unknown; files?: unknown };
  return {
    tags: strings(d.tags).map((t) => t.trim().toLowerCase()),
    files: strings(d.files).map((f) => f.trim().replace(/^\.\//, '')),
  };
}

export interface TemplateSelection {
  /** Only templates with one of these tags (when given). */
  tags?: string[];
  /** Only templates of these severities (when given). */
  severities?: string[];
  /** Templates with any of these tags are left out (unless one is in `tags`). */
  excludeTags?: string[];
  /** Template files left out: paths relative to a set's root, matched at the end of the file path. */
  excludeFiles?: string[];
}

/** The templates a scan runs, from what was loaded and the scan's selection. */
export function selectTemplates(
  templates: CompiledTemplate[],
  options: TemplateSelection,
): CompiledTemplate[] {
  const wanted = new Set(options.tags?.map((t) => t.toLowerCase()) ?? []);
  const excluded = new Set(
    (options.excludeTags ?? []).map((t) => t.toLowerCase()).filter((t) => !wanted.has(t)),
  );
  const files = (options.excludeFiles ?? []).map((f) => `/${f.replace(/^\/+/, '')}`);
  return templates.filter((t) => {
    const tags = t.info.tags.map((x) => x.toLowerCase());
    if (wanted.size && !tags.some((x) => wanted.has(x))) return false;
    if (options.severities?.length && !options.severities.includes(t.info.severity)) return false;
    if (excluded.size && tags.some((x) => excluded.has(x))) return false;
    const file = t.file.replaceAll(path.sep, '/');
    return !files.some((f) => file.endsWith(f));
  });
}
