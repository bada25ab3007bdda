// Child process of the corpus bench: loads every template of a directory and runs the
// applicable ones against one web host at the default politeness, reporting wall time,
// requests and the peak memory of this process only (the lab runs in another).
import { defaultExecutors } from '../src/protocols/index.ts';
import { loadTemplates } from '../src/templates/template-loader.ts';
import { TemplateScanner } from '../src/templates/template-scanner.ts';

const [dir, url] = process.argv.slice(2) as [string, string];
const started = performance.now();
const loaded = await loadTemplates(dir);
const loadMs = performance.now() - started;
// A web host: the templates with an http request (the ones a URL input applies to).
const applicable = loaded.templates.filter((t) => t.protocols.has('http'));
// Request errors grouped by message (template ids and variable lists stripped), most frequent first.
const errorKinds = new Map<string, number>();
const scanner = new TemplateScanner(defaultExecutors, {
  log: (_level, message) => {
    const kind = message
      .replace(/^[^:\s]+: /, '')
      .replace(/unresolved variables: .*/, 'unresolved variables')
      .replace(/https?:\/\/\S+/g, 'URL')
      .slice(0, 120);
    errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
  },
});
let findings = 0;
const scanStarted = performance.now();
try {
  for await (const _f of scanner.scan(applicable, [url])) findings++;
} finally {
  await scanner.close();
}
const s = scanner.summary;
process.stdout.write(
  JSON.stringify({
    loadMs,
    scanMs: performance.now() - scanStarted,
    wallMs: performance.now() - started,
    files: loaded.total,
    loaded: loaded.templates.length,
    skipped: loaded.skipped.length,
    invalid: loaded.invalid.length,
    applicable: applicable.length,
    tasks: s.tasks,
    requests: s.requests,
    findings,
    errors: s.errors,
    incomplete: s.incomplete,
    unresponsiveHosts: s.unresponsiveHosts.length,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    errorKinds: [...errorKinds].sort((a, b) => b[1] - a[1]).slice(0, 8),
  }),
);
