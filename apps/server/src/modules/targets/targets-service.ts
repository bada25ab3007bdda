import {
  SEVERITIES,
  type TAddTargetsBody,
  TARGET_TYPES,
  type TExtendedTarget,
  type TGetTargetsQuery,
  type TSeverityCounts,
  type TTarget,
  type TTargetRef,
  type TTargetType,
  type TVerificationResult,
  type TVerificationTxt,
} from '@perimeter/contracts';
import { randomToken } from '../../lib/crypto.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
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

export async function addTargets(
  ctx: AppContext,
  userId: string,
  body: TAddTargetsBody,
): Promise<{ added: TTarget[] }> {
  const allowPrivate = ctx.config.env.PERIMETER_ALLOW_PRIVATE_TARGETS;
  const normalised: NormalisedTarget[] = [];
  const errors: Record<string, string[]> = {};
  body.targets.forEach((item, i) => {
    const [value, type] = typeof item === 'string' ? [item, undefined] : [item.target, item.target_type];
    try {
      normalised.push(normaliseTarget(value, type, allowPrivate));
    } catch (err) {
      if (!(err instanceof TargetInputError)) throw err;
      errors[`targets.${i}`] = [err.message];
    }
  });
  if (Object.keys(errors).length > 0) {
    throw badRequest(Object.values(errors).flat().join(' '), errors);
  }
  const seen = new Set<string>();
  for (const t of normalised) {
    const key = `${t.targetType}:${t.value}`;
    if (seen.has(key)) throw conflict(`${t.value} is listed twice.`);
    seen.add(key);
  }
  return ctx.db.transaction(async (tx) => {
    const existing = await repo.findLiveByValues(tx, userId, normalised);
    const dup = existing.find((e) =>
      normalised.some((n) => n.targetType === e.targetType && n.value === e.value),
    );
    if (dup) throw conflict(`${dup.value} is already one of your targets.`);
    const plan = limitsOf(await repo.getUserPlan(tx, userId));
    const held = await repo.countLive(tx, userId);
    // Every domain target counts as a domain; one below its registrable domain (app.example.com)
    // also counts against the subdomain limit (docs/plans-limits.md).
    const domainTargets = normalised.filter((t) => t.targetType === 'domain');
    const newDomains = domainTargets.length;
    const newSubdomains = domainTargets.filter(
      (t) => t.mainDomain !== null && t.value !== t.mainDomain,
    ).length;
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
    const rows = await repo
      .insertTargets(
        tx,
        normalised.map((t) => ({ ...t, userId, verificationToken: randomToken(18) })),
      )
      .catch((err: { code?: string }) => {
        if (err.code === '23505') throw conflict('One of these targets was added meanwhile.');
        throw err;
      });
    return { added: rows.map(toTargetDto) };
  });
}

export async function getTargets(ctx: AppContext, userId: string, query: TGetTargetsQuery) {
  const types = query.targets_type?.length ? query.targets_type : [...TARGET_TYPES];
  const rows = await repo.listTargets(ctx.db, userId, types, query.disabled);
  return byType(rows.map(toTargetDto));
}

const zeroCounts = (): TSeverityCounts => ({
  critical: 0,
  high: 0,
  medium: 0,
  low: 0,
  informational: 0,
  unknown: 0,
});

async function extend(ctx: AppContext, userId: string, rows: repo.TargetRow[]): Promise<TExtendedTarget[]> {
  const ids = rows.map((r) => r.id);
  const [last, counts, schedules] = await Promise.all([
    repo.lastScans(ctx.db, userId, ids),
    repo.openFindingCounts(ctx.db, userId),
    repo.enabledSchedulesOf(ctx.db, userId, ids),
  ]);
  return rows.map((row) => {
    const c = zeroCounts();
    for (const x of counts)
      if (x.targetId === row.id && (SEVERITIES as readonly string[]).includes(x.severity))
        c[x.severity as keyof TSeverityCounts] += x.n;
    const scan = last.find((l) => l.targetId === row.id);
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

export async function getInfoById(
  ctx: AppContext,
  userId: string,
  ref: TTargetRef,
): Promise<TExtendedTarget> {
  const row = await ownTarget(ctx, userId, ref);
  const [info] = await extend(ctx, userId, [row]);
  return info as TExtendedTarget;
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
  if (row.disabled) return `${row.displayName} is disabled.`;
  if (!row.verified)
    return `${row.displayName} is not verified. Publish the verification record and check verification first.`;
  const proof = await checkOwnershipProof(ctx.config.env, row);
  if (proof.verified) {
    await repo.recordVerification(ctx.db, row.id, true, proof.detail);
    return null;
  }
  if (proof.inconclusive)
    throw new OwnershipCheckUnavailable(
      `Ownership of ${row.displayName} could not be checked right now: ${proof.detail}`,
    );
  await repo.recordVerification(ctx.db, row.id, false, proof.detail);
  return `Ownership of ${row.displayName} could no longer be confirmed, so it is now unverified and cannot be scanned. ${proof.detail} Publish the verification record again and check verification.`;
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
  return toTargetDto(updated ?? row);
}

export async function disableTarget(ctx: AppContext, userId: string, ref: TTargetRef): Promise<TTarget> {
  const row = await ownTarget(ctx, userId, ref);
  const updated = await repo.setDisabled(ctx.db, row.id);
  return toTargetDto(updated ?? row);
}
