const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  rsquo: '\u2019',
  lsquo: '\u2018',
  laquo: '\u00ab',
  raquo: '\u00bb',
  copy: '\u00a9',
  reg: '\u00ae',
  hellip: '\u2026',
};

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code =
        e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return NAMED[e.toLowerCase()] ?? m;
  });
}

export function extractTitle(html: string): string {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  return m
    ? decodeEntities(m[1] ?? '')
        .replace(/\s+/g, ' ')
        .trim()
    : '';
}

/** `src` of every <script> element. */
export function extractScriptSrc(html: string): string[] {
  const out: string[] = [];
  const re = /<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) out.push(decodeEntities(m[1] ?? ''));
  return out;
}

/** Inline script bodies (for `scripts` rules). */
export function extractInlineScripts(html: string): string[] {
  const out: string[] = [];
  const re = /<script\b(?![^>]*\bsrc\s*=)[^>]*>([\s\S]*?)<\/script>/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) if (m[1]?.trim()) out.push(m[1]);
  return out;
}

/** <meta name|property=... content=...> as a lower-cased name → values map. */
export function extractMeta(html: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const re = /<meta\b[^>]*>/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const tag = m[0];
    const name = /\b(?:name|property|http-equiv)\s*=\s*["']([^"']+)["']/i.exec(tag)?.[1];
    const content = /\bcontent\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1];
    if (name && content !== undefined) {
      const key = name.toLowerCase();
      out[key] = [...(out[key] ?? []), decodeEntities(content)];
    }
  }
  return out;
}

/** The favicon link of a page, if any. */
export function extractFaviconHref(html: string): string | undefined {
  const re = /<link\b[^>]*>/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (/\brel\s*=\s*["'][^"']*\bicon\b/i.test(m[0])) {
      const href = /\bhref\s*=\s*["']([^"']+)["']/i.exec(m[0])?.[1];
      if (href) return decodeEntities(href);
    }
  }
  return undefined;
}

const EMAIL = /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/gi;

export function extractEmails(text: string): string[] {
  return [...new Set((text.match(EMAIL) ?? []).map((e) => e.toLowerCase().replace(/\.$/, '')))];
}
