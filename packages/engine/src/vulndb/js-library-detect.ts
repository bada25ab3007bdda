import type { DetectedProduct } from './vuln-types.ts';

/** A version-capturing pattern for retire.js's `§§version§§` placeholder. */
const VERSION = '[0-9][0-9.a-z_\\-]+';

interface LibraryExtractors {
  name: string;
  uri: RegExp[];
  filename: RegExp[];
  filecontent: RegExp[];
}

function compile(patterns: unknown): RegExp[] {
  if (!Array.isArray(patterns)) return [];
  const out: RegExp[] = [];
  for (const p of patterns) {
    if (typeof p !== 'string') continue;
    try {
      out.push(new RegExp(p.replace(/§§version§§/g, VERSION)));
    } catch {
      // retire.js patterns are PCRE-flavoured; skip the few JS cannot compile
    }
  }
  return out;
}

/**
 * Passive JavaScript library detection with retire.js's uri, filename and file-content
 * extractors (func/ast extractors need a JS runtime and are not used).
 */
export class JsLibraryDetector {
  private readonly libs: LibraryExtractors[];

  constructor(repository: unknown) {
    this.libs = [];
    for (const [name, entry] of Object.entries(
      (repository ?? {}) as Record<string, { extractors?: Record<string, unknown> }>,
    )) {
      if (name === 'retire-example' || name === 'dont check' || !entry?.extractors) continue;
      const e = entry.extractors;
      this.libs.push({
        name,
        uri: compile(e.uri),
        filename: compile(e.filename),
        filecontent: compile(e.filecontent),
      });
    }
  }

  /** Libraries named by a script URL (path or file name). */
  fromUrl(url: string): DetectedProduct[] {
    const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').split(/[?#]/)[0] ?? '';
    const file = path.split('/').pop() ?? '';
    const out: DetectedProduct[] = [];
    for (const lib of this.libs) {
      const m =
        lib.uri.map((re) => re.exec(path)).find(Boolean) ??
        lib.filename.map((re) => re.exec(file)).find(Boolean);
      const version = m?.[1];
      if (version) out.push({ name: lib.name, version: version.replace(/\.min$/, ''), jsLibrary: lib.name });
    }
    return out;
  }

  /** Libraries found in a script's content (its banner comment or version assignment). */
  fromContent(content: string): DetectedProduct[] {
    const head = content.slice(0, 200000);
    const out: DetectedProduct[] = [];
    for (const lib of this.libs) {
      const m = lib.filecontent.map((re) => re.exec(head)).find(Boolean);
      if (m?.[1]) out.push({ name: lib.name, version: m[1], jsLibrary: lib.name });
    }
    return out;
  }
}
