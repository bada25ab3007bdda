import { createHash } from 'node:crypto';
import type { TemplateFinding } from '../../findings/types.ts';
import type { OobInteraction, OobProvider } from './oob-types.ts';

/** nuclei's cool-down: how long a template run's call-backs are waited for after its requests. */
export const DEFAULT_OOB_WAIT_MS = 5000;
export const MAX_OOB_WAIT_MS = 60_000;
const DEFAULT_POLL_INTERVAL_MS = 1000;
/** Ids per `poll` call (one call covers every pending run unless there are more). */
const POLL_BATCH = 2000;

/** What a template run leaves waiting for call-backs. */
export interface OobPending {
  /** Every id the run's requests carried. */
  readonly ids: readonly string[];
  /** Evaluates call-backs not seen before (for this run's ids); returns the findings they make. */
  evaluate(interactions: OobInteraction[], late: boolean): TemplateFinding[];
  /** Nothing is left to match (every waiting response has matched). */
  isSettled(): boolean;
}

export interface OobCorrelatorOptions {
  /** Wait after a run's requests (default 5 s, at most 60 s). */
  waitMs?: number;
  pollIntervalMs?: number;
  log?: (level: 'info' | 'warn', message: string) => void;
}

interface Watch {
  pending: OobPending;
  deadline: number;
  findings: TemplateFinding[];
  resolve: (findings: TemplateFinding[]) => void;
}

/**
 * Waits for out-of-band call-backs for every template run of a scan at once: one poll loop
 * asks the provider for all pending ids together, so a thousand runs waiting cost one query a
 * second, not a thousand timers. A run's wait ends when it has matched or its time is up;
 * `finish` polls once more for every id still unmatched and reports what arrived late.
 */
export class OobCorrelator {
  readonly waitMs: number;
  private readonly pollIntervalMs: number;
  private readonly active = new Set<Watch>();
  /** Runs whose wait ended unmatched: asked again by `finish`. */
  private readonly expired = new Set<Watch>();
  private readonly byId = new Map<string, Watch>();
  private readonly seen = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** Poll calls made (for tests and figures). */
  polls = 0;

  constructor(
    private readonly provider: OobProvider,
    private readonly options: OobCorrelatorOptions = {},
  ) {
    const wait = options.waitMs ?? DEFAULT_OOB_WAIT_MS;
    this.waitMs = Math.max(0, Math.min(Number.isFinite(wait) ? wait : DEFAULT_OOB_WAIT_MS, MAX_OOB_WAIT_MS));
    this.pollIntervalMs = Math.max(
      10,
      Math.min(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, this.waitMs || DEFAULT_POLL_INTERVAL_MS),
    );
  }

  get domain(): string {
    return this.provider.domain;
  }

  newId(): string {
    return this.provider.newId();
  }

  /** Runs waiting now. */
  get pending(): number {
    return this.active.size;
  }

  /** Waits (at most `waitMs`) for the run's call-backs; resolves with the findings they made. */
  watch(pending: OobPending): Promise<TemplateFinding[]> {
    if (pending.ids.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const w: Watch = { pending, deadline: Date.now() + this.waitMs, findings: [], resolve };
      this.active.add(w);
      for (const id of pending.ids) this.byId.set(id, w);
      this.schedule();
    });
  }

  /**
   * The end of the stage: one last poll of every id still unmatched; what matches now is
   * reported with `evidence.late`. Runs still waiting end here too.
   */
  async finish(): Promise<TemplateFinding[]> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    const watches = [...this.active, ...this.expired];
    const ids = watches.flatMap((w) => w.pending.ids);
    const late: TemplateFinding[] = [];
    if (ids.length > 0) {
      const got = await this.pollAll(ids);
      for (const [w, list] of this.group(got)) {
        const findings = w.pending.evaluate(list, true);
        if (this.active.has(w)) w.findings.push(...findings);
        else late.push(...findings);
      }
    }
    for (const w of this.active) w.resolve(w.findings);
    this.clear();
    return late;
  }

  /** Stops waiting (scan stopped): every run resolves with what it has; nothing is polled again. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.active) w.resolve(w.findings);
    this.clear();
  }

  private clear(): void {
    this.active.clear();
    this.expired.clear();
    this.byId.clear();
    this.seen.clear();
  }

  private schedule(): void {
    if (this.timer || this.ticking || this.active.size === 0) return;
    let next = Date.now() + this.pollIntervalMs;
    for (const w of this.active) if (w.deadline < next) next = w.deadline;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.ticking = this.tick().finally(() => {
          this.ticking = undefined;
          this.schedule();
        });
      },
      Math.max(0, next - Date.now()),
    );
  }

  private async tick(): Promise<void> {
    const ids = [...this.active].flatMap((w) => w.pending.ids);
    const got = await this.pollAll(ids);
    for (const [w, list] of this.group(got)) w.findings.push(...w.pending.evaluate(list, false));
    const now = Date.now();
    for (const w of this.active) {
      const settled = w.pending.isSettled();
      if (!settled && now < w.deadline) continue;
      this.active.delete(w);
      if (settled) for (const id of w.pending.ids) this.byId.delete(id);
      else this.expired.add(w);
      w.resolve(w.findings);
    }
  }

  private async pollAll(ids: string[]): Promise<OobInteraction[]> {
    const out: OobInteraction[] = [];
    for (let i = 0; i < ids.length; i += POLL_BATCH) {
      this.polls++;
      try {
        out.push(...(await this.provider.poll(ids.slice(i, i + POLL_BATCH))));
      } catch (err) {
        this.options.log?.('warn', `out-of-band poll failed: ${(err as Error).message}`);
      }
    }
    return out;
  }

  /** New interactions (never seen before) by the run whose id they carry. */
  private group(interactions: OobInteraction[]): Map<Watch, OobInteraction[]> {
    const out = new Map<Watch, OobInteraction[]>();
    for (const i of interactions) {
      const w = this.byId.get(i.id);
      if (!w) continue;
      const key = createHash('sha256')
        .update(`${i.id}\u0000${i.protocol}\u0000${i.at}\u0000${i.remoteAddress}\u0000${i.qType ?? ''}\u0000`)
        .update(i.rawRequest)
        .digest('base64');
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      const list = out.get(w);
      if (list) list.push(i);
      else out.set(w, [i]);
    }
    return out;
  }
}
