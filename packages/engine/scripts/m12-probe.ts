import path from 'node:path';
import v8 from 'node:v8';
import { loadTemplates } from '../src/templates/template-loader.ts';
import {
  DEFAULT_EXCLUDED_TAGS,
  readIgnoreList,
  selectTemplates,
} from '../src/templates/template-selection.ts';

const [dir, cacheDir, snap] = process.argv.slice(2) as [string, string, string | undefined];
const mb = (n: number) => (n / 1048576).toFixed(0);
const gc = (globalThis as { gc?: () => void }).gc;
const t0 = performance.now();
let loaded: Awaited<ReturnType<typeof loadTemplates>> | undefined = await loadTemplates(dir, { cacheDir });
console.log(
  'load ms',
  (performance.now() - t0).toFixed(0),
  'templates',
  loaded.templates.length,
  'peak rss',
  mb(process.resourceUsage().maxRSS * 1024),
  'rss',
  mb(process.memoryUsage().rss),
);
const ignore = await readIgnoreList(path.dirname(dir));
const selected = selectTemplates(
  loaded.templates.filter((t) => t.protocols.has('http')),
  {
    excludeTags: [...DEFAULT_EXCLUDED_TAGS, ...ignore.tags],
    excludeFiles: ignore.files,
  },
);
loaded = undefined;
gc?.();
gc?.();
const h = v8.getHeapStatistics();
console.log(
  'selected',
  selected.length,
  'heap used after gc',
  mb(h.used_heap_size),
  'rss',
  mb(process.memoryUsage().rss),
  'external',
  mb(process.memoryUsage().external),
);
if (snap) v8.writeHeapSnapshot(snap);
