import type { TTargetRef } from '@perimeter/contracts';
import { notFound } from '../../lib/errors.ts';
import type { ScanBridge } from './schedules-bridge.ts';
import { ownedTargetTypes } from './schedules-repo.ts';

/** The scans module seen from schedules. */
export const scanBridge: ScanBridge = {
  async assertTargetsOwned(ctx, userId, refs: TTargetRef[]) {
    const found = await ownedTargetTypes(ctx.db, userId, [...new Set(refs.map((r) => r.user_target_id))]);
    for (const ref of refs) {
      if (found.get(ref.user_target_id) !== ref.target_type) throw notFound('Target not found.');
    }
  },
  async createAndStartScan() {
    throw new Error('Scheduled scans are not wired to the scans module yet.');
  },
};
