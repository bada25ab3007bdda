import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { VulnRecord } from '@perimeter/engine';
import type { AppContext } from '../../server/context.ts';
import { PgVulnStore } from '../scans/scans-intel-repo.ts';
import {
  type DatabaseState,
  databaseState,
  type EpssRow,
  enabledSources,
  INTEL_SOURCES,
  type IntelSource,
  isSyncScheduled,
  type KevRow,
} from './intel-fns.ts';
import * as repo from './intel-repo.ts';
import { type SyncOptions, type SyncResult, syncSource } from './intel-sync.ts';

/** Runs the given sources one after another (each under its own lease). */
export async function syncSources(
  ctx: AppContext,
  sources: IntelSource[],
  options: SyncOptions,
): Promise<SyncResult[]> {
  const out: SyncResult[] = [];
  for (const source of sources) out.push(await syncSource(ctx, source, options));
  return out;
}

export interface DatabaseInfo {
  state: DatabaseState;
  cveRecords: number;
  kevRecords: number;
  epssRecords: number;
  lastSuccessAt: Date | null;
  staleAfterDays: number;
}

/** Is the CVE database empty, stale or current (the scan detail, the CVE tab and the start-up log say so). */
export async function databaseInfo(ctx: AppContext, now = new Date()): Promise<DatabaseInfo> {
  const [rows, cveRecords, kevRecords, epssRecords] = await Promise.all([
    repo.sourceRows(ctx.db),
    repo.countVulnRecords(ctx.db),
    repo.countRows(ctx.db, 'kev'),
    repo.countRows(ctx.db, 'epss'),
  ]);
  const cveSources = rows.filter((r) => r.source === 'nvd' || r.source === 'retire' || r.source === 'import');
  const lastSuccessAt =
    cveSources
      .map((r) => r.lastSuccessAt)
      .filter((d): d is Date => d !== null)
      .sort((a, b) => b.getTime() - a.getTime())[0] ?? null;
  const staleAfterDays = ctx.config.env.INTEL_STALE_DAYS;
  return {
    state: databaseState(cveRecords, lastSuccessAt, now, staleAfterDays),
    cveRecords,
    kevRecords,
    epssRecords,
    lastSuccessAt,
    staleAfterDays,
  };
}

/** What an operator should do about an empty or stale database (one line). */
export function databaseNotice(info: DatabaseInfo, syncScheduled: boolean): string | null {
  if (info.state === 'current') return null;
  const fix = syncScheduled
    ? 'the worker syncs it on its schedule; run `npm run cli -- intel sync` to sync now, or `npm run cli -- cve import <file>` on an air-gapped site'
    : 'run `npm run cli -- intel sync` (or set INTEL_SYNC=true), or `npm run cli -- cve import <file>` on an air-gapped site';
  if (info.state === 'empty')
    return `The CVE database is empty: scans find no CVE matches until it is loaded — ${fix}.`;
  const since = info.lastSuccessAt
    ? `since ${info.lastSuccessAt.toISOString().slice(0, 10)}`
    : 'with no recorded sync';
  return `The CVE database (${info.cveRecords} records) has not been updated ${since} (stale after ${info.staleAfterDays} days) — ${fix}.`;
}

/** Logs the database notice once at start-up. */
export async function logDatabaseNotice(ctx: AppContext): Promise<void> {
  const info = await databaseInfo(ctx);
  const notice = databaseNotice(info, isSyncScheduled(ctx.config.env));
  if (notice) ctx.logger.warn(notice);
  else ctx.logger.info({ cveRecords: info.cveRecords }, 'CVE database is current');
}

export interface LeakProviders {
  hibp: boolean;
  leakcheck: boolean;
  dehashed: boolean;
}

export function leakProviders(env: AppContext['config']['env']): LeakProviders {
  return {
    hibp: Boolean(env.HIBP_API_KEY),
    leakcheck: Boolean(env.LEAKCHECK_API_KEY),
    dehashed: Boolean(env.DEHASHED_API_KEY),
  };
}

/** Per source: records, last success, last error, next run; the leak providers configured. */
export async function intelStatusText(ctx: AppContext, nextRun: Date | null): Promise<string> {
  const env = ctx.config.env;
  const enabled = new Set(enabledSources(env.INTEL_SOURCES));
  const rows = new Map((await repo.sourceRows(ctx.db)).map((r) => [r.source, r]));
  const scheduled = isSyncScheduled(env);
  const lines: string[] = [];
  const when = (d: Date | null | undefined) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : 'never');
  for (const source of INTEL_SOURCES) {
    const r = rows.get(source);
    const state = !enabled.has(source)
      ? 'off'
      : scheduled
        ? `next run ${when(nextRun)}`
        : 'not scheduled (INTEL_SYNC)';
    lines.push(
      `${source.padEnd(7)} records ${String(r?.records ?? 0).padStart(7)}  last success ${when(r?.lastSuccessAt)}  ${state}`,
    );
    if (r?.leaseUntil && r.leaseUntil > new Date()) lines.push(`        running (${r.leaseOwner})`);
    if (r?.lastError) lines.push(`        last error ${when(r.lastErrorAt)}: ${r.lastError}`);
  }
  const imported = rows.get('import');
  if (imported)
    lines.push(
      `import  records ${String(imported.records).padStart(7)}  last import ${when(imported.lastSuccessAt)}`,
    );
  const info = await databaseInfo(ctx);
  lines.push(`CVE database: ${info.cveRecords} records, ${info.state}`);
  const notice = databaseNotice(info, scheduled);
  if (notice) lines.push(notice);
  const providers = leakProviders(env);
  const configured = Object.entries(providers)
    .filter(([, on]) => on)
    .map(([name]) => name);
  lines.push(
    `leak providers: ${configured.length ? configured.join(', ') : 'none configured (set HIBP_API_KEY, LEAKCHECK_API_KEY or DEHASHED_API_KEY)'}; local leak index: ${await repo.countLeakRecords(ctx.db)} records`,
  );
  return lines.join('\n');
}

/** First line of an intel snapshot (`intel export`), NDJSON then gzip. */
interface SnapshotHeader {
  format: 'perimeter-intel';
  version: 1;
  exported_at: string;
  counts: { vulns: number; kev: number; epss: number };
  sources: Record<string, { last_success_at: string | null; cursor: Record<string, unknown> }>;
}

type SnapshotLine = { vuln: VulnRecord } | { kev: KevRow } | { epss: EpssRow & { scoreDate: string | null } };

/** Writes the whole CVE database, KEV and EPSS to one gzip file that `cve import` loads. */
export async function exportSnapshot(
  ctx: AppContext,
  file: string,
): Promise<{ vulns: number; kev: number; epss: number }> {
  const db = ctx.db;
  const counts = {
    vulns: await repo.countVulnRecords(db),
    kev: await repo.countRows(db, 'kev'),
    epss: await repo.countRows(db, 'epss'),
  };
  const sources = Object.fromEntries(
    (await repo.sourceRows(db)).map((r) => [
      r.source,
      { last_success_at: r.lastSuccessAt?.toISOString() ?? null, cursor: r.cursor },
    ]),
  );
  const header: SnapshotHeader = {
    format: 'perimeter-intel',
    version: 1,
    exported_at: new Date().toISOString(),
    counts,
    sources,
  };
  async function* lines(): AsyncGenerator<string> {
    yield `${JSON.stringify(header)}\n`;
    let after = '';
    for (;;) {
      const page = await repo.vulnRecordsAfter(db, after, 2000);
      if (page.length === 0) break;
      yield page.map((r) => `${JSON.stringify({ vuln: r.record })}\n`).join('');
      after = (page[page.length - 1] as { id: string }).id;
    }
    for (const k of await repo.allKev(db)) {
      const { cveId, vendorProject, product, name, dateAdded, dueDate, knownRansomware, requiredAction } = k;
      yield `${JSON.stringify({ kev: { cveId, vendorProject, product, name, dateAdded, dueDate, knownRansomware, requiredAction } })}\n`;
    }
    after = '';
    for (;;) {
      const page = await repo.epssAfter(db, after, 10_000);
      if (page.length === 0) break;
      yield page.map((e) => `${JSON.stringify({ epss: e })}\n`).join('');
      after = (page[page.length - 1] as { cveId: string }).cveId;
    }
  }
  await pipeline(lines, createGzip(), createWriteStream(file));
  return counts;
}

const SNAPSHOT_PREFIX = '{"format":"perimeter-intel"';

/** Whether a gzip file's content starts with `prefix` (reads only its first chunk). */
async function gzipStartsWith(file: string, prefix: string): Promise<boolean> {
  const raw = createReadStream(file);
  const stream = raw.pipe(createGunzip());
  try {
    for await (const chunk of stream) return (chunk as Buffer).toString('utf8').startsWith(prefix);
    return false;
  } catch {
    return false;
  } finally {
    stream.destroy();
    raw.destroy();
  }
}

/**
 * Loads an `intel export` snapshot; `undefined` when the file is not one (then `cve import`
 * reads it as an NVD or retire.js feed). The sources' cursors come along, so a site that later
 * gets Internet access continues incrementally from the snapshot.
 */
export async function importSnapshot(
  ctx: AppContext,
  file: string,
): Promise<{ vulns: number; kev: number; epss: number } | undefined> {
  const handle = await open(file, 'r');
  const head = Buffer.alloc(64);
  const { bytesRead } = await handle.read(head, 0, 64, 0);
  await handle.close();
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  // Not a snapshot (an NVD or retire.js feed): say so without reading the file.
  if (!gzip && !head.subarray(0, bytesRead).toString('utf8').startsWith(SNAPSHOT_PREFIX)) return undefined;
  if (gzip && !(await gzipStartsWith(file, SNAPSHOT_PREFIX))) return undefined;
  const raw = createReadStream(file);
  const input = gzip ? raw.pipe(createGunzip()) : raw;
  const rl = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let header: SnapshotHeader | undefined;
  const store = new PgVulnStore(ctx.db);
  const counts = { vulns: 0, kev: 0, epss: 0 };
  let vulns: VulnRecord[] = [];
  const kev: KevRow[] = [];
  const epss: (EpssRow & { scoreDate: string | null })[] = [];
  try {
    for await (const line of rl) {
      if (!header) {
        try {
          const h = JSON.parse(line) as SnapshotHeader;
          if (h?.format !== 'perimeter-intel') return undefined;
          header = h;
        } catch {
          return undefined;
        }
        continue;
      }
      if (line === '') continue;
      const item = JSON.parse(line) as SnapshotLine;
      if ('vuln' in item) {
        vulns.push(item.vuln);
        if (vulns.length >= 2000) {
          await store.add(vulns);
          counts.vulns += vulns.length;
          vulns = [];
        }
      } else if ('kev' in item) kev.push(item.kev);
      else if ('epss' in item) epss.push(item.epss);
    }
  } finally {
    rl.close();
    raw.destroy();
  }
  if (!header) return undefined;
  await store.add(vulns);
  counts.vulns += vulns.length;
  if (kev.length) await repo.replaceKev(ctx.db, kev);
  if (epss.length) await repo.replaceEpss(ctx.db, epss, epss[0]?.scoreDate ?? null);
  counts.kev = kev.length;
  counts.epss = epss.length;
  await repo.applyIntelToFindings(ctx.db);
  for (const [source, s] of Object.entries(header.sources)) {
    if (!(INTEL_SOURCES as readonly string[]).includes(source) && source !== 'import') continue;
    if (!s.last_success_at) continue;
    const records =
      source === 'kev'
        ? kev.length
        : source === 'epss'
          ? epss.length
          : await repo.countVulnRecords(
              ctx.db,
              source === 'retire' ? 'retirejs' : source === 'nvd' ? 'nvd' : undefined,
            );
    await repo.markImported(ctx.db, source, records, new Date(s.last_success_at), s.cursor);
  }
  return counts;
}

const INTEL_USAGE = 'Usage: intel sync [--source nvd|kev|epss|retire] | intel status | intel export <file>';

/** `intel sync [--source …]`, `intel status`, `intel export <file>`. */
export async function intelCommand(
  ctx: AppContext,
  args: string[],
  nextRun: (cron: string) => Date | null,
): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'sync') {
    const i = rest.indexOf('--source');
    const asked = i >= 0 ? rest[i + 1] : undefined;
    if (asked !== undefined && !(INTEL_SOURCES as readonly string[]).includes(asked))
      throw new Error(`Unknown source "${asked}". ${INTEL_USAGE}`);
    const sources = asked ? [asked as IntelSource] : enabledSources(ctx.config.env.INTEL_SOURCES);
    if (sources.length === 0)
      throw new Error('INTEL_SOURCES=none: no source to sync (name one with --source).');
    const results = await syncSources(ctx, sources, {
      owner: `cli:${process.pid}`,
      onProgress: (line) => console.log(line),
    });
    for (const r of results)
      console.log(
        r.status === 'failed'
          ? `${r.source}: FAILED — ${r.error}`
          : `${r.source}: ${r.status} — ${r.detail}; ${r.records} records`,
      );
    const failed = results.filter((r) => r.status === 'failed').map((r) => r.source);
    if (failed.length)
      throw new Error(`intel sync failed for ${failed.join(', ')}; the data already loaded is kept`);
    return;
  }
  if (action === 'status') {
    console.log(await intelStatusText(ctx, nextRun(ctx.config.env.INTEL_SYNC_CRON)));
    return;
  }
  if (action === 'export' && rest[0]) {
    const c = await exportSnapshot(ctx, rest[0]);
    console.log(
      `exported ${c.vulns} CVE records, ${c.kev} KEV entries and ${c.epss} EPSS scores to ${rest[0]} (load it with: npm run cli -- cve import ${rest[0]})`,
    );
    return;
  }
  throw new Error(INTEL_USAGE);
}
