import type pg from 'pg';
import { type ChannelListener, listenChannels } from './listen.ts';

/** One request's view of a user's remembered values (see UserCache.memo); `get` comes first. */
export interface Memo<V> {
  get(key: string): Promise<V | undefined>;
  set(key: string, value: V): void;
}

/** Remembers nothing: every value is read from the database. */
export const NO_MEMO: Memo<never> = { get: async () => undefined, set: () => {} };

interface Feed {
  readonly live: boolean;
  sync(): Promise<boolean>;
}

/**
 * Values read from the database per user, remembered until a trigger notifies that something of
 * that user changed (a channel per cache; the payload is the user's id). A remembered value is read
 * only after a round trip on the listening connection (ChangeFeed.sync, shared by the requests of
 * the moment) has brought in every notification committed before the request: PostgreSQL delivers
 * them in commit order, so a write that finished before a request started, in any process, is
 * never hidden by what was remembered before it. A value is kept only if no change to its user
 * was heard between that round trip and the value's read. Nothing is remembered while the
 * connection is down (a change could be missed), and everything is dropped when it goes down.
 */
export class UserCache<V> {
  /** Per user, their values by key; a change drops the user's map, so memos holding it stop writing. */
  private readonly users = new Map<string, Map<string, V>>();

  constructor(
    private readonly feed: Feed,
    private readonly maxUsers: number,
    private readonly maxKeysPerUser: number,
  ) {}

  /** Something of this user changed: what was remembered for them, and any read under way, is dropped. */
  changed(userId: string) {
    this.users.delete(userId);
  }

  clear() {
    this.users.clear();
  }

  /** Whether the change feed is up (UserMemo's check). */
  get live(): boolean {
    return this.feed.live;
  }

  /** Whether `values` is still the user's map: nothing of theirs changed since it was taken (UserMemo's check). */
  holds(userId: string, values: Map<string, V>): boolean {
    return this.users.get(userId) === values;
  }

  /** The user's map, created if needed, as the most recently used (UserMemo's read). */
  valuesOf(userId: string): Map<string, V> {
    let values = this.users.get(userId);
    if (values) this.users.delete(userId);
    else values = new Map();
    this.users.set(userId, values);
    if (this.users.size > this.maxUsers) this.users.delete(this.users.keys().next().value as string);
    return values;
  }

  /**
   * Taken when a request starts, before it reads anything of the user; `synced`: a sync the request
   * started before anything else (ChangeFeed.sync), shared by the memos of one request.
   */
  memo(userId: string, synced = this.feed.sync()): Memo<V> {
    if (!this.feed.live) return NO_MEMO;
    return new UserMemo(this, userId, synced, this.maxKeysPerUser);
  }
}

/**
 * One request's memo of a user (UserCache.memo): an object of a class rather than two closures
 * made per request — the server's build (and tsx) keeps function names, so each closure made was
 * also named by a defineProperty: ~5 µs of the API's CPU per request for the two memos of an
 * events page under the bench's load (--cpu-prof).
 */
class UserMemo<V> implements Memo<V> {
  /** The user's map as `get` took it; `set` writes only while it is still theirs. */
  private mine: Map<string, V> | undefined;

  constructor(
    private readonly cache: UserCache<V>,
    private readonly userId: string,
    private readonly synced: Promise<boolean>,
    private readonly maxKeys: number,
  ) {}

  async get(key: string): Promise<V | undefined> {
    if (!(await this.synced) || !this.cache.live) return undefined;
    this.mine = this.cache.valuesOf(this.userId);
    return this.mine.get(key);
  }

  set(key: string, value: V): void {
    const mine = this.mine;
    if (!mine || !this.cache.live || !this.cache.holds(this.userId, mine)) return;
    mine.delete(key);
    mine.set(key, value);
    if (mine.size > this.maxKeys) mine.delete(mine.keys().next().value as string);
  }
}

/**
 * Something a process is told of at once, and would otherwise find by polling (a job queued):
 * `subscribe`rs are called on each notification of its channel. Nothing is heard while the feed
 * is off or its connection down (a pooler in transaction mode does not carry LISTEN), so what
 * listens must keep its poll.
 */
export class Wakeups {
  private readonly listeners = new Set<() => void>();

  /** Calls `onWake` on each notification; returns the unsubscribe. */
  subscribe(onWake: () => void): () => void {
    this.listeners.add(onWake);
    return () => this.listeners.delete(onWake);
  }

  notify(): void {
    for (const onWake of this.listeners) onWake();
  }
}

/**
 * The change notifications one process hears, on one connection of its own (src/db/listen.ts),
 * the caches they keep true, and the wake-ups they bring.
 */
export class ChangeFeed implements Feed {
  private readonly caches = new Map<string, UserCache<unknown>>();
  private readonly wakeups = new Map<string, Wakeups>();
  private listener: ChannelListener | undefined;
  private listeners = 0;
  private up = false;

  get live(): boolean {
    return this.up;
  }

  /** A cache kept by the notifications of `channel`. */
  cache<V>(channel: string, { maxUsers = 2_000, maxKeysPerUser = 500 } = {}): UserCache<V> {
    const cache = new UserCache<V>(this, maxUsers, maxKeysPerUser);
    this.caches.set(channel, cache as UserCache<unknown>);
    return cache;
  }

  /** The wake-ups of `channel` (registered before `listen`, as the caches are). */
  wakeupsOf(channel: string): Wakeups {
    const known = this.wakeups.get(channel);
    if (known) return known;
    const wakeups = new Wakeups();
    this.wakeups.set(channel, wakeups);
    return wakeups;
  }

  sync(): Promise<boolean> {
    return this.listener?.sync() ?? Promise.resolve(false);
  }

  /** Starts hearing the notifications (one connection per process; each call needs its `close`). */
  listen(connection: pg.ClientConfig): { close(): Promise<void> } {
    this.listeners++;
    this.listener ??= listenChannels({
      connection,
      channels: [...this.caches.keys(), ...this.wakeups.keys()],
      onNotify: (channel, payload) => {
        this.caches.get(channel)?.changed(payload);
        this.wakeups.get(channel)?.notify();
      },
      onState: (live) => {
        this.up = live;
        for (const cache of this.caches.values()) cache.clear();
      },
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
}
