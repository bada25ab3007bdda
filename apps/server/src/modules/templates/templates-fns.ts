import type { TTemplateSelection } from '@perimeter/contracts';
import { DEFAULT_EXCLUDED_TAGS, type TemplateSelection } from '@perimeter/engine';

/**
 * The source's own version, when it states one: a `VERSION`/`.version` file, or a release tag or
 * commit in the archive's name (`nuclei-templates-v10.2.1.tar.gz`, `nuclei-templates-a64f60e.tar.gz`).
 */
export function versionFromName(name: string): string | null {
  const base = name.replace(/\.(tar\.gz|tgz)$/i, '');
  const m = /[-_](v?\d+\.\d+(?:\.\d+)?(?:[-.][0-9a-z]+)?|[0-9a-f]{7,40})$/i.exec(base);
  return m?.[1] ?? null;
}

export function versionFromFile(text: string | undefined): string | null {
  const line = text?.split(/\r?\n/).find((l) => l.trim() !== '');
  const v = line?.trim();
  return v && v.length <= 64 && /^[\w.+-]+$/.test(v) ? v : null;
}

/** One line of at most 300 characters, no control characters (PostgreSQL text refuses NUL). */
export function cleanText(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const flat = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/** Loader outcomes grouped by kind and reason, with a few example files each. */
export function groupReasons(
  outcomes: { kind: 'skipped' | 'invalid'; reason: string; file: string }[],
  maxExamples = 3,
): { kind: 'skipped' | 'invalid'; reason: string; count: number; examples: string[] }[] {
  const groups = new Map<
    string,
    { kind: 'skipped' | 'invalid'; reason: string; count: number; examples: string[] }
  >();
  for (const o of outcomes) {
    const reason = cleanText(o.reason);
    const key = `${o.kind} ${reason}`;
    const g = groups.get(key) ?? { kind: o.kind, reason, count: 0, examples: [] };
    groups.set(key, g);
    g.count++;
    if (g.examples.length < maxExamples) g.examples.push(o.file);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** The API says `informational`, templates say `info`. */
const ENGINE_SEVERITY: Record<string, string> = { informational: 'info' };

/**
 * What a scan runs: its selection (severities, tags, exclusions) over nuclei's defaults — `dos`,
 * `fuzz` and the rest of the default ignore list, plus what each active set's own ignore list
 * names — minus the tags the scan asks for.
 */
export function templateSelection(
  scan: TTemplateSelection | null | undefined,
  sets: { excludedTags: string[]; excludedFiles: string[] }[],
): TemplateSelection {
  const include = new Set([...(scan?.include_tags ?? []), ...(scan?.tags ?? [])]);
  const excluded = new Set<string>([
    ...DEFAULT_EXCLUDED_TAGS,
    ...sets.flatMap((s) => s.excludedTags),
    ...(scan?.exclude_tags ?? []),
  ]);
  for (const t of include) if (!scan?.exclude_tags?.includes(t)) excluded.delete(t);
  const out: TemplateSelection = {
    excludeTags: [...excluded].sort(),
    excludeFiles: [...new Set(sets.flatMap((s) => s.excludedFiles))].sort(),
  };
  if (scan?.tags?.length) out.tags = scan.tags;
  if (scan?.severities?.length) out.severities = scan.severities.map((s) => ENGINE_SEVERITY[s] ?? s);
  return out;
}
