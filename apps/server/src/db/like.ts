/** Escapes `%`, `_` and `\` so a user's text matches itself literally in LIKE / ILIKE. */
export function escapeLike(v: string): string {
  return v.replace(/[\\%_]/g, (c) => `\\${c}`);
}
