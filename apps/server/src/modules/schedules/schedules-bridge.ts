import type { TScanConfig, TTargetRef } from '@perimeter/contracts';
import type { DbOrTx } from '../../db/client.ts';
import type { AppContext } from '../../server/context.ts';

/** What a schedule asks the scans module to do. */
export interface ScheduledScanRequest {
  userId: string;
  targets: TTargetRef[];
  scanType: 'full' | 'custom';
  config: TScanConfig;
}

/**
 * The scans module's side of scheduling, kept behind an interface so the scheduler can be tested
 * alone and the scans module can evolve. `tx` is the scheduler's transaction: creating the scan in it
 * makes "claim the run" and "create + enqueue the scan" one atomic step.
 */
export interface ScanBridge {
  /** Throws notFound() when a target is not the user's. */
  assertTargetsOwned(ctx: AppContext, userId: string, targets: TTargetRef[]): Promise<void>;
  createAndStartScan(ctx: AppContext, tx: DbOrTx, request: ScheduledScanRequest): Promise<{ scanId: string }>;
}
