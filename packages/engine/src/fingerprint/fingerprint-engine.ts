import type { FingerprintSet, TechnologySpec } from './fingerprint-loader.ts';

/** What a response (and its context) offers to the fingerprint rules. */
export interface FingerprintInput {
  url?: string;
  /** Lower-cased header names. */
  headers?: Record<string, string[]>;
  cookies?: Record<string, string>;
  html?: string;
  scriptSrc?: string[];
  /** Script bodies (inline scripts, or fetched script files). */
  scripts?: string[];
  /** Lower-cased meta names. */
  meta?: Record<string, string[]>;
  certIssuer?: string;
  /** Record type (upper case) → values. */
  dns?: Record<string, string[]>;
  /**
   * Technologies the service on this port already named on the wire (ports stage). They are
   * detected with their implies, and their version is the one kept: one truth per service.
   */
  known?: { name: string; version?: string }[];
}

export interface DetectedTechnology {
  name: string;
  version?: string;
  confidence: number;
  categories: string[];
  cpe?: string;
  website?: string;
}

interface Pattern {
  regex: RegExp;
  version?: string;
  confidence: number;
}

interface CompiledTech {
  name: string;
  spec: TechnologySpec;
  headers: [string, Pattern[]][];
  cookies: [string, Pattern[]][];
  meta: [string, Pattern[]][];
  dns: [string, Pattern[]][];
  html: Pattern[];
  scriptSrc: Pattern[];
  scripts: Pattern[];
  url: Pattern[];
  certIssuer: Pattern[];
  implies: { name: string; confidence: number }[];
  excludes: string[];
  requires: string[];
  requiresCategory: number[];
}

const list = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

/** `regex\;version:\1\;confidence:50` → a compiled pattern; null when the regex is invalid. */
export function parsePattern(raw: string): Pattern | null {
  const [source = '', ...tags] = raw.split('\\;');
  const p: Pattern = { regex: /(?:)/, confidence: 100 };
  for (const tag of tags) {
    const i = tag.indexOf(':');
    const key = i < 0 ? tag : tag.slice(0, i);
    const value = i < 0 ? '' : tag.slice(i + 1);
    if (key === 'version') p.version = value;
    else if (key === 'confidence') p.confidence = Number(value) || 0;
  }
  try {
    // Wappalyzer patterns are case-insensitive; a literal `/` needs no escaping in JS here.
    p.regex = new RegExp(source, 'i');
  } catch {
    return null;
  }
  return p;
}

/** Fills `\1`… and the `\1?a:b` ternary of a version template from a match. */
export function resolveVersion(template: string, match: RegExpExecArray): string {
  let out = template.replace(/\\(\d)\?([^:]*):(.*)$/, (_m, n: string, yes: string, no: string) =>
    match[Number(n)] ? yes : no,
  );
  out = out.replace(/\\(\d)/g, (_m, n: string) => match[Number(n)] ?? '');
  return out.trim();
}

function compileList(values: string[]): Pattern[] {
  return values.map(parsePattern).filter((p): p is Pattern => p !== null);
}

function compileMap(
  map: Record<string, string | string[]> | undefined,
  lowerKeys: boolean,
): [string, Pattern[]][] {
  if (!map) return [];
  return Object.entries(map).map(([k, v]) => [lowerKeys ? k.toLowerCase() : k, compileList(list(v))]);
}

function withConfidence(v: string): { name: string; confidence: number } {
  const [name = '', ...tags] = v.split('\\;');
  const c = tags.find((t) => t.startsWith('confidence:'));
  return { name, confidence: c ? Number(c.slice(11)) || 0 : 100 };
}

/** Substitutes the version into the version field of a CPE 2.3 name. */
export function cpeWithVersion(cpe: string, version: string | undefined): string {
  if (!version) return cpe;
  const parts = cpe.split(':');
  if (parts.length < 6) return cpe;
  parts[5] = version.replace(/:/g, '\\:');
  return parts.join(':');
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return a.length - b.length;
}

/** A compiled fingerprint set: compile once, analyse many responses. */
export class FingerprintEngine {
  private readonly techs: CompiledTech[];
  private readonly byName = new Map<string, CompiledTech>();
  private readonly categories: Map<number, string>;
  // Capped input sizes keep pathological regexes bounded.
  private readonly maxHtml = 256 * 1024;

  constructor(set: FingerprintSet) {
    this.categories = set.categories;
    this.techs = [...set.technologies].map(([name, spec]) => {
      const t: CompiledTech = {
        name,
        spec,
        headers: compileMap(spec.headers, true),
        cookies: compileMap(spec.cookies, false),
        meta: compileMap(spec.meta, true),
        dns: compileMap(spec.dns, false).map(([k, v]) => [k.toUpperCase(), v]),
        html: compileList([...list(spec.html), ...list(spec.text)]),
        scriptSrc: compileList(list(spec.scriptSrc)),
        scripts: compileList(list(spec.scripts)),
        url: compileList(list(spec.url)),
        certIssuer: compileList(list(spec.certIssuer)),
        implies: list(spec.implies).map(withConfidence),
        excludes: list(spec.excludes).map((e) => withConfidence(e).name),
        requires: list(spec.requires).map((e) => withConfidence(e).name),
        requiresCategory: spec.requiresCategory === undefined ? [] : [spec.requiresCategory].flat(),
      };
      this.byName.set(name, t);
      return t;
    });
  }

  get size(): number {
    return this.techs.length;
  }

  analyze(input: FingerprintInput): DetectedTechnology[] {
    const hits = new Map<string, { confidence: number; versions: string[] }>();
    const hit = (name: string, p: Pattern, m: RegExpExecArray) => {
      const h = hits.get(name) ?? { confidence: 0, versions: [] };
      h.confidence = Math.min(100, h.confidence + p.confidence);
      if (p.version) {
        const v = resolveVersion(p.version, m);
        if (v) h.versions.push(v);
      }
      hits.set(name, h);
    };
    const testAll = (name: string, patterns: Pattern[], values: string[]) => {
      for (const p of patterns) {
        for (const v of values) {
          const m = p.regex.exec(v);
          if (m) {
            hit(name, p, m);
            break;
          }
        }
      }
    };
    const html = input.html?.slice(0, this.maxHtml);
    for (const t of this.techs) {
      for (const [key, patterns] of t.headers) {
        const values = input.headers?.[key];
        if (values) testAll(t.name, patterns, values);
      }
      for (const [key, patterns] of t.cookies) {
        const value = input.cookies?.[key];
        if (value !== undefined) testAll(t.name, patterns, [value]);
      }
      for (const [key, patterns] of t.meta) {
        const values = input.meta?.[key];
        if (values) testAll(t.name, patterns, values);
      }
      for (const [key, patterns] of t.dns) {
        const values = input.dns?.[key];
        if (values) testAll(t.name, patterns, values);
      }
      if (html) testAll(t.name, t.html, [html]);
      if (input.scriptSrc?.length) testAll(t.name, t.scriptSrc, input.scriptSrc);
      if (input.scripts?.length)
        testAll(
          t.name,
          t.scripts,
          input.scripts.map((s) => s.slice(0, this.maxHtml)),
        );
      if (input.url) testAll(t.name, t.url, [input.url]);
      if (input.certIssuer) testAll(t.name, t.certIssuer, [input.certIssuer]);
    }
    for (const k of input.known ?? []) {
      if (!this.byName.has(k.name)) continue;
      const versions = k.version ? [k.version] : (hits.get(k.name)?.versions ?? []);
      hits.set(k.name, { confidence: 100, versions });
    }
    return this.resolve(hits);
  }

  /** Applies implies (transitively), excludes, requires and requiresCategory. */
  private resolve(hits: Map<string, { confidence: number; versions: string[] }>): DetectedTechnology[] {
    const found = new Map<string, { confidence: number; version?: string }>();
    for (const [name, h] of hits) {
      const version = h.versions.sort(compareVersions).at(-1);
      found.set(name, version ? { confidence: h.confidence, version } : { confidence: h.confidence });
    }
    const queue = [...found.keys()];
    while (queue.length) {
      const name = queue.shift() as string;
      const t = this.byName.get(name);
      const parent = found.get(name);
      if (!t || !parent) continue;
      for (const imp of t.implies) {
        if (!this.byName.has(imp.name) || found.has(imp.name)) continue;
        found.set(imp.name, { confidence: Math.min(parent.confidence, imp.confidence) });
        queue.push(imp.name);
      }
    }
    for (const name of [...found.keys()]) {
      for (const ex of this.byName.get(name)?.excludes ?? []) found.delete(ex);
    }
    let changed = true;
    while (changed) {
      changed = false;
      for (const name of [...found.keys()]) {
        const t = this.byName.get(name);
        if (!t) continue;
        const missingTech = t.requires.some((r) => !found.has(r));
        const missingCat =
          t.requiresCategory.length > 0 &&
          !t.requiresCategory.some((c) =>
            [...found.keys()].some((n) => n !== name && (this.byName.get(n)?.spec.cats ?? []).includes(c)),
          );
        if (missingTech || missingCat) {
          found.delete(name);
          changed = true;
        }
      }
    }
    return [...found]
      .map(([name, f]) => {
        const spec = this.byName.get(name)?.spec;
        const d: DetectedTechnology = {
          name,
          confidence: f.confidence,
          categories: (spec?.cats ?? []).map((c) => this.categories.get(c) ?? String(c)),
        };
        if (f.version) d.version = f.version;
        if (spec?.cpe) d.cpe = cpeWithVersion(spec.cpe, f.version);
        if (spec?.website) d.website = spec.website;
        return d;
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** Parses `Set-Cookie` headers into name → value. */
export function parseSetCookies(values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const first = v.split(';')[0] ?? '';
    const i = first.indexOf('=');
    if (i > 0) out[first.slice(0, i).trim()] = first.slice(i + 1).trim();
  }
  return out;
}
