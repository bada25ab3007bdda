import {
  type Asset,
  type CveFinding,
  createFindingStages,
  type Finding,
  hostNames,
  LeakCipher,
  type LeakFinding,
  type ScanConfig,
  type ScanSubclass,
  ScopePolicy,
  scan,
  type TemplateFinding,
} from '@perimeter/engine';
import PgBoss from 'pg-boss';
import { z } from 'zod';
import type { PgBoss as Boss } from '../../lib/queue.ts';
import type { AppContext } from '../../server/context.ts';
import { limitsOf } from '../targets/targets-fns.ts';
import { getUserPlan, type TargetRow } from '../targets/targets-repo.ts';
import { OwnershipCheckUnavailable, recheckOwnership } from '../targets/targets-service.ts';
import { dnsServers } from '../targets/targets-verify.ts';
import {
  assetKey,
  findingHost,
  percentOf,
  ScopeModel,
  stageList,
  subdomainLimitMessage,
  subdomainLimitReason,
} from './scans-fns.ts';
import { PgLeakSource, PgVulnStore } from './scans-intel-repo.ts';
import * as repo from './scans-repo.ts';

/**
 * The scan job: one pg-boss job per started scan. Retries with exponential backoff; the lease
 * (`expireInSeconds`) hands the job to another worker when the one running it dies; findings
 * are upserted by fingerprint so a retried scan never duplicates anything.
 */
export const SCAN_QUEUE = 'scan-run';
export const ZScanJob = z.object({ scanId: z.uuid() });
export type TScanJob = z.infer<typeof ZScanJob>;

export const scanJobPolicy = (env: AppContext['config']['env']) => ({
  retryLimit: env.SCAN_JOB_RETRY_LIMIT,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: env.SCAN_JOB_EXPIRE_SECONDS,
});

/** Enqueues a scan job through `executeSql` (the caller's open transaction). */
export async function enqueueScanJob(
  env: AppContext['config']['env'],
  executeSql: repo.ExecuteSql,
  scanId: string,
): Promise<string> {
  const boss = new PgBoss({ db: { executeSql }, schema: 'pgboss' });
  const policy = scanJobPolicy(env);
  if (!(await boss.getQueue(SCAN_QUEUE))) await boss.createQueue(SCAN_QUEUE, { name: SCAN_QUEUE, ...policy });
  const id = await boss.send(SCAN_QUEUE, { scanId } satisfies TScanJob, { ...policy, singletonKey: scanId });
  if (!id) throw new Error(`scan ${scanId} could not be enqueued`);
  return id;
}

/** Starts WORKER_CONCURRENCY scan workers on this process. */
export async function registerScanWorkers(ctx: AppContext, boss: Boss): Promise<{ stop(): void }> {
  const policy = scanJobPolicy(ctx.config.env);
  if (!(await boss.getQueue(SCAN_QUEUE))) await boss.createQueue(SCAN_QUEUE, { name: SCAN_QUEUE, ...policy });
  for (let i = 0; i < ctx.config.env.WORKER_CONCURRENCY; i++) {
    await boss.work<TScanJob>(
      SCAN_QUEUE,
      { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true },
      async ([job]) => {
        if (!job) return;
        const { scanId } = ZScanJob.parse(job.data);
        const lastAttempt = job.retryCount >= job.retryLimit;
        try {
          await runScan(ctx, scanId);
        } catch (err) {
          ctx.logger.error({ err, scanId, attempt: job.retryCount }, 'scan job failed');
          if (lastAttempt)
            await repo.transition(
              ctx.db,
              { id: scanId, from: ['pending', 'running'] },
              {
                status: 'canceled',
                finishedAt: new Date(),
                message: `The scan failed: ${(err as Error).message}`,
              },
            );
          throw err;
        }
      },
    );
  }
  const silent = ctx.config.env.SCAN_HEARTBEAT_TIMEOUT_SECONDS;
  const reaper = setInterval(
    () =>
      void reapStaleScans(ctx, boss, silent).catch((err) =>
        ctx.logger.error({ err }, 'stale scan check failed'),
      ),
    Math.max(1000, (silent * 1000) / 3),
  );
  reaper.unref();
  ctx.logger.info({ concurrency: ctx.config.env.WORKER_CONCURRENCY }, 'scan workers ready');
  return { stop: () => clearInterval(reaper) };
}

/**
 * A worker that dies mid-scan leaves its job active until the lease runs out; the scan's
 * heartbeat shows it much sooner. Failing the job hands it to pg-boss's retry (with backoff).
 */
export async function reapStaleScans(ctx: AppContext, boss: Boss, silentSeconds: number): Promise<number> {
  const stale = await repo.claimStaleScans(ctx.db, silentSeconds);
  for (const s of stale) {
    ctx.logger.warn({ scanId: s.id, jobId: s.jobId }, 'scan worker went silent; retrying the scan');
    if (s.jobId) await boss.fail(SCAN_QUEUE, s.jobId, { reason: 'worker heartbeat lost' });
  }
  return stale.length;
}

/** Which of the scan's targets a finding belongs to. */
function targetOf(targets: TargetRow[], f: Finding): string {
  const host = findingHost(f).toLowerCase();
  for (const t of targets) {
    if (t.targetType === 'domain' && (host === t.value || host.endsWith(`.${t.value}`))) return t.id;
    if (t.targetType === 'peer' && host === t.value) return t.id;
    if (
      t.targetType === 'network' &&
      new ScopePolicy({ allowPrivate: true, allow: [t.value], deny: [] }).isAllowed(host)
    )
      return t.id;
  }
  const main = hostNames(host).mainDomain;
  return (targets.find((t) => t.mainDomain === main) ?? (targets[0] as TargetRow)).id;
}

function engineConfig(
  ctx: AppContext,
  subclasses: string[],
  classes: string[],
  plan: ReturnType<typeof limitsOf>,
): ScanConfig {
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
      templates: { rateLimit: 0, timeoutMs: 4000 },
      vulndb: { store: new PgVulnStore(db) },
      leaks: { sources: [new PgLeakSource(db, new LeakCipher(ctx.config.secrets.encryptionKey))] },
    }),
  };
}

const FLUSH_EVERY = 200;
const FLUSH_MS = 1000;
const POLL_MS = 1000;

/**
 * Runs one scan to its end: re-checks ownership, streams the engine's events into the
 * database in batches, writes progress as it goes and stops within seconds of a cancel.
 */
export async function runScan(ctx: AppContext, scanId: string): Promise<void> {
  const db = ctx.db;
  const row = await repo.transition(
    db,
    { id: scanId, from: ['pending', 'running'] },
    { status: 'running', heartbeatAt: new Date(), message: null },
  );
  if (!row) return; // cancelled (or finished) before a worker took it
  ctx.logger.info({ scanId, attempt: row.attempts + 1 }, 'scan started');
  await repo.transition(
    db,
    { id: scanId, from: ['running'] },
    {
      startedAt: row.startedAt ?? new Date(),
      attempts: row.attempts + 1,
    },
  );
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
      return;
    }
  }
  const plan = limitsOf(await getUserPlan(db, row.userId));
  // The database's clock: findings' last_seen is written with it.
  const runStartedAt = await repo.databaseNow(db);
  const config = engineConfig(ctx, row.subclasses, row.classes, plan);
  const stages = stageList(row.subclasses);
  const controller = new AbortController();
  let canceled = false;
  const poll = setInterval(() => {
    repo
      .heartbeat(db, scanId)
      .then((status) => {
        if (status !== 'running') {
          canceled = true;
          controller.abort();
        }
      })
      .catch(() => {});
  }, POLL_MS);

  const scope = new ScopeModel();
  const counts: Record<string, number> = { findings: 0 };
  let assets: { kind: string; key: string; data: Record<string, unknown> }[] = [];
  let found = { exploit_scanner: [], exploit_db: [], leakcheck: [] } as {
    exploit_scanner: repo.SeenFinding<TemplateFinding>[];
    exploit_db: repo.SeenFinding<CveFinding>[];
    leakcheck: repo.SeenFinding<LeakFinding>[];
  };
  let pending = 0;
  let lastFlush = Date.now();
  let progress: { stage: string; percent: number; etaSeconds: number | null } = {
    stage: stages[0] as string,
    percent: 0,
    etaSeconds: null,
  };
  const started = Date.now();
  // Subdomains found past the plan's limit: the engine keeps the first N and skips the rest.
  const overLimit: string[] = [];

  const flush = async () => {
    const batch = { assets, found, scopeRows: scope.takeDirty() };
    assets = [];
    found = { exploit_scanner: [], exploit_db: [], leakcheck: [] };
    pending = 0;
    lastFlush = Date.now();
    await db.transaction(async (tx) => {
      await repo.saveAssets(tx, scanId, batch.assets);
      await repo.saveScope(tx, scanId, batch.scopeRows);
      await repo.upsertFindings(tx, scanId, row.userId, batch.found);
    });
    await repo.writeProgress(db, scanId, { ...progress, counts: { ...counts } });
  };

  try {
    for await (const event of scan(
      targets.map((t) => ({ type: t.targetType as 'domain' | 'peer' | 'network', value: t.value })),
      config,
      { signal: controller.signal },
    )) {
      if (event.type === 'asset') {
        const a: Asset = event.asset;
        counts[a.kind] = (counts[a.kind] ?? 0) + 1;
        scope.add(a);
        assets.push({ kind: a.kind, key: assetKey(a), data: a as unknown as Record<string, unknown> });
        pending++;
      } else if (event.type === 'finding') {
        const f = event.finding;
        counts.findings = (counts.findings ?? 0) + 1;
        counts[f.subclass] = (counts[f.subclass] ?? 0) + 1;
        const targetId = targetOf(targets, f);
        if (f.subclass === 'exploit_scanner') found.exploit_scanner.push({ targetId, finding: f });
        else if (f.subclass === 'exploit_db') found.exploit_db.push({ targetId, finding: f });
        else found.leakcheck.push({ targetId, finding: f });
        pending++;
      } else if (event.type === 'progress') {
        const percent = percentOf(stages, event.stage, event.done, event.total);
        const elapsed = (Date.now() - started) / 1000;
        progress = {
          stage: event.stage,
          percent: Math.max(progress.percent, percent),
          etaSeconds:
            event.etaMs !== undefined
              ? Math.round(event.etaMs / 1000)
              : percent > 0
                ? Math.round((elapsed * (100 - percent)) / percent)
                : null,
        };
      } else if (
        event.type === 'log' &&
        event.stage &&
        stages.includes(event.stage) &&
        event.stage !== progress.stage
      ) {
        progress = {
          ...progress,
          stage: event.stage,
          percent: Math.max(progress.percent, percentOf(stages, event.stage, 0, 1)),
        };
      } else if (event.type === 'log' && event.code === 'subdomain_limit') {
        const name = event.data?.name;
        if (typeof name === 'string') overLimit.push(name);
      } else if (event.type === 'summary') {
        await flush();
        await repo.writeProgress(db, scanId, {
          skippedHosts: [
            ...event.summary.skippedHosts,
            ...overLimit.map((host) => ({
              host,
              reason: subdomainLimitReason(plan),
              code: 'plan_subdomain_limit' as const,
              params: { plan: plan.name, subdomains: plan.subdomains },
            })),
          ],
          summary: event.summary as unknown as Record<string, unknown>,
        });
      }
      if (pending >= FLUSH_EVERY || Date.now() - lastFlush >= FLUSH_MS) await flush();
    }
    await flush();
  } finally {
    clearInterval(poll);
  }
  if (canceled || controller.signal.aborted) {
    await repo.transition(db, { id: scanId, from: ['canceled'] }, { finishedAt: new Date() });
    return;
  }
  await db.transaction(async (tx) => {
    const done = await repo.transition(
      tx,
      { id: scanId, from: ['running'] },
      {
        status: 'done',
        finishedAt: new Date(),
        percent: 100,
        stage: null,
        etaSeconds: 0,
        ...(overLimit.length ? { message: subdomainLimitMessage(plan, overLimit.length) } : {}),
      },
    );
    if (done)
      await repo.markUnseenFixed(
        tx,
        scanId,
        targets.map((t) => t.id),
        row.subclasses,
        runStartedAt,
      );
  });
}
