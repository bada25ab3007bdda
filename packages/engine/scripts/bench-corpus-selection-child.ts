// Child process of bench-corpus-selection.ts: loads a corpus folder (with the parsed-YAML
// cache in the folder given), selects its http templates as a scan does — `default`: nuclei's
// default exclusions (DEFAULT_EXCLUDED_TAGS and the set's .nuclei-ignore), `all`: every one —
// and runs them against one web host at the default politeness. Prints one JSON line.
import path from 'node:path';
import v8 from 'node:v8';
import { defaultExecutors } from '../src/protocols/index.ts';
import { clusterTemplates } from '../src/templates/template-cluster.ts';
import { loadTemplates } from '../src/templates/template-loader.ts';
import { TemplateScanner } from '../src/templates/template-scanner.ts';
import {
  DEFAULT_EXCLUDED_TAGS,
  readIgnoreList,
  selectTemplates,
} from '../src/templates/template-selection.ts';

const [dir, url, mode, cacheDir] = process.argv.slice(2) as [string, string, 'default' | 'all', string];
const started = performance.now();
// BENCH_MEMORY=<ms> (1 = every second): the heap and RSS from the start, load included, on
// stderr; BENCH_HEAP_SNAPSHOT=<file>: a heap snapshot BENCH_HEAP_SNAPSHOT_AT seconds in (45).
const sampleMs = Number(process.env.BENCH_MEMORY ?? 0);
const sampler = sampleMs
  ? setInterval(
      () => {
        const m = process.memoryUsage();
        console.error(
          `t ${((performance.now() - started) / 1000).toFixed(1)} s heap ${(m.heapUsed / 1048576).toFixed(0)} MB rss ${(m.rss / 1048576).toFixed(0)} MB`,
        );
      },
      sampleMs === 1 ? 1000 : sampleMs,
    )
  : undefined;
const loaded = await loadTemplates(dir, { cacheDir });
const loadMs = performance.now() - started;
const http = loaded.templates.filter((t) => t.protocols.has('http'));
const ignore = await readIgnoreList(path.dirname(dir));
const selected =
  mode === 'all'
    ? http
    : selectTemplates(http, {
        excludeTags: [...DEFAULT_EXCLUDED_TAGS, ...ignore.tags],
        excludeFiles: ignore.files,
      });
if (process.env.BENCH_HEAP_SNAPSHOT) {
  const file = process.env.BENCH_HEAP_SNAPSHOT;
  setTimeout(
    () => v8.writeHeapSnapshot(file),
    Number(process.env.BENCH_HEAP_SNAPSHOT_AT ?? 45) * 1000,
  ).unref();
}
const scanner = new TemplateScanner(defaultExecutors);
let findings = 0;
const scanStarted = performance.now();
try {
  for await (const _f of scanner.scan(selected, [url])) findings++;
} finally {
  await scanner.close();
  clearInterval(sampler);
}
const s = scanner.summary;
const ru = process.resourceUsage();
process.stdout.write(
  JSON.stringify({
    mode,
    loadMs,
    scanMs: performance.now() - scanStarted,
    wallMs: performance.now() - started,
    cpuMs: (ru.userCPUTime + ru.systemCPUTime) / 1000,
    selected: selected.length,
    clusters: clusterTemplates(selected).length,
    tasks: s.tasks,
    requests: s.requests,
    findings,
    errors: s.errors,
    maxRssMb: ru.maxRSS / 1024,
  }),
);
