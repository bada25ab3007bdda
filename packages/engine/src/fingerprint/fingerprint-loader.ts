import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** One technology as the Wappalyzer / webappanalyzer JSON format writes it. */
const StringOrList = z.union([z.string(), z.array(z.string())]);
const PatternMap = z.record(z.string(), StringOrList);

export const ZTechnologySpec = z
  .object({
    cats: z.array(z.number()).default([]),
    website: z.string().optional(),
    description: z.string().optional(),
    cpe: z.string().optional(),
    headers: PatternMap.optional(),
    cookies: PatternMap.optional(),
    meta: PatternMap.optional(),
    html: StringOrList.optional(),
    text: StringOrList.optional(),
    scriptSrc: StringOrList.optional(),
    scripts: StringOrList.optional(),
    url: StringOrList.optional(),
    certIssuer: StringOrList.optional(),
    dns: PatternMap.optional(),
    implies: StringOrList.optional(),
    excludes: StringOrList.optional(),
    requires: StringOrList.optional(),
    requiresCategory: z.union([z.number(), z.array(z.number())]).optional(),
  })
  .passthrough();

export type TechnologySpec = z.infer<typeof ZTechnologySpec>;

export interface FingerprintSet {
  technologies: Map<string, TechnologySpec>;
  categories: Map<number, string>;
  /** Entries that failed validation: file and name, never fatal. */
  rejected: { file: string; name: string; error: string }[];
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function technologyFiles(dir: string): string[] {
  const techDir = path.join(dir, 'technologies');
  const base = existsSync(techDir) && statSync(techDir).isDirectory() ? techDir : dir;
  return readdirSync(base)
    .filter(
      (f) =>
        f.endsWith('.json') && !['categories.json', 'groups.json', 'schema.json', 'package.json'].includes(f),
    )
    .sort()
    .map((f) => path.join(base, f));
}

/**
 * Loads one or more fingerprint directories (later ones override earlier ones by name). A
 * directory holds `technologies/*.json` (or `*.json`) and optionally `categories.json`.
 */
export function loadFingerprints(dirs: string | string[]): FingerprintSet {
  const set: FingerprintSet = { technologies: new Map(), categories: new Map(), rejected: [] };
  for (const dir of Array.isArray(dirs) ? dirs : [dirs]) {
    const catFile = path.join(dir, 'categories.json');
    if (existsSync(catFile)) {
      const cats = readJson(catFile) as Record<string, { name?: string }>;
      for (const [id, c] of Object.entries(cats)) if (c.name) set.categories.set(Number(id), c.name);
    }
    const files = statSync(dir).isFile() ? [dir] : technologyFiles(dir);
    for (const file of files) {
      const data = readJson(file) as Record<string, unknown>;
      for (const [name, raw] of Object.entries(data)) {
        const parsed = ZTechnologySpec.safeParse(raw);
        if (parsed.success) set.technologies.set(name, parsed.data);
        else set.rejected.push({ file, name, error: parsed.error.issues[0]?.message ?? 'invalid' });
      }
    }
  }
  return set;
}

/** Perimeter's own fingerprint directory, shipped with the engine. */
export const BUILTIN_FINGERPRINTS_DIR = new URL('../../fingerprints/', import.meta.url).pathname;
