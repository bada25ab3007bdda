import { request } from 'undici';
import { z } from 'zod';

const ZCtRow = z
  .object({ name_value: z.string().optional(), common_name: z.string().optional() })
  .passthrough();

/**
 * Names from a crt.sh-compatible JSON API: `GET <base>?q=%25.<domain>&output=json`. The API is
 * operator configuration (like the DNS servers), not a scan target.
 */
export async function fetchCtNames(
  baseUrl: string,
  domain: string,
  signal?: AbortSignal,
  timeoutMs = 15_000,
): Promise<string[]> {
  const url = new URL(baseUrl);
  url.searchParams.set('q', `%.${domain}`);
  url.searchParams.set('output', 'json');
  const res = await request(url, { signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`certificate-transparency API answered ${res.statusCode}`);
  }
  const rows = z.array(ZCtRow).parse(await res.body.json());
  const names = new Set<string>();
  for (const row of rows) {
    for (const v of [row.name_value ?? '', row.common_name ?? '']) {
      for (const line of v.split(/\n/)) {
        const n = line.trim().toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
        if (n && (n === domain || n.endsWith(`.${domain}`))) names.add(n);
      }
    }
  }
  return [...names];
}
