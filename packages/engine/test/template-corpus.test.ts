import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTemplateCacheDir } from '../src/templates/template-cache.ts';
import { countSkipReasons, type LoadedTemplates, loadTemplates } from '../src/templates/template-loader.ts';
import { sharedDataset } from './helpers.ts';

/**
 * The public nuclei community corpus (../shared/datasets/nuclei-templates-corpus, unpacked to
 * a temporary folder here, never committed): every template is loaded and compiled. For the
 * folders a scan of the customer's host runs (http, network, dns, ssl), at least 99 % of the
 * templates that are not skipped for a stated reason must compile, and no template may be
 * refused because of a language feature we lack. The rest is printed by reason.
 */
const corpus = sharedDataset('nuclei-templates-corpus');
const APPLICABLE = ['http', 'network', 'dns', 'ssl'];
// An invalid template's reason that points at us rather than at the template.
const MISSING_FEATURE = /not supported|unsupported|unknown function|only boolean flows/i;
const cacheDir = defaultTemplateCacheDir();
/**
 * The live heap the loaded applicable corpus may take (after a full collection, above the
 * process's own): about 55 MB today, 80+ MB when the templates keep slices of their source
 * text, 100+ MB when every template's compiled operators are kept (see compile-support.ts's LazyOperators). A bound
 * on live objects, not on RSS or time, so it holds on a busy machine.
 */
const MAX_CORPUS_HEAP_MB = 80;

interface FolderCount {
  ok: number;
  skipped: number;
  invalid: number;
}

describe.skipIf(!corpus)('nuclei community corpus', () => {
  let root = '';
  let loaded: LoadedTemplates;
  const byFolder = new Map<string, FolderCount>();
  const folderOf = (file: string) => path.relative(root, file).split(path.sep)[0] as string;
  const count = (file: string) => {
    const f = folderOf(file);
    let c = byFolder.get(f);
    if (!c) {
      c = { ok: 0, skipped: 0, invalid: 0 };
      byFolder.set(f, c);
    }
    return c;
  };

  beforeAll(async () => {
    const dir = corpus as string;
    const archive = (await readdir(dir)).find((f) => /^nuclei-templates-.*\.tar\.gz$/.test(f));
    if (!archive) throw new Error(`no nuclei-templates-*.tar.gz in ${dir}`);
    root = await mkdtemp(path.join(tmpdir(), 'nuclei-corpus-'));
    await promisify(execFile)('tar', ['-xzf', path.join(dir, archive), '-C', root]);
    const started = Date.now();
    loaded = await loadTemplates(root, { cacheDir });
    for (const t of loaded.templates) count(t.file).ok++;
    for (const t of loaded.skipped) count(t.file).skipped++;
    for (const t of loaded.invalid) count(t.file).invalid++;
    const lines = [`corpus: ${loaded.total} files loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`];
    for (const [folder, c] of [...byFolder].sort(
      (a, b) => b[1].ok + b[1].skipped - (a[1].ok + a[1].skipped),
    )) {
      const rate = c.ok + c.invalid > 0 ? ((100 * c.ok) / (c.ok + c.invalid)).toFixed(2) : '-';
      lines.push(
        `  ${folder.padEnd(24)} ok ${c.ok}  skipped ${c.skipped}  invalid ${c.invalid}  load rate ${rate} %`,
      );
    }
    lines.push('skipped by reason:');
    for (const r of countSkipReasons(loaded.skipped))
      lines.push(`  ${String(r.count).padStart(5)}  ${r.reason}`);
    lines.push('invalid:');
    for (const i of loaded.invalid)
      lines.push(`  ${path.relative(root, i.file)}: ${i.field}: ${i.reason.split('\n')[0]}`);
    console.log(lines.join('\n'));
  }, 600_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.each(APPLICABLE)(
    '%s: at least 99 %% of the templates not skipped for a reason load and compile',
    (folder) => {
      const c = byFolder.get(folder);
      expect(c, `no ${folder}/ folder in the corpus`).toBeDefined();
      const { ok, invalid } = c as FolderCount;
      expect(ok).toBeGreaterThan(0);
      expect(ok / (ok + invalid)).toBeGreaterThanOrEqual(0.99);
    },
  );

  it('refuses no template of the applicable folders for a feature we lack', () => {
    const missing = loaded.invalid
      .filter((i) => APPLICABLE.includes(folderOf(i.file)) && MISSING_FEATURE.test(i.reason))
      .map((i) => `${path.relative(root, i.file)}: ${i.field}: ${i.reason}`);
    expect(missing).toEqual([]);
  });

  it('loads the out-of-band templates (they run when the scan has an interaction server)', () => {
    const oob = loaded.templates.filter((t) => t.oob && folderOf(t.file) === 'http');
    console.log(`out-of-band http templates loaded: ${oob.length}`);
    expect(oob.length).toBeGreaterThanOrEqual(440);
    // Those reading indexed call-back parts (`interactsh_protocol_2`) load too.
    const indexed = oob.filter((t) => t.indexedParts.some((p) => /^interactsh_[a-z]+_\d+$/.test(p)));
    expect(indexed.map((t) => t.id).sort()).toEqual(
      expect.arrayContaining(['CVE-2023-49785', 'CVE-2023-50094']),
    );
    expect(loaded.skipped.some((s) => /out-of-band|interactsh/.test(s.reason))).toBe(false);
  });

  it('gives every skipped template a stated reason', () => {
    expect(loaded.skipped.every((s) => s.reason.trim() !== '')).toBe(true);
    const reasons = countSkipReasons(loaded.skipped).map((r) => r.reason);
    expect(reasons).toContain('headless browser');
    expect(reasons).toContain('code protocol (runs local code)');
  });

  it('holds the loaded applicable corpus in a bounded live heap', async () => {
    const child = fileURLToPath(new URL('./corpus-heap-child.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', child, root, cacheDir ?? ''],
      { maxBuffer: 1 << 20 },
    );
    const heap = JSON.parse(stdout) as { templates: number; corpusMb: number; liveMb: number };
    console.log(`applicable corpus in memory: ${JSON.stringify(heap)}`);
    expect(heap.templates).toBeGreaterThan(9000);
    expect(heap.corpusMb).toBeLessThan(MAX_CORPUS_HEAP_MB);
  }, 600_000);
});
