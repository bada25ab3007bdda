import type { TReportNotice } from '@perimeter/contracts';
import {
  createFindingStages,
  DehashedSource,
  HibpSource,
  LeakCheckSource,
  LeakCipher,
  type LeakSource,
  type ScanConfig,
  ScanCoverage,
  type ScanSubclass,
  scan,
  type TemplateStageConfig,
} from '@perimeter/engine';
import { z } from 'zod';
import { type PgBoss as Boss, defineJob, type ExecuteSql, ensureQueues } from '../../lib/queue.ts';
import { scanMessage } from '../../lib/scan-messages.ts';
import type { AppContext } from '../../server/context.ts';
import * as findings from '../findings/findings-write-repo.ts';
import { countLeakRecords } from '../intel/intel-repo.ts';
import { databaseInfo, leakProviders } from '../intel/intel-service.ts';
import { oobNotices, oobScanConfig } from '../oob/oob-service.ts';
import { limitsOf } from '../targets/targets-fns.ts';
import { getUserPlan, type TargetRow, verifiedAddressTargets } from '../targets/targets-repo.ts';
import { OwnershipCheckUnavailable, recheckOwnership } from '../targets/targets-service.ts';
import { dnsServers } from '../targets/targets-verify.ts';
import { templateSelection } from '../templates/templates-fns.ts';
import {
  type ScanTemplateSets,
  scanTemplateSets,
  templateSetsCacheKey,
} from '../templates/templates-service.ts';
import {
  fixRuleOf,
  isEmptyBatch,
  ScanAccumulator,
  stageList,
  subdomainLimitMessage,
  summaryFields,
} from './scans-fns.ts';
import { PgLeakSource, PgVulnStore } from './scans-intel-repo.ts';
import * as reaperRepo from './scans-reaper-repo.ts';
import * as repo from './scans-repo.ts';

/**
 * The scan job: one pg-boss job per started scan. Retries with exponential backoff; a worker
 * that dies mid-scan stops writing the scan's heartbeat, and the stale-scan check on any other
 * worker hands the job back within seconds (the lease, `expireInSeconds`, is only the last
 * resort); findings are upserted by fingerprint so a retried scan never duplicates anything.
 * When the retries are used up the scan ends `canceled` with `failureReason` set, keeping what
 * it found, and the user is told.
 */
export const SCAN_QUEUE = 'scan-run';
/**
 * Notified when a scan job is queued (at its transaction's commit): workers listening on the change
 * feed (PERIMETER_CHANGE_FEED) start it at once; the others, and any behind a pooler in transaction
 * mode, find it at their next poll (0.5 s).
 */
export const SCAN_QUEUED_CHANNEL = 'scan_queued';
export const ZScanJob = z.object({ scanId: z.uuid() });
export type TScanJob = z.infer<typeof ZScanJob>;

export const scanJob = (env: AppContext['config']['env']) =>
  defineJob(
    SCAN_QUEUE,
    ZScanJob,
    {
      retryLimit: env.SCAN_JOB_RETRY_LIMIT,
      retryDelay: 2,
      retryBackoff: true,
      expireInSeconds: env.SCAN_JOB_EXPIRE_SECONDS,
    },
    { wakeChannel: SCAN_QUEUED_CHANNEL },
  );

/** Enqueues a scan job through `executeSql` (the caller's open transaction). */
export async function enqueueScanJob(
  env: AppContext['config']['env'],
  executeSql: ExecuteSql,
  scanId: string,
): Promise<string> {
  const id = await scanJob(env).enqueue(executeSql, { scanId }, { singletonKey: scanId });
  if (!id) throw new Error(`scan ${scanId} could not be enqueued`);
  return id;
}

const failureMessage = (reason: string) => scanMessage('scan_failed', { reason });

/** Starts WORKER_CONCURRENCY scan workers on this process, and the stale-scan check. */
export async function registerScanWorkers(ctx: AppContext, boss: Boss): Promise<{ stop(): Promise<void> }> {
  const job = scanJob(ctx.config.env);
  await ensureQueues(ctx.database.pool, boss, [job]);
  const workers = job.work(
    boss,
    ctx.logger,
    async ({ scanId }, meta) => {
      const lastAttempt = meta.retryCount >= meta.retryLimit;
      try {
        await runScan(ctx, scanId);
      } catch (err) {
        ctx.logger.error({ err, scanId, attempt: meta.retryCount }, 'scan job failed');
        if (lastAttempt) await failScan(ctx, scanId, `${(err as Error).message}.`);
        throw err;
      }
    },
    { concurrency: ctx.config.env.WORKER_CONCURRENCY, wake: ctx.scansQueued },
  );
  const silent = ctx.config.env.SCAN_HEARTBEAT_TIMEOUT_SECONDS;
  let checking: Promise<unknown> | undefined;
  const reaper = setInterval(
    () => {
      if (checking) return;
      checking = reapStaleScans(ctx, boss, silent)
        .catch((err) => ctx.logger.warn({ err: (err as Error).message }, 'stale scan check failed'))
        .finally(() => {
          checking = undefined;
        });
    },
    Math.min(3000, Math.max(500, (silent * 1000) / 4)),
  );
  reaper.unref();
  ctx.logger.info({ concurrency: ctx.config.env.WORKER_CONCURRENCY }, 'scan workers ready');
  return {
    async stop() {
      clearInterval(reaper);
      await workers.stop();
    },
  };
}

/** Ends a scan that cannot be run to its end: canceled with the reason; its findings stay. */
async function failScan(ctx: AppContext, scanId: string, reason: string): Promise<void> {
  await repo.transition(
    ctx.db,
    { id: scanId, from: ['pending', 'running'] },
    { status: 'canceled', finishedAt: new Date(), message: failureMessage(reason), failureReason: reason },
  );
}

/**
 * A worker that dies mid-scan leaves its job active until the lease runs out; the scan's
 * heartbeat (written every second) shows it much sooner, and a job fetched but never taken (the
 * worker died in between) shows by its scan still pending. Failing the job hands it to pg-boss's
 * retry; when no retry is left, or the job already ended without the scan, the scan fails.
 */
export async function reapStaleScans(ctx: AppContext, boss: Boss, silentSeconds: number): Promise<number> {
  const stale = [
    ...(await reaperRepo.claimStaleScans(ctx.db, silentSeconds)),
    ...(await reaperRepo.claimUntakenScans(ctx.db, silentSeconds)),
  ];
  for (const s of stale) {
    const job = s.jobId ? await boss.getJobById(SCAN_QUEUE, s.jobId) : null;
    const exhausted = !job || job.retryCount >= job.retryLimit;
    ctx.logger.warn({ scanId: s.id, jobId: s.jobId, exhausted }, 'scan worker went silent');
    if (s.jobId && job?.state === 'active')
      await boss.fail(SCAN_QUEUE, s.jobId, { reason: 'worker heartbeat lost' });
    if (exhausted)
      await failScan(
        ctx,
        s.id,
        `the worker running it stopped answering ${(job?.retryCount ?? 0) + 1} time(s) and no retry is left.`,
      );
  }
  // A scan whose job ended (failed by its lease, cancelled, archived) without the scan ending.
  for (const s of await reaperRepo.scansWithEndedJobs(ctx.db, silentSeconds))
    await failScan(ctx, s.id, 'its job ended before the scan did (the workers running it stopped).');
  return stale.length;
}

/**
 * Where intrusive templates may run (docs/security.md, "Whose servers"): the user's verified
 * peers and networks and the ranges the operator allows (`PERIMETER_INTRUSIVE_ALLOW`). A verified
 * domain proves its DNS, not the servers its names point at.
 */
export function intrusiveAllowList(env: AppContext['config']['env'], provenTargets: string[]): string[] {
  const operator = (env.PERIMETER_INTRUSIVE_ALLOW ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return [...operator, ...provenTargets];
}

/**
 * The template stage's request rate: the operator's `PERIMETER_TEMPLATE_RATE_LIMIT` and
 * `PERIMETER_TEMPLATE_RATE_LIMIT_PER`, else the engine's default politeness (150 requests/s per
 * host of the scan).
 */
export function templatePoliteness(
  env: AppContext['config']['env'],
): Pick<TemplateStageConfig, 'rateLimit' | 'rateLimitPer'> {
  return {
    ...(env.PERIMETER_TEMPLATE_RATE_LIMIT === undefined
      ? {}
      : { rateLimit: env.PERIMETER_TEMPLATE_RATE_LIMIT }),
    ...(env.PERIMETER_TEMPLATE_RATE_LIMIT_PER === undefined
      ? {}
      : { rateLimitPer: env.PERIMETER_TEMPLATE_RATE_LIMIT_PER }),
  };
}

function engineConfig(
  ctx: AppContext,
  row: repo.ScanRow,
  plan: ReturnType<typeof limitsOf>,
  sets: ScanTemplateSets,
  intrusiveAllow: string[],
): ScanConfig {
  const { subclasses, classes } = row;
  const env = ctx.config.env;
  const allow = env.PERIMETER_SCAN_ALLOW?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const db = ctx.db;
  return {
    classes: classes as ScanConfig['classes'],
    subclasses: subclasses as ScanSubclass[],
    dns: { servers: dnsServers(env), timeoutMs: 1500, retries: 1 },
    scope: { allowPrivate: env.PERIMETER_ALLOW_PRIVATE_TARGETS, ...(allow?.length ? { allow } : {}) },
    limits: { maxSubdomains: plan.subdomains, maxHosts: plan.externalIps },
    discovery: {
      ...(env.PERIMETER_CT_URL ? { ctUrl: env.PERIMETER_CT_URL } : {}),
      ...(env.PERIMETER_SCAN_WORDLIST_LIMIT !== undefined
        ? { wordlistLimit: env.PERIMETER_SCAN_WORDLIST_LIMIT }
        : {}),
    },
    ports: { list: env.PERIMETER_SCAN_PORTS, bannerTimeoutMs: 800 },
    extraStages: createFindingStages({
      templates: {
        ...templatePoliteness(env),
        timeoutMs: 4000,
        dirs: sets.dirs,
        intrusiveAllow,
        cacheKey: templateSetsCacheKey(sets),
        ...templateSelection(row.templateSelection, sets.ignore),
      },
      vulndb: { store: new PgVulnStore(db) },
      leaks: { sources: leakSources(ctx) },
    }),
  };
}

/** The local leak index, and each provider whose key is set (HIBP, LeakCheck, DeHashed). */
function leakSources(ctx: AppContext): LeakSource[] {
  const env = ctx.config.env;
  const out: LeakSource[] = [new PgLeakSource(ctx.db, new LeakCipher(ctx.config.secrets.encryptionKey))];
  if (env.HIBP_API_KEY) out.push(new HibpSource({ apiKey: env.HIBP_API_KEY }));
  if (env.LEAKCHECK_API_KEY) out.push(new LeakCheckSource({ apiKey: env.LEAKCHECK_API_KEY }));
  if (env.DEHASHED_API_KEY) out.push(new DehashedSource({ apiKey: env.DEHASHED_API_KEY }));
  return out;
}

/**
 * What the finding counts of this scan cannot show: a leak check with no provider and an empty
 * local index ("not configured", not "0 leaks"), a CVE check against an empty or stale database.
 */
async function intelNotices(ctx: AppContext, subclasses: string[]): Promise<TReportNotice[]> {
  const out: TReportNotice[] = [];
  if (subclasses.includes('leakcheck')) {
    const providers = leakProviders(ctx.config.env);
    if (
      !providers.hibp &&
      !providers.leakcheck &&
      !providers.dehashed &&
      (await countLeakRecords(ctx.db)) === 0
    )
      out.push('leak_check_not_configured');
  }
  if (subclasses.includes('exploit_db')) {
    const { state } = await databaseInfo(ctx);
    if (state === 'empty') out.push('cve_database_empty');
    if (state === 'stale') out.push('cve_database_stale');
  }
  return out;
}

const POLL_MS = 1000;

/**
 * Runs one scan to its end: re-checks ownership, streams the engine's events into the
 * database in batches, writes progress as it goes and stops within seconds of a cancel.
 */
export async function runScan(ctx: AppContext, scanId: string): Promise<void> {
  const db = ctx.db;
  const claimed = await claimScan(ctx, scanId);
  if (!claimed) return;
  const { row, targets } = claimed;
  const plan = limitsOf(await getUserPlan(db, row.userId));
  // The database's clock: findings' last_seen is written with it.
  const runStartedAt = await repo.databaseNow(db);
  const sets: ScanTemplateSets = row.subclasses.includes('exploit_scanner')
    ? await scanTemplateSets(ctx)
    : { dirs: [], sets: [], ignore: [] };
  // The first stage is shown from here on (the engine starts with it), not from the first batch a
  // second or 200 events later: a short scan would otherwise go from 'running' to 'done' with no stage shown.
  const stages = stageList(row.subclasses);
  await repo.writeProgress(db, scanId, {
    templateSets: sets.sets,
    partial: null,
    stage: stages[0],
    percent: 0,
    etaSeconds: null,
  });
  const proven = await verifiedAddressTargets(db, row.userId);
  const config: ScanConfig = {
    ...engineConfig(ctx, row, plan, sets, intrusiveAllowList(ctx.config.env, proven)),
    ...(await oobScanConfig(ctx, row)),
  };
  const notices = [...(await intelNotices(ctx, row.subclasses)), ...oobNotices(ctx, row.subclasses)];
  const coverage = new ScanCoverage();
  let fixRule: findings.FixRule | undefined;
  const acc = new ScanAccumulator(stages, targets, Date.now());
  /** Writes the batch (no transaction when it has no rows) and the progress, with `fields` in the same update. */
  const flush = async (fields: Parameters<typeof repo.writeProgress>[2] = {}) => {
    const batch = acc.take(Date.now());
    if (!isEmptyBatch(batch))
      await db.transaction(async (tx) => {
        await repo.saveAssets(tx, scanId, batch.assets);
        await repo.saveScope(tx, scanId, batch.scopeRows);
        await findings.upsertFindings(tx, scanId, row.userId, batch.found);
      });
    await repo.writeProgress(db, scanId, { ...acc.progress, counts: { ...acc.counts }, ...fields });
  };
  const watch = watchForCancel(ctx, scanId);
  try {
    for await (const event of scan(
      targets.map((t) => ({ type: t.targetType as 'domain' | 'peer' | 'network', value: t.value })),
      config,
      { signal: watch.signal, coverage },
    )) {
      acc.add(event, Date.now());
      if (event.type === 'summary') {
        await flush(summaryFields(event.summary, acc.overLimit, plan, notices));
        fixRule = fixRuleOf(event.summary, row.subclasses, coverage);
      }
      if (acc.isDue(Date.now())) await flush();
    }
    // The summary (the engine's last event, a cancelled scan's too) wrote the last batch already.
    if (acc.hasUnwritten) await flush();
  } finally {
    watch.stop();
  }
  if (watch.signal.aborted) {
    await repo.transition(db, { id: scanId, from: ['canceled'] }, { finishedAt: new Date() });
    return;
  }
  const message = acc.overLimit.length ? subdomainLimitMessage(plan, acc.overLimit.length) : undefined;
  await finishScan(ctx, row, targets, { runStartedAt, fixRule, message });
}

/**
 * Takes the scan (pending or running → running, one more attempt) and re-checks that its targets
 * are still the user's; undefined when the scan is not to run (cancelled, or a target lost).
 */
async function claimScan(
  ctx: AppContext,
  scanId: string,
): Promise<{ row: repo.ScanRow; targets: TargetRow[] } | undefined> {
  const db = ctx.db;
  const row = await repo.claim(db, scanId);
  if (!row) return undefined; // cancelled (or finished) before a worker took it
  ctx.logger.info({ scanId, attempt: row.attempts }, 'scan started');
  const targets = (await repo.scanTargetRows(db, [scanId])).map((r) => r.target);
  for (const t of targets) {
    let problem: string | null;
    try {
      problem = await recheckOwnership(ctx, t);
    } catch (err) {
      // Nothing answered: back to the queue (pg-boss retries with backoff), the target stays verified.
      if (err instanceof OwnershipCheckUnavailable)
        await repo.transition(
          db,
          { id: scanId, from: ['running'] },
          { status: 'pending', message: err.message },
        );
      throw err;
    }
    if (problem) {
      await repo.transition(
        db,
        { id: scanId, from: ['running'] },
        { status: 'canceled', finishedAt: new Date(), message: problem },
      );
      return undefined;
    }
  }
  return { row, targets };
}

/** Writes the heartbeat every second; aborts the signal once the scan is no longer running (cancelled). */
function watchForCancel(ctx: AppContext, scanId: string): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const poll = setInterval(() => {
    repo
      .heartbeat(ctx.db, scanId)
      .then((status) => {
        if (status !== 'running') controller.abort();
      })
      .catch(() => {});
  }, POLL_MS);
  return { signal: controller.signal, stop: () => clearInterval(poll) };
}

/** The scan ran to its end: done, and what it could tell it no longer sees is fixed, in one transaction. */
async function finishScan(
  ctx: AppContext,
  row: repo.ScanRow,
  targets: TargetRow[],
  end: { runStartedAt: Date; fixRule: findings.FixRule | undefined; message: string | undefined },
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const done = await repo.transition(
      tx,
      { id: row.id, from: ['running'] },
      {
        status: 'done',
        finishedAt: new Date(),
        percent: 100,
        stage: null,
        etaSeconds: 0,
        ...(end.message ? { message: end.message } : {}),
      },
    );
    if (done)
      await findings.markUnseenFixed(
        tx,
        row.id,
        targets.map((t) => t.id),
        row.subclasses,
        end.runStartedAt,
        end.fixRule ?? { undecided: row.subclasses },
      );
  });
}
