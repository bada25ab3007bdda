import {
  SEVERITIES,
  type TCreateScanBody,
  type TScan,
  type TScanConfig,
  type TScanProgress,
  type TScanStatus,
  type TScansStatsQuery,
  type TScopeBody,
  type TScopeItem,
  type TSeverityCounts,
  type TTargetRef,
  type TTargetType,
  zeroSeverityCounts,
} from '@perimeter/contracts';
import type { DbOrTx } from '../../db/client.ts';
import { withClientTransaction } from '../../db/transaction.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { scanMessage, scanMessageOf } from '../../lib/scan-messages.ts';
import type { AppContext } from '../../server/context.ts';
import { claimOneTimePayment } from '../billing/billing-repo.ts';
import { limitsOf } from '../targets/targets-fns.ts';
import { getTargetsByIds, getUserPlan } from '../targets/targets-repo.ts';
import { OwnershipCheckUnavailable, recheckOwnership } from '../targets/targets-service.ts';
import { resolveSubclasses } from './scans-fns.ts';
import { enqueueScanJob } from './scans-jobs.ts';
import * as repo from './scans-repo.ts';

async function toScans(ctx: AppContext, rows: repo.ScanRow[]): Promise<TScan[]> {
  const ids = rows.map((r) => r.id);
  const [targets, counts] = await Promise.all([
    repo.scanTargetRows(ctx.db, ids),
    repo.severityCounts(ctx.db, ids),
  ]);
  return rows.map((r) => {
    const c = zeroSeverityCounts();
    for (const x of counts)
      if (x.scanId === r.id && (SEVERITIES as readonly string[]).includes(x.severity))
        c[x.severity as keyof TSeverityCounts] += x.n;
    return {
      id: r.id,
      status: r.status as TScanStatus,
      target_type: r.targetType as TTargetType,
      targets: targets
        .filter((t) => t.scanId === r.id)
        .map((t) => ({
          user_target_id: t.target.id,
          target: t.target.value,
          target_type: t.target.targetType as TTargetType,
        })),
      scan_type: r.scanType as 'full' | 'custom',
      custom_scan_config: r.customScanConfig,
      config: {
        classes: r.classes as TScan['config']['classes'],
        subclasses: r.subclasses as TScan['config']['subclasses'],
        ...(r.templateSelection ? { templates: r.templateSelection } : {}),
      },
      created_at: r.createdAt.toISOString(),
      started_at: r.startedAt?.toISOString() ?? null,
      finished_at: r.finishedAt?.toISOString() ?? null,
      stage: r.stage,
      percent: r.percent,
      message: r.message,
      ...scanMessageOf(r.message),
      partial: r.partial ?? null,
      template_sets: r.templateSets,
      severity_counts: c,
    };
  });
}

async function ownScan(ctx: AppContext, userId: string, id: string): Promise<repo.ScanRow> {
  const row = await repo.getScan(ctx.db, userId, id);
  if (!row) throw notFound('Scan not found.');
  return row;
}

/** What a new scan asks for, from the API (create_abstract_scan) or from a schedule. */
export interface NewScanRequest {
  targets: TTargetRef[];
  scanType: 'full' | 'custom';
  config: TScanConfig | undefined;
}

/**
 * Creates a scan (status created) inside the caller's transaction after every check a new scan
 * needs: targets owned, live and of one type, the plan's custom-scan and subclass limits. The ONE
 * place scans are created: the create_abstract_scan endpoint and the scheduler (in its own
 * transaction, through schedules/schedules-scan-adapter.ts) both call it. No network calls here: ownership
 * proofs are re-checked by startScan.
 */
export async function createScanInTx(
  tx: DbOrTx,
  userId: string,
  request: NewScanRequest,
): Promise<repo.ScanRow> {
  const ids = [...new Set(request.targets.map((t) => t.user_target_id))];
  if (ids.length === 0) throw badRequest('A scan needs at least one target.');
  const rows = await getTargetsByIds(tx, userId, ids);
  for (const ref of request.targets) {
    const row = rows.find((r) => r.id === ref.user_target_id && r.targetType === ref.target_type);
    if (!row) throw notFound('Target not found.');
    if (row.disabled) throw conflict(`${row.displayName} is disabled.`);
  }
  const types = new Set(rows.map((r) => r.targetType));
  if (types.size > 1) throw badRequest('A scan covers targets of one type; create one scan per type.');
  const plan = limitsOf(await getUserPlan(tx, userId));
  if (request.scanType === 'custom') {
    if (!plan.customScanConfig)
      throw forbidden(
        `Plan limit: the ${plan.name} plan does not include custom scans (class and subclass choice).`,
      );
    if (!request.config || request.config.classes.length + request.config.subclasses.length === 0)
      throw badRequest('A custom scan needs custom_scan_config with at least one class or subclass.', {
        custom_scan_config: ['Choose at least one class or subclass.'],
      });
  }
  const resolved = resolveSubclasses(request.scanType, request.config, plan.subclasses);
  if (resolved.refused.length)
    throw forbidden(`Plan limit: the ${plan.name} plan does not include ${resolved.refused.join(', ')}.`);
  const scan = await repo.insertScan(
    tx,
    {
      userId,
      status: 'created',
      targetType: rows[0]?.targetType as string,
      scanType: request.scanType,
      customScanConfig: request.scanType === 'custom',
      classes: resolved.classes,
      subclasses: resolved.subclasses,
      templateSelection: request.scanType === 'custom' ? (request.config?.templates ?? null) : null,
    },
    ids,
  );
  // try_it: the scan uses one paid one-time payment, exactly once (rolled back with the scan).
  if (plan.oneTimeScan && !(await claimOneTimePayment(tx, userId, scan.id)))
    throw forbidden(oneTimeScanUsed(plan.name));
  return scan;
}

const oneTimeScanUsed = (planName: string) =>
  `Plan limit reached: the ${planName} plan is a one-time scan — one scan per one-time payment, and no unused payment is left. Pay for another one-time scan or choose a subscription plan.`;

export async function createScan(ctx: AppContext, userId: string, body: TCreateScanBody): Promise<TScan> {
  const scan = await ctx.db.transaction((tx) =>
    createScanInTx(tx, userId, {
      targets: body.targets,
      scanType: body.scan_type,
      config: body.custom_scan_config,
    }),
  );
  const [dto] = await toScans(ctx, [scan]);
  return dto as TScan;
}

/** created → pending: ownership re-checked, plan checked, job enqueued in the same transaction. */
export async function startScan(ctx: AppContext, userId: string, id: string): Promise<TScan> {
  const scan = await ownScan(ctx, userId, id);
  if (scan.status !== 'created')
    throw conflict(`Only a created scan can be started; this one is ${scan.status}.`);
  const targets = (await repo.scanTargetRows(ctx.db, [id])).map((r) => r.target);
  // Network checks first, outside the transaction.
  for (const t of targets) {
    const problem = await recheckOwnership(ctx, t).catch((err: unknown) => {
      if (err instanceof OwnershipCheckUnavailable) throw conflict(`${err.message} Try again in a minute.`);
      throw err;
    });
    if (problem) throw forbidden(problem);
  }
  const plan = limitsOf(await getUserPlan(ctx.db, userId));
  const started = await withClientTransaction(ctx.database, async (db, executeSql) => {
    // A scan created before the user moved to try_it uses a payment now (a no-op when bound already).
    if (plan.oneTimeScan && !(await claimOneTimePayment(db, userId, id)))
      throw forbidden(oneTimeScanUsed(plan.name));
    if (plan.scansPerMonth !== null) {
      const used = await repo.countStartedThisMonth(db, userId);
      if (used >= plan.scansPerMonth)
        throw forbidden(
          `Plan limit reached: the ${plan.name} plan allows ${plan.scansPerMonth} scan${plan.scansPerMonth === 1 ? '' : 's'} per month (${used} started this month).`,
        );
    }
    const row = await repo.transition(
      db,
      { id, userId, from: ['created'] },
      { status: 'pending', queuedAt: new Date() },
    );
    if (!row) throw conflict('The scan was started meanwhile.');
    const jobId = await enqueueScanJob(ctx.config.env, executeSql, id);
    return repo.transition(db, { id, from: ['pending'] }, { jobId });
  });
  const [dto] = await toScans(ctx, [started ?? scan]);
  return dto as TScan;
}

/** pending/running → canceled; the worker notices within a second and stops, keeping what it found. */
export async function cancelScan(ctx: AppContext, userId: string, id: string): Promise<TScan> {
  const scan = await ownScan(ctx, userId, id);
  const row = await repo.transition(
    ctx.db,
    { id, userId, from: ['pending', 'running'] },
    { status: 'canceled', finishedAt: new Date(), message: scanMessage('canceled_by_user') },
  );
  if (!row) throw conflict(`Only a pending or running scan can be cancelled; this one is ${scan.status}.`);
  const [dto] = await toScans(ctx, [row]);
  return dto as TScan;
}

export async function getScansStats(ctx: AppContext, userId: string, q: TScansStatsQuery) {
  const { rows, total } = await repo.listScans(ctx.db, userId, q);
  return { items: await toScans(ctx, rows), total };
}

export async function getScanDto(ctx: AppContext, userId: string, id: string): Promise<TScan> {
  const [dto] = await toScans(ctx, [await ownScan(ctx, userId, id)]);
  return dto as TScan;
}

function toProgress(r: repo.ScanRow): TScanProgress {
  return {
    id: r.id,
    status: r.status as TScanStatus,
    stage: r.stage,
    percent: r.percent,
    counts: r.counts,
    eta_seconds: r.etaSeconds,
    skipped_hosts: r.skippedHosts,
    started_at: r.startedAt?.toISOString() ?? null,
    finished_at: r.finishedAt?.toISOString() ?? null,
    updated_at: r.updatedAt.toISOString(),
    message: r.message,
    ...scanMessageOf(r.message),
    partial: r.partial ?? null,
  };
}

export async function getProgress(ctx: AppContext, userId: string, id: string): Promise<TScanProgress> {
  return toProgress(await ownScan(ctx, userId, id));
}

export async function getLastProgress(
  ctx: AppContext,
  userId: string,
  q: { user_target_id?: string | undefined; targets_type?: TTargetType | undefined },
): Promise<TScanProgress | null> {
  const row = await repo.latestScan(ctx.db, userId, {
    ...(q.user_target_id ? { targetId: q.user_target_id } : {}),
    ...(q.targets_type ? { targetType: q.targets_type } : {}),
  });
  return row ? toProgress(row) : null;
}

const RISK = ['unknown', 'informational', 'low', 'medium', 'high', 'critical'] as const;

export async function getScope(
  ctx: AppContext,
  userId: string,
  body: TScopeBody,
  page: { limit: number; offset: number },
): Promise<{ items: TScopeItem[]; total: number; summary: Record<string, number> }> {
  const scan = await ownScan(ctx, userId, body.id);
  if (body.targets_type && body.targets_type !== scan.targetType) throw notFound('Scan not found.');
  const { rows, total } = await repo.listScope(ctx.db, scan.id, {
    ...(body.name_filter_opt
      ? {
          nameFilter: { value: body.name_filter_opt.name_filter, contains: body.name_filter_opt.is_contains },
        }
      : {}),
    order: body.sort_order as 'asc' | 'desc',
    sortKey: body.sort_key ?? 'relevance',
    ...page,
  });
  const [risk, summary] = await Promise.all([
    repo.hostRisk(
      ctx.db,
      scan.id,
      rows.map((r) => r.name),
    ),
    repo.scopeSummary(ctx.db, scan.id),
  ]);
  return {
    items: rows.map((r) => {
      const x = risk.find((k) => k.host === r.name);
      return {
        name: r.name,
        kind: r.kind as 'subdomain' | 'ip',
        main_domain: r.mainDomain,
        ip_addresses: r.ipAddresses,
        opened_ports: r.openedPorts,
        services: r.services,
        technologies: r.technologies,
        emails: r.emails,
        cnames: r.cnames,
        urls: r.urls,
        risk: x ? (RISK[x.ord] ?? null) : null,
        findings: x?.n ?? 0,
      };
    }),
    total,
    summary,
  };
}
