import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { exactJson, type ParsedYamlCache } from './compile-support.ts';

/**
 * Parsing YAML is most of the time a large template set takes to load (≈ 1.5 ms a template
 * with the `yaml` package). This cache keeps each template's parsed document as JSON, keyed
 * by the SHA-256 of the template's text: a file whose text changed misses and is parsed again,
 * so a hit is always the document the parser would give. Compiling (operators, regexes,
 * payload files) still runs on every load. One cache file per template set (named by its list
 * of files); it holds only the entries the last load used.
 *
 * The file has one line per document (`key json`), and a document is parsed only when its
 * template asks for it: a load holds the file's text and one document at a time, never the
 * whole set's parsed documents at once.
 */
/**
 * The parse this cache stands for: change it whenever parsing changes (template-compile.ts's
 * parseYamlKeepingDigits, the `yaml` package's version), so older entries are never used.
 */
const PARSE_VERSION = 'yaml@2-keep-digits-1';

export class TemplateYamlCache implements ParsedYamlCache {
  /** Each document's line of the cache file, by key. */
  private readonly entries = new Map<string, string>();
  /** The lines this load used or added: what the next save writes. */
  private readonly used = new Map<string, string>();
  private dirty = false;
  hits = 0;
  misses = 0;

  private constructor(private readonly file: string) {}

  /** The cache of the set whose (relative, sorted) file list is `files`, read from `dir`. */
  static async open(dir: string, files: string[]): Promise<TemplateYamlCache> {
    const name = createHash('sha256')
      .update(`${PARSE_VERSION}\n${files.join('\n')}`)
      .digest('hex')
      .slice(0, 32);
    const cache = new TemplateYamlCache(path.join(dir, `yaml-${name}.jsonl`));
    let text = '';
    try {
      text = await readFile(cache.file, 'utf8');
    } catch {
      // No cache yet, or an unreadable one: everything is parsed and the file rewritten.
    }
    for (const line of text.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) cache.entries.set(line.slice(0, space), line);
    }
    return cache;
  }

  private static key(source: string): string {
    return createHash('sha256').update(PARSE_VERSION).update(source).digest('base64');
  }

  /** The document of a template's text, parsed anew on each call (each caller owns its copy). */
  get(source: string): unknown {
    const key = TemplateYamlCache.key(source);
    const line = this.used.get(key) ?? this.entries.get(key);
    let hit: unknown;
    try {
      hit = line === undefined ? undefined : JSON.parse(line.slice(key.length + 1));
    } catch {
      hit = undefined;
    }
    // A template document is a mapping; anything else is no entry of this format.
    if (hit === null || typeof hit !== 'object' || Array.isArray(hit)) {
      this.misses++;
      return undefined;
    }
    this.used.set(key, line as string);
    this.hits++;
    return hit;
  }

  set(source: string, parsed: unknown): void {
    // Only documents JSON keeps as they are (no .inf/.nan numbers) are cached.
    const json = exactJson(parsed);
    if (json === undefined) return;
    const key = TemplateYamlCache.key(source);
    this.used.set(key, `${key} ${json}`);
    this.dirty = true;
  }

  /** Writes the entries this load used, when it parsed anything new (atomically: temp + rename). */
  async save(): Promise<void> {
    if (!this.dirty && [...this.entries.keys()].every((k) => this.used.has(k))) return;
    await mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(
      tmp,
      [...this.used.values()].map((line) => `${line}\n`),
    );
    await rename(tmp, this.file);
    await pruneCacheDir(path.dirname(this.file), KEEP_SETS);
  }
}

/** Cache files kept per cache folder (the most recently written sets). */
const KEEP_SETS = 6;

async function pruneCacheDir(dir: string, keep: number): Promise<void> {
  const files = (await readdir(dir)).filter((f) => /^yaml-[0-9a-f]+\.jsonl?$/.test(f));
  if (files.length <= keep) return;
  const withTimes = await Promise.all(
    files.map(async (f) => ({ f, t: (await stat(path.join(dir, f)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  withTimes.sort((a, b) => b.t - a.t);
  for (const { f } of withTimes.slice(keep)) await unlink(path.join(dir, f)).catch(() => {});
}

/**
 * Where template caches live: `PERIMETER_TEMPLATE_CACHE` (`off` disables them), else the
 * user's cache folder (`$XDG_CACHE_HOME/perimeter/templates`, `~/.cache/perimeter/templates`).
 */
export function defaultTemplateCacheDir(): string | undefined {
  const env = process.env.PERIMETER_TEMPLATE_CACHE;
  if (env === 'off') return undefined;
  if (env) return env;
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'perimeter', 'templates');
}
