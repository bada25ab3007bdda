import {
  SEVERITIES,
  type TAddTargetsBody,
  TARGET_TYPES,
  type TExtendedTarget,
  type TGetTargetsQuery,
  type TReplaceTargetBody,
  type TReplaceTargetResponse,
  type TSeverityCounts,
  type TTarget,
  type TTargetEventKind,
  type TTargetInfo,
  type TTargetRef,
  type TTargetType,
  type TVerificationResult,
  type TVerificationTxt,
  zeroSeverityCounts,
} from '@perimeter/contracts';
import type { DbOrTx } from '../../db/client.ts';
import { randomToken } from '../../lib/crypto.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { scanMessage } from '../../lib/scan-messages.ts';
import type { AppContext } from '../../server/context.ts';
import { enforceLimit } from '../limits/limits-service.ts';
import {
  describePeriodicity,
  limitsOf,
  type NormalisedTarget,
  normaliseTarget,
  TargetInputError,
  targetScore,
  verificationFileUrls,
  verificationInstructions,
  verificationRecordNames,
  verificationValue,
} from './targets-fns.ts';
import * as repo from './targets-repo.ts';
import { checkOwnershipProof } from './targets-verify.ts';

export function toTargetDto(row: repo.TargetRow): TTarget {
  return {
    user_target_id: row.id,
    target_type: row.targetType as TTargetType,
    target: row.value,
    display_name: row.displayName,
    main_domain: row.mainDomain,
    ip_count: row.ipCount,
    disabled: row.disabled,
    verified: row.verified,
    verified_at: row.verifiedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

function byType<T extends { target_type: TTargetType }>(items: T[]): Record<TTargetType, T[]> {
  return {
    domain: items.filter((t) => t.target_type === 'domain'),
    peer: items.filter((t) => t.target_type === 'peer'),
    network: items.filter((t) => t.target_type === 'network'),
  };
}

function normaliseAll(ctx: AppContext, inputs: TAddTargetsBody['targets']): NormalisedTarget[] {
  const scope = scopeOptions(ctx);
  const normalised: NormalisedTarget[] = [];
  const errors: Record<string, string[]> = {};
  inputs.forEach((item, i) => {
    const [value, type] = typeof item === 'string' ? [item, undefined] : [item.target, item.target_type];
    try {
      normalised.push(normaliseTarget(value, type, scope.allowPrivate, scope.allow));
    } catch (err) {
      if (!(err instanceof TargetInputError)) throw err;
      errors[`targets.${i}`] = [err.message];
    }
  });
  if (Object.keys(errors).length > 0) {
    throw badRequest(Object.values(errors).flat().join(' '), errors);
  }
  return normalised;
}

/** The operator's scope settings, the same the scans use. */
function scopeOptions(ctx: AppContext): { allowPrivate: boolean; allow?: string[] } {
  const allow = ctx.config.env.PERIMETER_SCAN_ALLOW?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  return {
    allowPrivate: ctx.config.env.PERIMETER_ALLOW_PRIVATE_TARGETS,
    ...(allow?.length ? { allow } : {}),
  };
}

/** 409 when a live target of the user already has one of these values. */
async function assertNotHeld(tx: DbOrTx, userId: string, normalised: NormalisedTarget[]): Promise<void> {
  const existing = await repo.findLiveByValues(tx, userId, normalised);
  const dup = existing.find((e) =>
    normalised.some((n) => n.targetType === e.targetType && n.value === e.value),
  );
  if (dup) throw conflict(`${dup.value} is already one of your targets.`);
}

/** 403 when the user's live targets plus these would go beyond the plan (docs/plans-limits.md). */
async function assertPlanAllows(tx: DbOrTx, userId: string, normalised: NormalisedTarget[]): Promise<void> {
  const plan = limitsOf(await repo.getUserPlan(tx, userId));
  const held = await repo.countLive(tx, userId);
  // Every domain target counts as a domain; one below its registrable domain (app.example.com)
  // also counts against the subdomain limit.
  const domainTargets = normalised.filter((t) => t.targetType === 'domain');
  const newDomains = domainTargets.length;
  const newSubdomains = domainTargets.filter((t) => t.mainDomain !== null && t.value !== t.mainDomain).length;
  const newIps = normalised.reduce((n, t) => n + t.ipCount, 0);
  if (plan.domains !== null && held.domains + newDomains > plan.domains)
    throw forbidden(
      `Plan limit reached: the ${plan.name} plan allows ${plan.domains} domain${plan.domains === 1 ? '' : 's'} (you have ${held.domains}).`,
    );
  if (held.subdomains + newSubdomains > plan.subdomains)
    throw forbidden(
      `Plan limit reached: the ${plan.name} plan allows ${plan.subdomains} subdomains (you have ${held.subdomains} as targets, adding ${newSubdomains}).`,
    );
  if (held.ips + newIps > plan.externalIps)
    throw forbidden(
      `Plan limit reached: the ${plan.name} plan allows ${plan.externalIps} external IP addresses (you have ${held.ips}, adding ${newIps}).`,
    );
}

async function insertNew(tx: DbOrTx, userId: string, normalised: NormalisedTarget[]) {
  return repo
    .insertTargets(
      tx,
      normalised.map((t) => ({ ...t, userId, verificationToken: randomToken(18) })),
    )
    .catch((err: { code?: string }) => {
      if (err.code === '23505') throw conflict('One of these targets was added meanwhile.');
      throw err;
    });
}

function event(row: repo.TargetRow, kind: TTargetEventKind, detail: string | null = null) {
  return { targetId: row.id, userId: row.userId, kind, detail, createdAt: new Date() };
}

export async function addTargets(
  ctx: AppContext,
  userId: string,
  body: TAddTargetsBody,
): Promise<{ added: TTarget[] }> {
  const normalised = normaliseAll(ctx, body.targets);
  const seen = new Set<string>();
  for (const t of normalised) {
    const key = `${t.targetType}:${t.value}`;
    if (seen.has(key)) throw conflict(`${t.value} is listed twice.`);
    seen.add(key);
  }
  return ctx.db.transaction(async (tx) => {
    await assertNotHeld(tx, userId, normalised);
    await assertPlanAllows(tx, userId, normalised);
    const rows = await insertNew(tx, userId, normalised);
    await repo.insertTargetEvents(
      tx,
      rows.map((r) => event(r, 'added')),
    );
    return { added: rows.map(toTargetDto) };
  });
}

/**
 * Replaces a target by another of the same type in one step (a mistyped domain on a one-domain
 * plan): the old one is disabled (it keeps its scans), the new one added unverified.
 */
export async function replaceTarget(
  ctx: AppContext,
  userId: string,
  body: TReplaceTargetBody,
): Promise<TReplaceTargetResponse> {
  const old = await ownTarget(ctx, userId, body);
  const [next] = normaliseAll(ctx, [{ target_type: body.target_type, target: body.target }]);
  if (!next) throw badRequest('The target is empty.');
  if (next.value === old.value) throw conflict(`${old.value} is this target already.`);
  return ctx.db.transaction(async (tx) => {
    const disabled = old.disabled ? old : await repo.setDisabled(tx, old.id, true);
    await assertNotHeld(tx, userId, [next]);
    await assertPlanAllows(tx, userId, [next]);
    const [added] = await insertNew(tx, userId, [next]);
    if (!disabled || !added) throw notFound('Target not found.');
    await repo.insertTargetEvents(tx, [
      event(old, 'replaced', added.displayName),
      event(added, 'added', old.displayName),
    ]);
    return { replaced: toTargetDto(disabled), added: toTargetDto(added) };
  });
}

/** Enables a disabled target again when no live target holds its value and the plan has room. */
export async function enableTarget(ctx: AppContext, userId: string, ref: TTargetRef): Promise<TTarget> {
  const row = await ownTarget(ctx, userId, ref);
  if (!row.disabled) return toTargetDto(row);
  const held: NormalisedTarget = {
    targetType: row.targetType as TTargetType,
    value: row.value,
    displayName: row.displayName,
    mainDomain: row.mainDomain,
    ipCount: row.ipCount,
  };
  return ctx.db.transaction(async (tx) => {
    await assertNotHeld(tx, userId, [held]);
    await assertPlanAllows(tx, userId, [held]);
    const updated = await repo.setDisabled(tx, row.id, false).catch((err: { code?: string }) => {
      if (err.code === '23505') throw conflict(`${row.value} is already one of your targets.`);
      throw err;
    });
    await repo.insertTargetEvents(tx, [event(row, 'enabled')]);
    return toTargetDto(updated ?? row);
  });
}

export async function getTargets(ctx: AppContext, userId: string, query: TGetTargetsQuery) {
  const types = query.targets_type?.length ? query.targets_type : [...TARGET_TYPES];
  const rows = await repo.listTargets(ctx.db, userId, types, query.disabled);
  return byType(rows.map(toTargetDto));
}

async function extend(ctx: AppContext, userId: string, rows: repo.TargetRow[]): Promise<TExtendedTarget[]> {
  const ids = rows.map((r) => r.id);
  const [last, counts, schedules, scopes] = await Promise.all([
    repo.lastScans(ctx.db, userId, ids),
    repo.openFindingCounts(ctx.db, userId),
    repo.enabledSchedulesOf(ctx.db, userId, ids),
    repo.latestScopeSummaries(ctx.db, userId, ids),
  ]);
  return rows.map((row) => {
    const c = zeroSeverityCounts();
    for (const x of counts)
      if (x.targetId === row.id && (SEVERITIES as readonly string[]).includes(x.severity))
        c[x.severity as keyof TSeverityCounts] += x.n;
    const scan = last.find((l) => l.targetId === row.id);
    const scope = scopes.find((x) => x.targetId === row.id);
    return {
      ...toTargetDto(row),
      last_scan: scan
        ? {
            id: scan.scanId,
            status: scan.status,
            created_at: scan.createdAt.toISOString(),
            finished_at: scan.finishedAt?.toISOString() ?? null,
          }
        : null,
      periodicity: describePeriodicity(schedules.filter((x) => x.targetIds.includes(row.id))),
      score: targetScore(c),
      status: row.disabled ? 'disabled' : row.verified ? 'verified' : 'unverified',
      counts: c,
      assets: scope
        ? {
            scan_id: scope.scanId,
            hosts: scope.hosts,
            subdomains: scope.subdomains,
            ip_addresses: scope.ips,
            opened_ports: scope.ports,
            technologies: scope.technologies,
          }
        : null,
    };
  });
}

export async function getExtendedTargets(ctx: AppContext, userId: string, query: TGetTargetsQuery) {
  const types = query.targets_type?.length ? query.targets_type : [...TARGET_TYPES];
  const rows = await repo.listTargets(ctx.db, userId, types, query.disabled);
  return byType(await extend(ctx, userId, rows));
}

async function ownTarget(ctx: AppContext, userId: string, ref: TTargetRef): Promise<repo.TargetRow> {
  const row = await repo.getTarget(ctx.db, userId, ref.user_target_id, ref.target_type);
  if (!row) throw notFound('Target not found.');
  return row;
}

export async function getInfoById(ctx: AppContext, userId: string, ref: TTargetRef): Promise<TTargetInfo> {
  const row = await ownTarget(ctx, userId, ref);
  const [[info], history] = await Promise.all([
    extend(ctx, userId, [row]),
    repo.listTargetEvents(ctx.db, userId, row.id),
  ]);
  return {
    ...(info as TExtendedTarget),
    last_check_at: row.lastCheckAt?.toISOString() ?? null,
    last_check_detail: row.lastCheckDetail,
    history: history.map((h) => ({
      kind: h.kind as TTargetEventKind,
      detail: h.detail,
      created_at: h.createdAt.toISOString(),
    })),
  };
}

export async function getVerificationTxt(
  ctx: AppContext,
  userId: string,
  ref: TTargetRef,
): Promise<TVerificationTxt> {
  const row = await ownTarget(ctx, userId, ref);
  const type = row.targetType as TTargetType;
  return {
    user_target_id: row.id,
    target_type: type,
    token: row.verificationToken,
    value: verificationValue(row.verificationToken),
    record_names: verificationRecordNames(type, row.value),
    file_urls: type === 'peer' ? verificationFileUrls(row.value) : [],
    instructions: verificationInstructions(type, row.value, row.verificationToken),
  };
}

const HOUR = 3_600_000;

export async function checkVerification(
  ctx: AppContext,
  userId: string,
  ref: TTargetRef,
): Promise<TVerificationResult> {
  const row = await ownTarget(ctx, userId, ref);
  if (row.disabled) throw conflict('This target is disabled.');
  // Each check contacts the address the user named: limited per user and per checked value, so
  // it cannot serve as a free port probe of any public address.
  const env = ctx.config.env;
  await enforceLimit(
    ctx,
    `verify:user:${userId}`,
    env.VERIFY_CHECKS_PER_USER_PER_HOUR,
    HOUR,
    'ownership checks',
  );
  await enforceLimit(
    ctx,
    `verify:target:${row.targetType}:${row.value}`,
    env.VERIFY_CHECKS_PER_TARGET_PER_HOUR,
    HOUR,
    'ownership checks of this target',
  );
  // The network check happens outside any transaction.
  const proof = await checkOwnershipProof(ctx.config.env, row);
  const updated = await repo.recordVerification(ctx.db, row.id, proof.verified, proof.detail);
  await repo.insertTargetEvents(ctx.db, [
    event(row, proof.verified ? 'verified' : 'verification_failed', proof.detail),
  ]);
  return {
    user_target_id: row.id,
    verified: proof.verified,
    detail: proof.detail,
    checked_at: (updated?.lastCheckAt ?? new Date()).toISOString(),
  };
}

export class OwnershipCheckUnavailable extends Error {}

/**
 * Re-checks the proof of a target before a scan; a proof that disappeared makes the target
 * unverified. Returns the problem, or null when the proof holds. Throws
 * OwnershipCheckUnavailable when nothing answered (the check is retried, the target kept).
 */
export async function recheckOwnership(ctx: AppContext, row: repo.TargetRow): Promise<string | null> {
  const target = row.displayName;
  if (row.disabled) return scanMessage('target_disabled', { target });
  if (!row.verified) return scanMessage('target_unverified', { target });
  const proof = await checkOwnershipProof(ctx.config.env, row);
  if (proof.verified) {
    await repo.recordVerification(ctx.db, row.id, true, proof.detail);
    return null;
  }
  if (proof.inconclusive)
    throw new OwnershipCheckUnavailable(
      scanMessage('ownership_unavailable', { target, detail: proof.detail }),
    );
  await repo.recordVerification(ctx.db, row.id, false, proof.detail);
  await repo.insertTargetEvents(ctx.db, [event(row, 'verification_failed', proof.detail)]);
  return scanMessage('ownership_lost', { target, detail: proof.detail });
}

export async function disableVerification(
  ctx: AppContext,
  userId: string,
  ref: TTargetRef,
): Promise<TTarget> {
  const row = await ownTarget(ctx, userId, ref);
  const updated = await repo.recordVerification(
    ctx.db,
    row.id,
    false,
    'Verification turned off by the user.',
  );
  await repo.insertTargetEvents(ctx.db, [event(row, 'verification_disabled')]);
  return toTargetDto(updated ?? row);
}

export async function disableTarget(ctx: AppContext, userId: string, ref: TTargetRef): Promise<TTarget> {
  const row = await ownTarget(ctx, userId, ref);
  if (row.disabled) return toTargetDto(row);
  const updated = await repo.setDisabled(ctx.db, row.id, true);
  await repo.insertTargetEvents(ctx.db, [event(row, 'disabled')]);
  return toTargetDto(updated ?? row);
}
