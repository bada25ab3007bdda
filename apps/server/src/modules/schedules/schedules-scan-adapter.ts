import type { TTargetRef } from '@perimeter/contracts';
import { notFound } from '../../lib/errors.ts';
import { createScanInTx } from '../scans/scans-service.ts';
import { enqueueScheduledStart } from './schedules-jobs.ts';
import { ownedTargetTypes } from './schedules-repo.ts';
import type { ScanBridge } from './schedules-scan-port.ts';

/**
 * The scans module seen from schedules. Creating the scan is scans-service createScanInTx (the same
 * function create_abstract_scan uses) inside the scheduler's transaction; starting it — which re-checks ownership
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
    const scan = await createScanInTx(tx, request.userId, {
      targets: request.targets,
      scanType: request.scanType,
      config: request.config,
    });
    await enqueueScheduledStart(executeSql, { scanId: scan.id, userId: request.userId });
    return { scanId: scan.id };
  },
};
