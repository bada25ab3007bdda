import type { Asset, ScanEvent, ScanSummary } from '../src/pipeline/events.ts';

export interface Collected {
  events: ScanEvent[];
  assets: Asset[];
  summary?: ScanSummary;
}

export async function collectScan(iterable: AsyncIterable<ScanEvent>): Promise<Collected> {
  const out: Collected = { events: [], assets: [] };
  for await (const e of iterable) {
    out.events.push(e);
    if (e.type === 'asset') out.assets.push(e.asset);
    if (e.type === 'summary') out.summary = e.summary;
  }
  return out;
}

/** The asset lists in the shape of the lab's expected.json, as sorted comparable strings. */
export function comparable(assets: Asset[]) {
  const sorted = (a: string[]) => [...a].sort();
  return {
    subdomains: sorted(
      assets.flatMap((a) =>
        a.kind === 'subdomain' ? [`${a.name} ips=${[...a.ips].sort()} cnames=${a.cnames}`] : [],
      ),
    ),
    ips: sorted(assets.flatMap((a) => (a.kind === 'ip' ? [a.ip] : []))),
    services: sorted(
      assets.flatMap((a) =>
        a.kind === 'service'
          ? [`${a.ip}:${a.port} ${a.service} ${a.product ?? '-'} ${a.version ?? '-'}`]
          : [],
      ),
    ),
    urls: sorted(assets.flatMap((a) => (a.kind === 'url' ? [`${a.url} ${a.status} ${a.title}`] : []))),
    technologies: sorted(
      assets.flatMap((a) => (a.kind === 'technology' ? [`${a.target} ${a.name} ${a.version ?? '-'}`] : [])),
    ),
    emails: sorted(assets.flatMap((a) => (a.kind === 'email' ? [a.email] : []))),
  };
}
