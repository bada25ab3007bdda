import type { ScanEvent } from './events.ts';

/** Emits a progress event at most every `intervalMs` (and always at the end). */
export class ProgressTracker {
  private readonly started = Date.now();
  private last = 0;
  constructor(
    private readonly stage: string,
    public total: number,
    private readonly intervalMs = 250,
  ) {}

  tick(done: number): ScanEvent | null {
    const now = Date.now();
    if (done < this.total && now - this.last < this.intervalMs) return null;
    this.last = now;
    const elapsed = now - this.started;
    const event: ScanEvent = { type: 'progress', stage: this.stage, done, total: this.total };
    if (done > 0 && done < this.total) event.etaMs = Math.round((elapsed / done) * (this.total - done));
    return event;
  }
}

export function log(
  level: 'debug' | 'info' | 'warn' | 'error',
  stage: string,
  message: string,
  code?: string,
  data?: Record<string, string | number | boolean>,
): ScanEvent {
  const e: ScanEvent = { type: 'log', level, stage, message };
  if (code) e.code = code;
  if (data) e.data = data;
  return e;
}
