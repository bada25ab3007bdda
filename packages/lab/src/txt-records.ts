/**
 * `--txt NAME=VALUE` arguments of `npm run lab` grouped by name (split at the first "=", so a
 * value may hold "=" itself, as `perimeter-verification=<token>` does). Throws on a malformed one.
 */
export function parseTxtRecords(specs: readonly string[]): Map<string, string[]> {
  const records = new Map<string, string[]>();
  for (const spec of specs) {
    const at = spec.indexOf('=');
    const name = spec.slice(0, Math.max(at, 0)).trim().toLowerCase().replace(/\.$/, '');
    const value = spec.slice(at + 1);
    if (at <= 0 || !name || !value) throw new Error(`--txt needs NAME=VALUE, got "${spec}"`);
    if (!/^[a-z0-9_.-]+$/.test(name)) throw new Error(`--txt: "${name}" is not a DNS name`);
    records.set(name, [...(records.get(name) ?? []), value]);
  }
  return records;
}
