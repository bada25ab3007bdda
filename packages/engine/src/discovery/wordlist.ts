import { readFileSync } from 'node:fs';

export const BUILTIN_WORDLIST_PATH = new URL('../../data/subdomains.txt', import.meta.url).pathname;

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9_-]{1,63}(?<!-))*$/;

/** One label a line; `#` comments and blank lines ignored; invalid labels dropped. */
export function parseWordlist(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const w = line.trim().toLowerCase();
    if (!w || w.startsWith('#')) continue;
    if (LABEL.test(w)) out.add(w);
  }
  return [...out];
}

export function loadWordlist(file: string): string[] {
  return parseWordlist(readFileSync(file, 'utf8'));
}

/** Read and parsed once per process (every domain scan brute-forces it); each caller gets its own copy. */
let builtin: readonly string[] | undefined;

export function builtinWordlist(): string[] {
  builtin ??= loadWordlist(BUILTIN_WORDLIST_PATH);
  return [...builtin];
}
