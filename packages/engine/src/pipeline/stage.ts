import type { DnsResolver } from '../dns/dns-resolver.ts';
import type { FingerprintEngine } from '../fingerprint/fingerprint-engine.ts';
import type { HttpProber } from '../probe/http-probe.ts';
import type { ScopePolicy } from '../scope/scope-policy.ts';
import type { Target } from '../scope/targets.ts';
import type { ScanEvent } from './events.ts';
import type { Inventory } from './inventory.ts';
import type { ScanClass, ScanConfig, ScanSubclass } from './scan-config.ts';
import type { StageReport } from './stage-report.ts';

/** What every stage sees: the scan's shared services and what discovery found so far. */
export interface StageContext {
  readonly targets: readonly Target[];
  readonly config: ScanConfig;
  readonly policy: ScopePolicy;
  readonly resolver: DnsResolver;
  readonly http: HttpProber;
  readonly fingerprints: FingerprintEngine;
  readonly inventory: Inventory;
  /** Aborts on cancel, on the stage's time limit, and when the watchdog ends the stage. */
  readonly signal: AbortSignal;
  /** What this stage planned, ran and skipped (honest completion; see stage-report.ts). */
  readonly report: StageReport;
  /** True when the name is a target domain or below one, or the address is a target. */
  isInTarget(hostOrAddress: string): boolean;
}

/**
 * A pipeline stage. Discovery stages are built in; the finding families plug in through
 * `config.extraStages` with their class and subclass, so the pipeline imports none of them.
 */
export interface Stage {
  name: string;
  class: ScanClass;
  subclass?: ScanSubclass;
  /** Overrides config.stageTimeoutMs. */
  timeoutMs?: number;
  run(ctx: StageContext): AsyncIterable<ScanEvent>;
}
