// Child process of template-corpus.test.ts (run with --expose-gc): loads an unpacked corpus,
// keeps what a scan of one customer host holds — the applicable templates (http, network,
// dns, ssl) under the default selection — and prints the live heap after a full collection.
import path from 'node:path';
import v8 from 'node:v8';
import { loadTemplates } from '../src/templates/template-loader.ts';
import {
  DEFAULT_EXCLUDED_TAGS,
  readIgnoreList,
  selectTemplates,
} from '../src/templates/template-selection.ts';
import type { CompiledTemplate } from '../src/templates/template-types.ts';

const [root, cacheDir] = process.argv.slice(2) as [string, string];
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const mb = (n: number) => Math.round(n / 1048576);

gc();
const baseline = v8.getHeapStatistics().used_heap_size;
const ignore = await readIgnoreList(root);
let loaded: CompiledTemplate[] | undefined = (await loadTemplates(root, { cacheDir: cacheDir || undefined }))
  .templates;
const applicable = loaded.filter((t) =>
  ['http', 'network', 'dns', 'ssl'].includes(path.relative(root, t.file).split(path.sep)[0] as string),
);
loaded = undefined;
const selected = selectTemplates(applicable, {
  excludeTags: [...DEFAULT_EXCLUDED_TAGS, ...ignore.tags],
  excludeFiles: ignore.files,
});
applicable.length = 0;
gc();
gc();
const live = v8.getHeapStatistics().used_heap_size;
process.stdout.write(
  JSON.stringify({
    templates: selected.length,
    baselineMb: mb(baseline),
    liveMb: mb(live),
    corpusMb: mb(live - baseline),
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  }),
);
