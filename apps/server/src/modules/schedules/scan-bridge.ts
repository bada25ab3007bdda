import type { TTargetRef } from '@perimeter/contracts';
import { forbidden, notFound } from '../../lib/errors.ts';
import { resolveSubclasses } from '../scans/scans-fns.ts';
import { insertScan } from '../scans/scans-repo.ts';
import { limitsOf } from '../targets/targets-fns.ts';
import { getTargetsByIds, getUserPlan } from '../targets/targets-repo.ts';
import type { ScanBridge } from './schedules-bridge.ts';
import { enqueueScheduledStart } from './schedules-jobs.ts';
import { ownedTargetTypes } from './schedules-repo.ts';

/**
 * The scans module seen from schedules. Creating the scan mirrors scans-service createScan (same
 * checks, same row) but inside the scheduler's transaction; starting it — which re-checks ownership
 * over the network and counts the monthly plan limit — is scans-service startScan, run by the
 * `schedule-start` job enqueued in that same transaction.
 */
export const scanBridge: ScanBridge = {
  async assertTargetsOwned(ctx, userId, refs: TTargetRef[]) {
    const found = await ownedTargetTypes(ctx.db, userId, [...new Set(refs.map((r) => r.user_target_id))]);
    for (const ref of refs) {
      if (found.get(ref.user_target_id) !== ref.target_type) throw notFound('Target not found.');
    }
  },
  async createAndStartScan(_ctx, tx, executeSql, request) {
    const ids = [...new Set(request.targets.map((t) => t.user_target_id))];
    const rows = await getTargetsByIds(tx, request.userId, ids);
    for (const ref of request.targets) {
      const row = rows.find((r) => r.id === ref.user_target_id && r.targetType === ref.target_type);
      if (!row || row.disabled) throw notFound('A target of this schedule no longer exists or is disabled.');
    }
    const plan = limitsOf(await getUserPlan(tx, request.userId));
    if (request.scanType === 'custom' && !plan.customScanConfig)
      throw forbidden(
        `Plan limit: the ${plan.name} plan does not include custom scans (class and subclass choice).`,
      );
    const resolved = resolveSubclasses(request.scanType, request.config, plan.subclasses);
    if (resolved.refused.length)
      throw forbidden(`Plan limit: the ${plan.name} plan does not include ${resolved.refused.join(', ')}.`);
    const scan = await insertScan(
      tx,
      {
        userId: request.userId,
        status: 'created',
        targetType: rows[0]!.targetType,
        scanType: request.scanType,
        customScanConfig: request.scanType === 'custom',
        classes: resolved.classes,
        subclasses: resolved.subclasses,
      },
      ids,
    );
    await enqueueScheduledStart(executeSql, { scanId: scan.id, userId: request.userId });
    return { scanId: scan.id };
  },
};
