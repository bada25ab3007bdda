import type pg from 'pg';
import { type ChannelListener, listenChannel } from '../../db/listen.ts';

/** The channel the findings tables' triggers notify with a user's id (migration 0019). */
export const FINDINGS_CHANGED_CHANNEL = 'findings_changed';

/** One request's view of its user's remembered counts (see FindingCounts.memo); `get` comes first. */
export interface CountMemo {
  get(key: string): Promise<number | undefined>;
  set(key: string, n: number): void;
}

/** Remembers nothing: every total is counted. */
export const NO_MEMO: CountMemo = { get: async () => undefined, set: () => {} };

/**
 * Capped totals of a user's findings by filter, remembered until any of that user's findings (or
 * one scan's sightings of them) change. Counting is most of what an events page costs PostgreSQL
 * (up to 10,001 index entries behind a "10,000+"), and a user paging through a list, re-sorting
 * it or coming back to it asks for the same total again.
 *
 * Changes arrive as NOTIFY from the tables' triggers at commit, on a connection of their own, so
 * every API process hears every worker's writes. A remembered total is read only after a round
 * trip on that connection (shared by the requests of the moment) has brought in every
 * notification committed before the request: a write that finished before a page was asked for
 * is always in its total, whichever process made it. A count is kept only if no change to its
 * user was heard between that round trip and the count's end. Nothing is remembered while the
 * connection is down (a change could be missed), and everything is dropped when it goes down.
 */
export class FindingCounts {
  /** Per user, their counts by key; a change drops the user's map, so memos holding it stop writing. */
  private readonly users = new Map<string, Map<string, number>>();
  private live = false;
  private listener: ChannelListener | undefined;
  private listeners = 0;

  constructor(
    private readonly maxUsers = 2_000,
    private readonly maxKeysPerUser = 500,
  ) {}

  /** Starts hearing the triggers' notifications (once per process; each call needs its `close`). */
  listen(connection: pg.ClientConfig): { close(): Promise<void> } {
    this.listeners++;
    this.listener ??= listenChannel({
      connection,
      channel: FINDINGS_CHANGED_CHANNEL,
      onNotify: (userId) => this.changed(userId),
      onState: (live) => this.setLive(live),
    });
    let closed = false;
    return {
      close: async () => {
        if (closed) return;
        closed = true;
        if (--this.listeners > 0) return;
        const l = this.listener;
        this.listener = undefined;
        await l?.close();
      },
    };
  }

  /** Whether totals are remembered now (the notifications are heard). */
  get listening(): boolean {
    return this.live;
  }

  setLive(live: boolean) {
    this.live = live;
    this.users.clear();
  }

  /** A user's findings changed: what was remembered for them, and any count under way, is dropped. */
  changed(userId: string) {
    this.users.delete(userId);
  }

  /** The user's map, created if needed, as the most recently used. */
  private countsOf(userId: string): Map<string, number> {
    let counts = this.users.get(userId);
    if (counts) this.users.delete(userId);
    else counts = new Map();
    this.users.set(userId, counts);
    if (this.users.size > this.maxUsers) this.users.delete(this.users.keys().next().value as string);
    return counts;
  }

  /** Taken when a request starts, before it reads anything. */
  memo(userId: string): CountMemo {
    const listener = this.listener;
    if (!this.live || !listener) return NO_MEMO;
    const synced = listener.sync();
    let mine: Map<string, number> | undefined;
    return {
      get: async (key) => {
        if (!(await synced) || !this.live) return undefined;
        mine = this.countsOf(userId);
        return mine.get(key);
      },
      set: (key, n) => {
        if (!mine || !this.live || this.users.get(userId) !== mine) return;
        mine.delete(key);
        mine.set(key, n);
        if (mine.size > this.maxKeysPerUser) mine.delete(mine.keys().next().value as string);
      },
    };
  }
}
