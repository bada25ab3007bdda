import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { detectFeedFormat, importNvd20, importRetireJs } from '@perimeter/engine';
import type { AppContext } from '../../server/context.ts';
import { PgVulnStore } from '../scans/scans-intel-repo.ts';
import {
  backoffMs,
  type IntelSource,
  IntelSyncError,
  isLoopbackUrl,
  isRetryableStatus,
  kevRows,
  NVD_PAGE_SIZE,
  nextWindow,
  nvdDate,
  nvdRefusal,
  nvdRequestBudget,
  parseEpssCsv,
  RollingLimiter,
  type TNvdCursor,
  ZNvdCursor,
  ZNvdPage,
} from './intel-fns.ts';
import * as repo from './intel-repo.ts';

export interface SyncOptions {
  /** Who holds the lease (a worker id, `cli:<pid>`). */
  owner: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
  /** First retry delay; doubles each attempt (NVD asks for about 6 s). */
  retryBaseMs?: number;
  /** Attempts per request before the run fails (the next run resumes from the cursor). */
  attempts?: number;
  pageSize?: number;
  leaseSeconds?: number;
  requestTimeoutMs?: number;
  onProgress?: (line: string) => void;
}

export type SyncResult =
  | { source: IntelSource; status: 'ok' | 'unchanged'; records: number; detail: string }
  | { source: IntelSource; status: 'failed'; records: number; error: string }
  | { source: IntelSource; status: 'busy'; records: number; detail: string };

interface Run {
  ctx: AppContext;
  source: IntelSource;
  opts: Required<Omit<SyncOptions, 'onProgress'>> & Pick<SyncOptions, 'onProgress'>;
  cursor: Record<string, unknown>;
  save(cursor: Record<string, unknown>): Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs one source's sync under its lease; records the outcome on the source's row. */
export async function syncSource(
  ctx: AppContext,
  source: IntelSource,
  options: SyncOptions,
): Promise<SyncResult> {
  const opts = {
    fetch: globalThis.fetch,
    sleep: realSleep,
    now: () => new Date(),
    retryBaseMs: 6000,
    attempts: 6,
    pageSize: NVD_PAGE_SIZE,
    leaseSeconds: 600,
    requestTimeoutMs: 180_000,
    ...options,
  };
  const db = ctx.db;
  if (!(await repo.claimLease(db, source, opts.owner, opts.leaseSeconds))) {
    const row = await repo.sourceRow(db, source);
    return {
      source,
      status: 'busy',
      records: row?.records ?? 0,
      detail: `another run holds the lease until ${row?.leaseUntil?.toISOString() ?? '?'}`,
    };
  }
  const row = await repo.sourceRow(db, source);
  const run: Run = {
    ctx,
    source,
    opts,
    cursor: row?.cursor ?? {},
    save: (cursor) => repo.saveCursor(db, source, opts.owner, cursor, opts.leaseSeconds),
  };
  try {
    const outcome = await SYNCS[source](run);
    const records = await countOf(ctx, source);
    await repo.finishRun(db, source, opts.owner, { ok: true, records });
    return { source, status: outcome.changed ? 'ok' : 'unchanged', records, detail: outcome.detail };
  } catch (err) {
    const error = err instanceof IntelSyncError ? err.message : `${source}: ${(err as Error).message}`;
    const records = await countOf(ctx, source);
    await repo.finishRun(db, source, opts.owner, { ok: false, error, records });
    return { source, status: 'failed', records, error };
  }
}

async function countOf(ctx: AppContext, source: IntelSource): Promise<number> {
  if (source === 'nvd') return repo.countVulnRecords(ctx.db, 'nvd');
  if (source === 'retire') return repo.countVulnRecords(ctx.db, 'retirejs');
  return repo.countRows(ctx.db, source);
}

const SYNCS: Record<IntelSource, (run: Run) => Promise<{ changed: boolean; detail: string }>> = {
  nvd: syncNvd,
  kev: syncKev,
  epss: syncEpss,
  retire: syncRetire,
};

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.cause?.code ?? e.code;
}

/** GET with the source's budget, retries with backoff on 403/429/5xx and dropped connections. */
async function get(
  run: Run,
  url: string,
  {
    headers = {},
    limiter,
    refusal = (status: number) => `HTTP ${status}`,
  }: { headers?: Record<string, string>; limiter?: RollingLimiter; refusal?: (status: number) => string },
): Promise<{ status: number; body: Buffer; etag: string | null }> {
  const { opts, source } = run;
  if (run.ctx.config.env.NODE_ENV === 'test' && !isLoopbackUrl(url))
    throw new IntelSyncError(source, `refusing ${new URL(url).host} under NODE_ENV=test (loopback only)`);
  let last = '';
  for (let attempt = 0; attempt < opts.attempts; attempt++) {
    if (limiter) {
      const wait = limiter.delay();
      if (wait > 0) await opts.sleep(wait);
      limiter.record();
    }
    let retryAfter: string | null = null;
    try {
      const res = await opts.fetch(url, { headers, signal: AbortSignal.timeout(opts.requestTimeoutMs) });
      if (res.ok || res.status === 304) {
        const body = Buffer.from(await res.arrayBuffer());
        return { status: res.status, body, etag: res.headers.get('etag') };
      }
      await res.body?.cancel().catch(() => {});
      if (!isRetryableStatus(res.status))
        throw new IntelSyncError(source, `${refusal(res.status)} for ${url}`);
      last = refusal(res.status);
      retryAfter = res.headers.get('retry-after');
    } catch (err) {
      if (err instanceof IntelSyncError) throw err;
      const code = errorCode(err);
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
        throw new IntelSyncError(
          source,
          `cannot resolve ${new URL(url).host} (${code}): no Internet access?`,
        );
      last = `connection to ${new URL(url).host} failed (${code ?? (err as Error).message})`;
    }
    if (attempt + 1 < opts.attempts) await opts.sleep(backoffMs(attempt, opts.retryBaseMs, retryAfter));
  }
  throw new IntelSyncError(
    source,
    `${last} — gave up after ${opts.attempts} attempts; the next run resumes where this one stopped`,
  );
}

function parseJson(run: Run, body: Buffer, what: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new IntelSyncError(
      run.source,
      `${what} is not valid JSON (${(err as Error).message}); nothing of it was stored`,
    );
  }
}

async function syncNvd(run: Run): Promise<{ changed: boolean; detail: string }> {
  const { ctx, opts } = run;
  const env = ctx.config.env;
  const apiKey = env.NVD_API_KEY;
  const limiter = new RollingLimiter(nvdRequestBudget(apiKey, env.INTEL_NVD_REQUESTS_PER_30S), 30_000);
  const store = new PgVulnStore(ctx.db);
  const parsed = ZNvdCursor.safeParse(run.cursor);
  let cursor: TNvdCursor = parsed.success
    ? parsed.data
    : { mode: 'full', startIndex: 0, startedAt: opts.now().toISOString() };
  let stored = 0;

  const page = async (params: Record<string, string>, startIndex: number) => {
    const url = new URL(env.INTEL_NVD_URL);
    for (const [k, v] of Object.entries({
      ...params,
      resultsPerPage: String(opts.pageSize),
      startIndex: String(startIndex),
    }))
      url.searchParams.set(k, v);
    const res = await get(run, url.toString(), {
      headers: apiKey ? { apiKey } : {},
      limiter,
      refusal: (status) => nvdRefusal(status, Boolean(apiKey)),
    });
    const what = `NVD page at startIndex ${startIndex}`;
    const raw = parseJson(run, res.body, what);
    // Validated for paging; the records are read from the raw page (zod strips what it does not name).
    const doc = ZNvdPage.safeParse(raw);
    if (!doc.success) {
      const issue = doc.error.issues[0];
      throw new IntelSyncError(
        run.source,
        `${what} is malformed (${issue?.path.join('.') || 'root'}: ${issue?.message}); nothing of it was stored, the previous data is kept`,
      );
    }
    const records = importNvd20(raw);
    if (records.length !== doc.data.vulnerabilities.length)
      throw new IntelSyncError(
        run.source,
        `${what} holds records without a CVE id; nothing of it was stored`,
      );
    const next = startIndex + records.length;
    if (records.length === 0 && next < doc.data.totalResults)
      throw new IntelSyncError(run.source, `${what} is empty before totalResults ${doc.data.totalResults}`);
    await store.add(records);
    stored += records.length;
    return { next, total: doc.data.totalResults };
  };

  if (cursor.mode === 'full') {
    for (;;) {
      const { next, total } = await page({}, cursor.startIndex);
      cursor = { ...cursor, startIndex: next };
      await run.save(cursor);
      opts.onProgress?.(`nvd: full load ${Math.min(next, total)} of ${total}`);
      if (next >= total) break;
    }
    cursor = { mode: 'incremental', since: cursor.startedAt, startIndex: 0 };
    await run.save(cursor);
  }
  const now = opts.now();
  let windows = 0;
  for (;;) {
    const w: { start: Date; end: Date } | null = cursor.window
      ? { start: new Date(cursor.window.start), end: new Date(cursor.window.end) }
      : nextWindow(new Date(cursor.since), now);
    if (!w) break;
    const window: { start: string; end: string } = { start: w.start.toISOString(), end: w.end.toISOString() };
    let startIndex = cursor.window ? cursor.startIndex : 0;
    for (;;) {
      const { next, total } = await page(
        { lastModStartDate: nvdDate(w.start), lastModEndDate: nvdDate(w.end) },
        startIndex,
      );
      startIndex = next;
      cursor = { mode: 'incremental', since: cursor.since, window, startIndex };
      await run.save(cursor);
      opts.onProgress?.(
        `nvd: modified ${window.start.slice(0, 10)} … ${window.end.slice(0, 10)}: ${Math.min(next, total)} of ${total}`,
      );
      if (next >= total) break;
    }
    cursor = { mode: 'incremental', since: window.end, startIndex: 0 };
    await run.save(cursor);
    windows++;
  }
  return {
    changed: stored > 0,
    detail: `${stored} records stored${windows ? ` from ${windows} window(s)` : ''}`,
  };
}

async function syncKev(run: Run): Promise<{ changed: boolean; detail: string }> {
  const { ctx } = run;
  const etag = typeof run.cursor.etag === 'string' ? run.cursor.etag : undefined;
  const res = await get(run, ctx.config.env.INTEL_KEV_URL, {
    headers: etag ? { 'if-none-match': etag } : {},
  });
  if (res.status === 304) return { changed: false, detail: 'catalogue not modified' };
  let parsed: ReturnType<typeof kevRows>;
  try {
    parsed = kevRows(parseJson(run, res.body, 'the KEV catalogue'));
  } catch (err) {
    if (err instanceof IntelSyncError) throw err;
    throw new IntelSyncError(run.source, `${(err as Error).message}; the previous catalogue is kept`);
  }
  if (parsed.version && parsed.version === run.cursor.version && parsed.rows.length === run.cursor.count)
    return { changed: false, detail: `catalogue ${parsed.version} unchanged` };
  await repo.replaceKev(ctx.db, parsed.rows);
  const updated = await repo.applyIntelToFindings(ctx.db);
  await run.save({ version: parsed.version, count: parsed.rows.length, etag: res.etag });
  run.opts.onProgress?.(
    `kev: ${parsed.rows.length} known exploited CVEs (catalogue ${parsed.version ?? '?'})`,
  );
  return { changed: true, detail: `${parsed.rows.length} entries, ${updated} findings updated` };
}

async function syncEpss(run: Run): Promise<{ changed: boolean; detail: string }> {
  const { ctx } = run;
  const res = await get(run, ctx.config.env.INTEL_EPSS_URL, {});
  let text: string;
  try {
    text =
      res.body[0] === 0x1f && res.body[1] === 0x8b
        ? gunzipSync(res.body).toString('utf8')
        : res.body.toString('utf8');
  } catch (err) {
    throw new IntelSyncError(
      run.source,
      `the EPSS file is not valid gzip (${(err as Error).message}); the previous scores are kept`,
    );
  }
  let parsed: ReturnType<typeof parseEpssCsv>;
  try {
    parsed = parseEpssCsv(text);
  } catch (err) {
    throw new IntelSyncError(run.source, `${(err as Error).message}; the previous scores are kept`);
  }
  if (parsed.scoreDate && parsed.scoreDate === run.cursor.scoreDate)
    return { changed: false, detail: `scores of ${parsed.scoreDate} already loaded` };
  await repo.replaceEpss(ctx.db, parsed.rows, parsed.scoreDate);
  const updated = await repo.applyIntelToFindings(ctx.db);
  await run.save({ scoreDate: parsed.scoreDate, modelVersion: parsed.modelVersion });
  run.opts.onProgress?.(`epss: ${parsed.rows.length} scores of ${parsed.scoreDate ?? '?'}`);
  return { changed: true, detail: `${parsed.rows.length} scores, ${updated} findings updated` };
}

async function syncRetire(run: Run): Promise<{ changed: boolean; detail: string }> {
  const { ctx } = run;
  const res = await get(run, ctx.config.env.INTEL_RETIRE_URL, {});
  const sha256 = createHash('sha256').update(res.body).digest('hex');
  if (sha256 === run.cursor.sha256) return { changed: false, detail: 'repository unchanged' };
  const doc = parseJson(run, res.body, 'the retire.js repository');
  if (detectFeedFormat(doc) !== 'retirejs')
    throw new IntelSyncError(
      run.source,
      'the retire.js repository is malformed (no library with vulnerabilities); the previous data is kept',
    );
  const records = importRetireJs(doc);
  await new PgVulnStore(ctx.db).add(records);
  await run.save({ sha256 });
  run.opts.onProgress?.(`retire: ${records.length} advisories`);
  return { changed: true, detail: `${records.length} advisories` };
}
