import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoadedTemplates, loadTemplates } from './template-loader.ts';
import type { CompiledTemplate } from './template-types.ts';

/** The built-in pack shipped with the engine (packages/engine/templates). */
export const BUILTIN_TEMPLATES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../templates',
);

let loadCache: { key: string; loaded: Promise<LoadedTemplateSets> } | null = null;

/** The stage's folders loaded; with a `cacheKey`, once per process for that key (see TemplateStageConfig). */
export function loadStageTemplates(
  dirs: string[],
  cacheKey: string | undefined,
): Promise<LoadedTemplateSets> {
  if (cacheKey === undefined) return loadTemplateSets(dirs, { builtinDirs: [BUILTIN_TEMPLATES_DIR] });
  const key = `${cacheKey}\u0000${dirs.join('\u0000')}`;
  if (loadCache?.key !== key) {
    const loaded = loadTemplateSets(dirs, { builtinDirs: [BUILTIN_TEMPLATES_DIR] });
    loadCache = { key, loaded };
    // A failed load is not kept.
    loaded.catch(() => {
      if (loadCache?.loaded === loaded) loadCache = null;
    });
  }
  return loadCache.loaded;
}

/** A template that replaced another of the same id (the operator's copy wins). */
export interface TemplateOverride {
  id: string;
  /** The file that runs. */
  kept: string;
  /** The file left out. */
  replaced: string;
}

export interface LoadedTemplateSets extends LoadedTemplates {
  overrides: TemplateOverride[];
}

/**
 * Loads template directories. When two templates share an id, the operator's copy (from a
 * directory not in `builtinDirs`, such as `--templates`) wins over the built-in pack; between
 * two of the same kind the first directory wins. Each such choice is listed in `overrides`.
 */
export async function loadTemplateSets(
  dirs: string[],
  options: { builtinDirs?: string[] } = {},
): Promise<LoadedTemplateSets> {
  const all: LoadedTemplateSets = { templates: [], invalid: [], skipped: [], total: 0, overrides: [] };
  const builtin = new Set((options.builtinDirs ?? []).map((d) => path.resolve(d)));
  const byId = new Map<string, { template: CompiledTemplate; isBuiltin: boolean }>();
  for (const dir of dirs) {
    const isBuiltin = builtin.has(path.resolve(dir));
    const l = await loadTemplates(dir);
    all.total += l.total;
    all.invalid.push(...l.invalid);
    all.skipped.push(...l.skipped);
    for (const t of l.templates) {
      const seen = byId.get(t.id);
      if (!seen) {
        byId.set(t.id, { template: t, isBuiltin });
        continue;
      }
      const replace = seen.isBuiltin && !isBuiltin;
      const kept = replace ? t : seen.template;
      const dropped = replace ? seen.template : t;
      if (replace) byId.set(t.id, { template: t, isBuiltin });
      all.overrides.push({ id: t.id, kept: kept.file, replaced: dropped.file });
    }
  }
  all.templates = [...byId.values()].map((x) => x.template);
  return all;
}
