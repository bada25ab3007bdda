import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TScanTemplateSet } from '@perimeter/contracts';
import {
  BUILTIN_TEMPLATES_DIR,
  loadTemplates,
  preloadStageTemplates,
  readIgnoreList,
} from '@perimeter/engine';
import type { AppContext } from '../../server/context.ts';
import { groupReasons, versionFromFile, versionFromName } from './templates-fns.ts';
import * as repo from './templates-repo.ts';

const run = promisify(execFile);

/** Largest archive accepted (the community corpus is about 8 MB). */
const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;

/**
 * Template sets as data (docs/template-sets.md): `templates import` stores the set's archive in
 * PostgreSQL, versioned by a content hash; every worker unpacks the active sets once per hash
 * under its data dir and runs exactly those bytes.
 */
export interface ImportResult {
  set: repo.TemplateSetInfo;
  created: boolean;
}

async function tarCreate(dir: string, archive: string): Promise<void> {
  await run('tar', ['-czf', archive, '-C', dir, '.'], { maxBuffer: 16 * 1024 * 1024 });
}

/** Unpacks without owners or modes from the archive, then drops anything but folders and plain files. */
async function tarExtract(archive: string, dir: string): Promise<void> {
  await run('tar', ['-xzf', archive, '-C', dir, '--no-same-owner', '--no-same-permissions'], {
    maxBuffer: 16 * 1024 * 1024,
  });
  await keepPlainFiles(dir);
}

async function keepPlainFiles(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) await keepPlainFiles(full);
    else if (!e.isFile()) await rm(full, { force: true });
  }
}

/** sha256 over every file's relative path and content hash, in path order. */
export async function contentHash(dir: string): Promise<{ hash: string; files: number }> {
  const files: string[] = [];
  async function walk(d: string): Promise<void> {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) files.push(full);
    }
  }
  await walk(dir);
  const rel = files.map((f) => path.relative(dir, f).split(path.sep).join('/')).sort();
  const h = createHash('sha256');
  for (const f of rel) {
    const content = await readFile(path.join(dir, f));
    h.update(`${f}\u0000${createHash('sha256').update(content).digest('hex')}\n`);
  }
  return { hash: h.digest('hex'), files: rel.length };
}

/** A folder with one top-level folder and nothing else (a GitHub tarball): that folder is the root. */
async function setRoot(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  if (entries.length === 1 && entries[0]?.isDirectory()) return path.join(dir, entries[0].name);
  return dir;
}

/** `templates import <dir|.tar.gz>`: loads the set with the engine, stores it, makes it active. */
export async function importTemplateSet(
  ctx: AppContext,
  source: string,
  options: { name?: string; version?: string } = {},
): Promise<ImportResult> {
  const info = await stat(source).catch(() => null);
  if (!info) throw new TemplateSetError(`${source}: no such file or folder`);
  const work = await mkdtemp(path.join(os.tmpdir(), 'perimeter-template-import-'));
  try {
    const archive = path.join(work, 'set.tar.gz');
    const unpacked = path.join(work, 'set');
    await mkdir(unpacked);
    if (info.isDirectory()) {
      await tarCreate(source, archive);
    } else if (/\.(tar\.gz|tgz)$/i.test(source)) {
      if (info.size > MAX_ARCHIVE_BYTES)
        throw new TemplateSetError(`${source}: larger than ${MAX_ARCHIVE_BYTES} bytes`);
      await writeFile(archive, await readFile(source));
    } else {
      throw new TemplateSetError(`${source}: give a folder or a .tar.gz archive`);
    }
    try {
      await tarExtract(archive, unpacked);
    } catch (err) {
      throw new TemplateSetError(
        `${source}: not a readable .tar.gz (${(err as Error).message.split('\n')[0]})`,
      );
    }
    const root = await setRoot(unpacked);
    const { hash, files } = await contentHash(root);
    const loaded = await loadTemplates(root);
    if (loaded.total === 0) throw new TemplateSetError(`${source}: no template files (.yaml) found`);
    const ignore = await readIgnoreList(root);
    const versionFile = await readFile(path.join(root, 'VERSION'), 'utf8')
      .catch(() => readFile(path.join(root, '.version'), 'utf8'))
      .catch(() => undefined);
    const base = path.basename(path.resolve(source));
    const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');
    const result = await repo.saveTemplateSet(ctx.db, {
      name: options.name ?? base.replace(/\.(tar\.gz|tgz)$/i, ''),
      sourceVersion: options.version ?? versionFromFile(versionFile) ?? versionFromName(base),
      contentHash: hash,
      archive: await readFile(archive),
      active: true,
      files,
      loaded: loaded.templates.length,
      skipped: loaded.skipped.length,
      invalid: loaded.invalid.length,
      reasons: groupReasons([
        ...loaded.skipped.map((s) => ({ kind: 'skipped' as const, reason: s.reason, file: rel(s.file) })),
        ...loaded.invalid.map((i) => ({
          kind: 'invalid' as const,
          reason: `${i.field}: ${i.reason}`,
          file: rel(i.file),
        })),
      ]),
      excludedTags: ignore.tags,
      excludedFiles: ignore.files,
    });
    // This process's cache is warm: the folder just loaded is the set.
    const cached = cacheDir(ctx, hash);
    if (!existsSync(cached)) {
      await mkdir(path.dirname(cached), { recursive: true });
      await rename(root, cached).catch(() => {});
    }
    return result;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export class TemplateSetError extends Error {}

function cacheDir(ctx: AppContext, hash: string): string {
  return path.join(ctx.config.dataDir, 'template-sets', hash);
}

/** The folder of one set on this machine, unpacked from the database the first time. */
async function localDir(ctx: AppContext, hash: string): Promise<string | undefined> {
  const dir = cacheDir(ctx, hash);
  if (existsSync(dir)) return dir;
  const archive = await repo.templateSetArchive(ctx.db, hash);
  if (!archive) return undefined;
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true });
  // Unpacked beside the final folder and renamed: workers sharing a data dir never see half a set.
  const tmp = path.join(parent, `.tmp-${randomUUID()}`);
  await mkdir(tmp);
  try {
    const file = path.join(tmp, 'set.tar.gz');
    await writeFile(file, archive);
    const unpacked = path.join(tmp, 'set');
    await mkdir(unpacked);
    await tarExtract(file, unpacked);
    const root = await setRoot(unpacked);
    if ((await contentHash(root)).hash !== hash)
      throw new Error(`template set ${hash}: content does not match its hash`);
    await rename(root, dir).catch(async (err) => {
      if (!existsSync(dir)) throw err;
    });
    return dir;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

let builtin: Promise<TScanTemplateSet> | undefined;

/** The built-in pack as a set: its content hash is computed once per process. */
function builtinSet(): Promise<TScanTemplateSet> {
  builtin ??= (async () => {
    const [{ hash }, loaded] = await Promise.all([
      contentHash(BUILTIN_TEMPLATES_DIR),
      loadTemplates(BUILTIN_TEMPLATES_DIR),
    ]);
    return { name: 'built-in', version: null, hash, templates: loaded.templates.length };
  })();
  return builtin;
}

export interface ScanTemplateSets {
  /** Folders of the operator's active sets, in import order (the built-in pack runs too). */
  dirs: string[];
  /** What the scan records: the built-in pack, then each set. */
  sets: TScanTemplateSet[];
  /** The active sets' own ignore lists. */
  ignore: { excludedTags: string[]; excludedFiles: string[] }[];
}

/** The active sets a scan runs, unpacked on this machine. */
export async function scanTemplateSets(ctx: AppContext): Promise<ScanTemplateSets> {
  const out: ScanTemplateSets = { dirs: [], sets: [await builtinSet()], ignore: [] };
  for (const s of await repo.listTemplateSets(ctx.db, true)) {
    const dir = await localDir(ctx, s.contentHash);
    if (!dir) continue;
    out.dirs.push(dir);
    out.sets.push({ name: s.name, version: s.sourceVersion, hash: s.contentHash, templates: s.loaded });
    out.ignore.push({ excludedTags: s.excludedTags, excludedFiles: s.excludedFiles });
  }
  return out;
}

/**
 * The key under which a worker process keeps the sets compiled (the engine's `cacheKey`): sets are
 * content-addressed, so the same sets compile once per process.
 */
export function templateSetsCacheKey(sets: ScanTemplateSets): string {
  return sets.sets.map((x) => x.hash).join(',');
}

/**
 * Compiles the active sets into the process's cache before the worker takes scans, so that no
 * scan waits for the compile (~1 s for the built-in pack, more for a community corpus); a scan
 * that starts meanwhile waits for the same compile. Returns how many templates loaded.
 */
export async function warmTemplateSets(ctx: AppContext): Promise<number> {
  const sets = await scanTemplateSets(ctx);
  return preloadStageTemplates({ dirs: sets.dirs, cacheKey: templateSetsCacheKey(sets) });
}

/** `templates status`: one block per installed set. */
export async function templateStatusLines(ctx: AppContext): Promise<string[]> {
  const lines: string[] = [];
  const b = await builtinSet();
  lines.push(`built-in  ${b.hash.slice(0, 12)}  ${b.templates} templates  (always active)`);
  const sets = await repo.listTemplateSets(ctx.db);
  if (sets.length === 0)
    lines.push('no template sets imported (npm run cli -- templates import <dir|.tar.gz>)');
  for (const s of sets) {
    lines.push(
      `${s.name}  ${s.sourceVersion ?? '(no version)'}  ${s.contentHash.slice(0, 12)}  ${s.active ? 'active' : 'inactive'}  imported ${s.importedAt.toISOString()}`,
      `  files ${s.files}: loaded ${s.loaded}, skipped ${s.skipped}, invalid ${s.invalid}`,
    );
    for (const r of s.reasons)
      lines.push(
        `    ${r.kind} ${r.count}: ${r.reason}${r.examples.length ? ` (e.g. ${r.examples.join(', ')})` : ''}`,
      );
    if (s.excludedTags.length || s.excludedFiles.length)
      lines.push(
        `  left out by default (its ignore list): tags ${s.excludedTags.join(', ') || '-'}; ${s.excludedFiles.length} files`,
      );
  }
  return lines;
}

/** `npm run cli -- templates <import|status|enable|disable>`. */
export async function templatesCommand(ctx: AppContext, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'import') {
    const name = flag(rest, '--name');
    const version = flag(rest, '--version');
    const sources = rest.filter((a, i) => !a.startsWith('--') && !rest[i - 1]?.startsWith('--'));
    if (sources.length !== 1)
      throw new TemplateSetError('Use "templates import <dir|.tar.gz> [--name N] [--version V]".');
    const { set, created } = await importTemplateSet(ctx, sources[0] as string, {
      ...(name ? { name } : {}),
      ...(version ? { version } : {}),
    });
    console.log(
      `${created ? 'imported' : 'already installed (made active)'}: ${set.name} ${set.sourceVersion ?? ''} ${set.contentHash.slice(0, 12)} — loaded ${set.loaded}, skipped ${set.skipped}, invalid ${set.invalid} of ${set.files} files`,
    );
    return;
  }
  if (action === 'enable' || action === 'disable') {
    const key = rest[0];
    if (!key) throw new TemplateSetError(`Use "templates ${action} <name|hash prefix>".`);
    const changed = await repo.setTemplateSetActive(ctx.db, key, action === 'enable');
    if (changed.length === 0) throw new TemplateSetError(`No template set named or hashed "${key}".`);
    for (const c of changed) console.log(`${action}d: ${c}`);
    return;
  }
  if (action !== undefined && action !== 'status')
    throw new TemplateSetError(`Unknown templates action "${action}".`);
  for (const line of await templateStatusLines(ctx)) console.log(line);
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
