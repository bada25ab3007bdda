import type { CpeMatchRule } from './vuln-types.ts';

export interface ParsedCpe {
  part: string;
  vendor: string;
  product: string;
  version: string;
  update: string;
}

/** Splits a CPE 2.3 formatted string, honouring `\:` escapes. Also accepts CPE 2.2 URIs. */
export function parseCpe(cpe: string): ParsedCpe | undefined {
  let fields: string[];
  if (cpe.startsWith('cpe:2.3:')) {
    fields = [];
    let cur = '';
    for (let i = 'cpe:2.3:'.length; i < cpe.length; i++) {
      const c = cpe[i] as string;
      if (c === '\\' && i + 1 < cpe.length) {
        cur += cpe[i + 1];
        i++;
      } else if (c === ':') {
        fields.push(cur);
        cur = '';
      } else cur += c;
    }
    fields.push(cur);
  } else if (cpe.startsWith('cpe:/')) {
    fields = cpe.slice(5).split(':').map(decodeURIComponent);
  } else return undefined;
  const [part = '*', vendor = '*', product = '*', version = '*', update = '*'] = fields;
  if (!product || product === '*') return undefined;
  return {
    part,
    vendor: vendor.toLowerCase(),
    product: product.toLowerCase(),
    version: version || '*',
    update: update || '*',
  };
}

export function toRule(
  criteria: string,
  vulnerable: boolean,
  range: Partial<
    Pick<
      CpeMatchRule,
      'versionStartIncluding' | 'versionStartExcluding' | 'versionEndIncluding' | 'versionEndExcluding'
    >
  >,
): CpeMatchRule | undefined {
  const p = parseCpe(criteria);
  if (!p) return undefined;
  const rule: CpeMatchRule = { criteria, ...p, vulnerable };
  for (const k of [
    'versionStartIncluding',
    'versionStartExcluding',
    'versionEndIncluding',
    'versionEndExcluding',
  ] as const) {
    const v = range[k];
    if (typeof v === 'string' && v !== '') rule[k] = v;
  }
  return rule;
}
