import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ChannelListener {
  /** Whether the connection is up and LISTENing: while it is not, notifications may be missed. */
  readonly live: boolean;
  /**
   * Resolves true once every notification committed before this call has been handed to
   * `onNotify` (false if the connection went down meanwhile). It sends a notification of its own
   * and waits for it: PostgreSQL delivers notifications in commit order. Calls made while one is
   * waiting to be sent (behind the connection's statement under way, if any) share it.
   */
  sync(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Connection settings of the pool this listener serves (its own connection, outside the pool). */
  connection: pg.ClientConfig;
  /** Identifiers (letters, digits, underscores). */
  channels: string[];
  onNotify(channel: string, payload: string): void;
  /** The listener went up or down; after an `up`, notifications sent while it was down are lost. */
  onState(live: boolean): void;
  /**
   * First wait before reconnecting, doubled up to 10 s, and first again once a sync has come back
   * (a connection that LISTENs but never hears its own notifications is retried ever more slowly).
   */
  retryMs?: number;
  /** How long a sync waits for its own notification before the connection is taken as lost. */
  syncTimeoutMs?: number;
}

interface Batch {
  token: string;
  waiting: ((ok: boolean) => void)[];
  timer?: NodeJS.Timeout;
}

/**
 * A sync whose own notification has not come back by then ends false, and the connection is
 * taken as lost (reconnected after a backoff): notifications are not arriving (a pooler in
 * transaction mode does not carry LISTEN), so nothing heard on it can be trusted.
 */
const SYNC_TIMEOUT_MS = 2_000;

/**
 * LISTEN on some channels over a connection of its own, reconnecting after the server ends it (a
 * restart, a failover): PostgreSQL delivers NOTIFY only to connections listening at commit, so
 * `onState` says when the caller must stop trusting what the notifications would have told it.
 */
export function listenChannels(opts: ListenOptions): ChannelListener {
  const first = opts.retryMs ?? 500;
  const syncTimeout = opts.syncTimeoutMs ?? SYNC_TIMEOUT_MS;
  // This process's own channel for sync(): no other listener hears its round trips.
  const syncChannel = `perimeter_sync_${randomBytes(6).toString('hex')}`;
  const channels = new Set(opts.channels);
  let wait = first;
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let unsent: Batch | undefined;
  const sent = new Map<string, Batch>();
  let serial = 0;
  /**
   * The connection's last statement: the next is sent once it has its answer. pg still queues a
   * query sent while another runs, but deprecates it (pg@9 drops it); syncs overlap under load.
   */
  let previous: Promise<unknown> = Promise.resolve();

  const settle = (batch: Batch, ok: boolean) => {
    clearTimeout(batch.timer);
    for (const resolve of batch.waiting) resolve(ok);
  };
  /** Ends the current connection as lost (set while one is open). */
  let drop: (() => void) | undefined;
  const down = () => {
    for (const batch of sent.values()) settle(batch, false);
    sent.clear();
    if (live) {
      live = false;
      opts.onState(false);
    }
  };
  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, wait);
    timer.unref();
    wait = Math.min(10_000, wait * 2);
  };
  async function connect() {
    const c = new pg.Client({ ...opts.connection, application_name: 'perimeter listen' });
    client = c;
    previous = Promise.resolve();
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      down();
      void c.end().catch(() => {});
      retry();
    };
    drop = lost;
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (channels.has(n.channel) && n.payload) opts.onNotify(n.channel, n.payload);
      else if (n.channel === syncChannel && n.payload) {
        const batch = sent.get(n.payload);
        if (!batch) return;
        sent.delete(n.payload);
        // The connection carries notifications: a later loss is retried from the first wait.
        wait = first;
        settle(batch, true);
      }
    });
    try {
      await c.connect();
      await c.query([...channels, syncChannel].map((ch) => `LISTEN "${ch}";`).join(' '));
    } catch {
      lost();
      return;
    }
    if (closed || client !== c) return void c.end().catch(() => {});
    // The connection is not the process's reason to stay up.
    (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    live = true;
    opts.onState(true);
  }
  void connect();

  /**
   * Sends the waiting batch once the statement before it has its answer: until then it is still
   * waiting to be sent, so the syncs called meanwhile share it (its notification is sent after
   * each of them began) — one statement per round trip, not one per turn of the event loop.
   */
  const send = () => {
    const batch = unsent;
    const c = client;
    if (!batch) return;
    if (!live || !c) {
      unsent = undefined;
      return settle(batch, false);
    }
    previous = previous
      .then((): Promise<unknown> | undefined => {
        // Settled meanwhile (closed), or the connection changed: it is not this one's to send.
        if (unsent !== batch) return;
        unsent = undefined;
        if (!live || client !== c) {
          settle(batch, false);
          return;
        }
        sent.set(batch.token, batch);
        batch.timer = setTimeout(() => {
          if (!sent.delete(batch.token)) return;
          settle(batch, false);
          if (client === c) drop?.();
        }, syncTimeout);
        batch.timer.unref();
        return c.query('select pg_notify($1, $2)', [syncChannel, batch.token]);
      })
      .catch(() => {
        if (sent.delete(batch.token)) settle(batch, false);
      });
  };

  return {
    get live() {
      return live;
    },
    sync() {
      if (!live) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        if (!unsent) {
          unsent = { token: String(++serial), waiting: [] };
          setImmediate(send);
        }
        unsent.waiting.push(resolve);
      });
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      down();
      if (unsent) settle(unsent, false);
      unsent = undefined;
      await c?.end().catch(() => {});
    },
  };
}
