/**
 * Honest completion: what a stage planned, what it ran, and what it skipped and why. Any stage
 * can fill it (templates, DNS checks, ports, CVE matching, leaks); the pipeline adds how the
 * stage ended (time limit, watchdog, failure) and the summary says whether the scan is partial.
 *
 * Checks and scopes feed the finding lifecycle: a finding is fixed only when the check that
 * found it (a template id, a DNS check…) ran against its scope (a host) and came back with an
 * answer. A check that errored or timed out is not a "no".
 */

/** Work not done, grouped by reason, with a few examples. */
export interface StageSkip {
  reason: string;
  count: number;
  /** Up to five examples (`template-id on host`). */
  examples: string[];
}

const MAX_EXAMPLES = 5;
const MAX_REASONS = 50;

/** Which checks ran to an answer against which scopes, per stage (the scan's whole run). */
export class ScanCoverage {
  // stage → check → scope → decided (a false never turns back to true)
  private readonly stages = new Map<string, Map<string, Map<string, boolean>>>();
  private readonly scopes = new Map<string, Set<string>>();

  record(stage: string, check: string, scope: string, decided: boolean): void {
    const checks = this.stages.get(stage) ?? new Map<string, Map<string, boolean>>();
    this.stages.set(stage, checks);
    const scopes = checks.get(check) ?? new Map<string, boolean>();
    checks.set(check, scopes);
    const key = scope.toLowerCase();
    if (scopes.get(key) !== false) scopes.set(key, decided);
    const seen = this.scopes.get(stage) ?? new Set<string>();
    this.scopes.set(stage, seen);
    seen.add(key);
  }

  /** True when `check` ran against `scope` and every run of it came back with an answer. */
  isDecided(stage: string, check: string, scope: string): boolean {
    return this.stages.get(stage)?.get(check)?.get(scope.toLowerCase()) === true;
  }

  /** True when any check of the stage ran (or tried to run) against `scope`. */
  covers(stage: string, scope: string): boolean {
    return this.scopes.get(stage)?.has(scope.toLowerCase()) === true;
  }

  /** True when the stage recorded checks at all (it tracks coverage per check). */
  tracks(stage: string): boolean {
    return this.stages.has(stage);
  }
}

/** One stage's account of its work; the pipeline hands one to each stage in its context. */
export class StageReport {
  planned: number | undefined;
  ran = 0;
  private readonly skips = new Map<string, StageSkip>();

  constructor(
    private readonly stage: string,
    private readonly coverage: ScanCoverage,
  ) {}

  /** Adds units of work the stage means to do (template × input tasks, names, ports…). */
  plan(units: number): void {
    this.planned = (this.planned ?? 0) + units;
  }

  /** Units that ran to an answer (a match or a clean "no"). */
  done(units = 1): void {
    this.ran += units;
  }

  /** Units not done for a reason (an error, a time-out, an unresponsive host…). */
  skip(reason: string, units = 1, example?: string): void {
    let s = this.skips.get(reason);
    if (!s) {
      // A flood of distinct reasons is folded into one line.
      if (this.skips.size >= MAX_REASONS && reason !== 'other reasons') {
        this.skip('other reasons', units, example);
        return;
      }
      s = { reason, count: 0, examples: [] };
      this.skips.set(reason, s);
    }
    s.count += units;
    if (example && s.examples.length < MAX_EXAMPLES && !s.examples.includes(example))
      s.examples.push(example);
  }

  /**
   * One check against one scope: `decided` when it came back with an answer (found or clean),
   * false when it could not run or timed out. Undecided checks keep their findings' state.
   */
  checked(check: string, scope: string, decided: boolean): void {
    this.coverage.record(this.stage, check, scope, decided);
  }

  get skipped(): StageSkip[] {
    return [...this.skips.values()];
  }

  get skippedUnits(): number {
    let n = 0;
    for (const s of this.skips.values()) n += s.count;
    return n;
  }
}
