import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { importFeedFile, importFeedUrl, LeakCipher } from '@perimeter/engine';
import { sql } from 'drizzle-orm';
import { leakRecords } from '../../db/schema/index.ts';
import type { AppContext } from '../../server/context.ts';
import { markImported } from '../intel/intel-repo.ts';
import { importSnapshot } from '../intel/intel-service.ts';
import { addLeaks, PgVulnStore, parseLeakFile } from './scans-intel-repo.ts';

/**
 * Operator commands for the CVE database and the leak index (`npm run cli -- cve|leaks ...`).
 * Feeds come from files or directories (air-gapped sites copy them over) or from URLs.
 */
export async function importCveSources(
  ctx: AppContext,
  sources: string[],
  log: (line: string) => void = console.log,
): Promise<{ files: number; records: number; total: number }> {
  const store = new PgVulnStore(ctx.db);
  let files = 0;
  let records = 0;
  for (const source of sources) {
    if (/^https?:\/\//i.test(source)) {
      const list = await importFeedUrl(source);
      await store.add(list);
      files++;
      records += list.length;
      log(`${source}: ${list.length} records`);
      continue;
    }
    for (const file of await feedFiles(source)) {
      const snapshot = await importSnapshot(ctx, file);
      if (snapshot) {
        files++;
        records += snapshot.vulns;
        log(
          `${file}: intel snapshot, ${snapshot.vulns} records, ${snapshot.kev} KEV entries, ${snapshot.epss} EPSS scores`,
        );
        continue;
      }
      const list = await importFeedFile(file);
      await store.add(list);
      files++;
      records += list.length;
      log(`${file}: ${list.length} records`);
    }
  }
  const total = await store.size();
  if (records > 0) await markImported(ctx.db, 'import', total, new Date());
  return { files, records, total };
}

async function feedFiles(source: string): Promise<string[]> {
  const info = await stat(source);
  if (!info.isDirectory()) return [source];
  const out: string[] = [];
  for (const entry of (await readdir(source, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const full = path.join(source, entry.name);
    if (entry.isDirectory()) out.push(...(await feedFiles(full)));
    else if (/\.json(\.gz)?$/i.test(entry.name) && !/^index\.json$/i.test(entry.name)) out.push(full);
  }
  return out;
}

export async function importLeakFile(
  ctx: AppContext,
  file: string,
  source?: string,
): Promise<{ imported: number; skipped: number }> {
  const text = await readFile(file, 'utf8');
  const entries = parseLeakFile(text, source ?? path.basename(file));
  return addLeaks(ctx.db, new LeakCipher(ctx.config.secrets.encryptionKey), entries);
}

export async function intelStatus(ctx: AppContext): Promise<{ cves: number; leaks: number }> {
  const cves = await new PgVulnStore(ctx.db).size();
  const [row] = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(leakRecords);
  return { cves, leaks: row?.n ?? 0 };
}

/** `cve import <file|dir|url>...` and `cve status`. */
export async function cveCommand(ctx: AppContext, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'import' && rest.length > 0) {
    const r = await importCveSources(ctx, rest);
    console.log(`imported ${r.records} records from ${r.files} feed(s); the CVE database holds ${r.total}`);
    return;
  }
  if (action === 'status') {
    console.log(`CVE database: ${(await intelStatus(ctx)).cves} records`);
    return;
  }
  throw new Error('Usage: cve import <file|dir|url>... | cve status');
}

/** `leaks import <file> [--source name]` and `leaks status`. */
export async function leaksCommand(ctx: AppContext, args: string[]): Promise<void> {
  const [action, file, ...rest] = args;
  if (action === 'import' && file) {
    const i = rest.indexOf('--source');
    const r = await importLeakFile(ctx, file, i >= 0 ? rest[i + 1] : undefined);
    console.log(`imported ${r.imported} leak records (${r.skipped} skipped)`);
    return;
  }
  if (action === 'status') {
    console.log(`leak index: ${(await intelStatus(ctx)).leaks} records`);
    return;
  }
  throw new Error('Usage: leaks import <file> [--source name] | leaks status');
}
