import type { OobProtocol } from '@perimeter/engine';
import type { Db } from '../../db/client.ts';
import type { Logger } from '../../lib/logger.ts';
import { CORRELATION_LENGTH, ID_LENGTH, truncate } from './oob-fns.ts';
import { insertInteractions, liveCorrelation, liveCorrelations, type NewInteraction } from './oob-repo.ts';

export interface Callback {
  /** Candidate ids, best first: the first whose correlation is registered is recorded. */
  ids: string[];
  protocol: OobProtocol;
  remoteAddress: string;
  rawRequest: string;
  rawResponse: string;
  qType?: string;
}

export interface RecorderOptions {
  db: Db;
  logger: Logger;
  maxPerCorrelation: number;
  ratePerAddress: number;
  /** Database look-ups of unknown correlations per second (strangers' names cost at most this). */
  lookupsPerSecond?: number;
  /** Every live correlation is re-read this often (ms), so scans' ids never wait on the look-up budget. */
  refreshMs?: number;
  /** Buffered rows are written after this many ms, or at `batchSize` rows. */
  flushMs?: number;
  batchSize?: number;
}

/** Why call-backs were not stored, counted since start (logged once a minute when any). */
export interface RecorderCounts {
  stored: number;
  unregistered: number;
  rateLimited: number;
  overQuota: number;
  lookupBudget: number;
  writeFailed: number;
}

interface Known {
  /** false: looked up and not registered (or expired); true until `until`. */
  live: boolean;
  until: number;
  stored: number;
}

const NEGATIVE_MS = 10_000;
const POSITIVE_MS = 60_000;
const MAX_KNOWN = 50_000;

/**
 * Decides which call-backs are stored and writes them in small batches. A call-back is stored only
 * when one of its ids starts with a registered, unexpired correlation id; correlations are looked
 * up once and cached (unknown ones for 10 s, within a per-second look-up budget; concurrent
 * look-ups of one id are shared), and every live correlation is re-read every few seconds, so a
 * flood of made-up names costs neither rows nor many queries and never crowds out a scan's own
 * call-backs. Per source address and per correlation the rest is bounded too.
 */
export class Recorder {
  readonly counts: RecorderCounts = {
    stored: 0,
    unregistered: 0,
    rateLimited: 0,
    overQuota: 0,
    lookupBudget: 0,
    writeFailed: 0,
  };
  private readonly known = new Map<string, Known>();
  private readonly looking = new Map<string, Promise<Known | undefined>>();
  private readonly refresher: NodeJS.Timeout;
  private readonly perAddress = new Map<string, number>();
  private second = 0;
  private lookups = 0;
  private buffer: NewInteraction[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly report: NodeJS.Timeout;
  private reported = '';

  constructor(private readonly o: RecorderOptions) {
    this.report = setInterval(() => this.logCounts(), 60_000);
    this.report.unref();
    this.refresher = setInterval(() => void this.refresh(), o.refreshMs ?? 5000);
    this.refresher.unref();
    void this.refresh();
  }

  /** Re-reads every live correlation into the cache (keeping the higher stored count). */
  async refresh(): Promise<void> {
    try {
      const now = Date.now();
      for (const row of await liveCorrelations(this.o.db)) {
        const k = this.known.get(row.id);
        this.known.set(row.id, {
          live: true,
          until: Math.min(row.expiresAt.getTime(), now + POSITIVE_MS),
          stored: Math.max(row.stored, k?.live ? k.stored : 0),
        });
      }
    } catch (err) {
      this.o.logger.warn({ err: (err as Error).message }, 'oob: correlation refresh failed');
    }
  }

  /** Records the call-back if it carries a live id; resolves to the full id stored, or null. */
  async record(c: Callback): Promise<string | null> {
    this.tick();
    const seen = (this.perAddress.get(c.remoteAddress) ?? 0) + 1;
    this.perAddress.set(c.remoteAddress, seen);
    if (seen > this.o.ratePerAddress) {
      this.counts.rateLimited++;
      return null;
    }
    for (const id of c.ids) {
      if (id.length !== ID_LENGTH || !/^[a-z0-9]+$/.test(id)) continue;
      const correlation = id.slice(0, CORRELATION_LENGTH);
      const k = await this.correlation(correlation);
      if (!k) continue;
      if (k.stored >= this.o.maxPerCorrelation) {
        this.counts.overQuota++;
        return null;
      }
      k.stored++;
      this.counts.stored++;
      this.buffer.push({
        correlationId: correlation,
        fullId: id,
        protocol: c.protocol,
        remoteAddress: c.remoteAddress,
        at: new Date(),
        rawRequest: truncate(c.rawRequest),
        rawResponse: truncate(c.rawResponse),
        qType: c.qType ?? null,
      });
      if (this.buffer.length >= (this.o.batchSize ?? 200)) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.o.flushMs ?? 50);
      return id;
    }
    this.counts.unregistered++;
    return null;
  }

  /** Writes what is buffered; resolves once every row recorded so far is in the database. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(async () => {
      if (!rows.length) return;
      try {
        await insertInteractions(this.o.db, rows);
      } catch (err) {
        // A correlation expired (deleted) between the look-up and the write, or the database is away.
        this.counts.writeFailed += rows.length;
        this.o.logger.warn(
          { err: (err as Error).message, rows: rows.length },
          'oob: interactions not stored',
        );
      }
    });
    return this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.report);
    clearInterval(this.refresher);
    await this.flush();
    this.logCounts();
  }

  private tick() {
    const now = Math.floor(Date.now() / 1000);
    if (now === this.second) return;
    this.second = now;
    this.lookups = 0;
    this.perAddress.clear();
  }

  private correlation(id: string): Promise<Known | undefined> | Known | undefined {
    const k = this.known.get(id);
    if (k && k.until > Date.now()) return k.live ? k : undefined;
    const shared = this.looking.get(id);
    if (shared) return shared;
    if (this.lookups >= (this.o.lookupsPerSecond ?? 50)) {
      this.counts.lookupBudget++;
      return undefined;
    }
    this.lookups++;
    const lookup = this.lookUp(id, k).finally(() => this.looking.delete(id));
    this.looking.set(id, lookup);
    return lookup;
  }

  private async lookUp(id: string, k: Known | undefined): Promise<Known | undefined> {
    const row = await liveCorrelation(this.o.db, id).catch((err) => {
      this.o.logger.warn({ err: (err as Error).message }, 'oob: correlation look-up failed');
      return undefined;
    });
    const now = Date.now();
    if (this.known.size >= MAX_KNOWN) this.known.clear();
    const entry: Known = row
      ? {
          live: true,
          // Re-read within a minute: an expired (deleted) correlation stops accepting soon after.
          until: Math.min(row.expiresAt.getTime(), now + POSITIVE_MS),
          stored: Math.max(row.stored, k?.live ? k.stored : 0),
        }
      : { live: false, until: now + NEGATIVE_MS, stored: 0 };
    this.known.set(id, entry);
    return entry.live ? entry : undefined;
  }

  private logCounts() {
    const { stored, ...dropped } = this.counts;
    const line = JSON.stringify(this.counts);
    if (line === this.reported) return;
    this.reported = line;
    this.o.logger.info({ stored, dropped }, 'oob: call-backs since start');
  }
}
