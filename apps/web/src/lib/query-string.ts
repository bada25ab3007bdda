export type TQueryValue = string | number | boolean | null | undefined;
export type TQueryParams = Record<string, TQueryValue | readonly TQueryValue[]>;

/** Arrays become repeated keys without brackets: `status=done&status=running` (spec §7). */
export function serializeParams(params: TQueryParams): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    const values: readonly TQueryValue[] = Array.isArray(value) ? value : [value as TQueryValue];
    for (const v of values) {
      if (v === undefined || v === null) continue;
      search.append(key, String(v));
    }
  }
  return search.toString();
}
