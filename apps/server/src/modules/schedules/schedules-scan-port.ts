import type { TScanConfig, TTargetRef } from '@perimeter/contracts';
import type { DbOrTx } from '../../db/client.ts';
import type { ExecuteSql } from '../../lib/queue.ts';
import type { AppContext } from '../../server/context.ts';

/** What a schedule asks the scans module to do. */
export interface ScheduledScanRequest {
  userId: string;
  targets: TTargetRef[];
  scanType: 'full' | 'custom';
  config: TScanConfig;
}

/**
 * The scans module's side of scheduling, behind an interface so the scheduler can be tested alone.
 * `createAndStartScan` runs inside the scheduler's transaction (`tx` + `executeSql` share it): the
 * claimed run, the created scan and the job that starts it commit together or not at all. It must not
 * make network calls; ownership is re-checked by the job, outside the transaction.
 */
export interface ScanBridge {
  /** Throws notFound() when a target is not the user's. */
  assertTargetsOwned(ctx: AppContext, userId: string, targets: TTargetRef[]): Promise<void>;
  createAndStartScan(
    ctx: AppContext,
    tx: DbOrTx,
    executeSql: ExecuteSql,
    request: ScheduledScanRequest,
  ): Promise<{ scanId: string }>;
}
