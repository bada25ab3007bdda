import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can stop carrying notifications, as a pooler in
 * transaction mode does (LISTEN succeeds, NOTIFY never arrives), and refuse new connections of one
 * application_name, as if the server could not be reached for them. Plain protocol 3.0 (no TLS).
 */
export interface PgProxy {
  /** The database URL, through the proxy. */
  url: string;
  /** Drop every NotificationResponse from the server. */
  dropNotifications: boolean;
  /** Close new connections whose startup message has this application_name. */
  refuse: string | undefined;
  /** The connections carried, in the order they opened. */
  connections: { applicationName: string; closed: boolean }[];
  close(): Promise<void>;
}

const PROTOCOL_3 = 196_608;
const NOTIFICATION_RESPONSE = 0x41; // 'A'

export async function startPgProxy(databaseUrl: string): Promise<PgProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    return s;
  };

  const server = net.createServer((client) => {
    track(client);
    let head: Buffer = Buffer.alloc(0);
    const onStartup = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < 8 || head.length < head.readInt32BE(0)) return;
      client.off('data', onStartup);
      const isStartup = head.readInt32BE(4) === PROTOCOL_3;
      const applicationName = (isStartup && startupParams(head).application_name) || '';
      if (proxy.refuse !== undefined && applicationName === proxy.refuse) return void client.destroy();
      const conn = { applicationName, closed: false };
      proxy.connections.push(conn);
      const upstream = track(net.connect(Number(target.port), target.hostname));
      const end = () => {
        conn.closed = true;
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', end);
      upstream.write(head);
      client.pipe(upstream);
      // Anything but a startup (a cancel request) is carried as it is.
      if (!isStartup) return void upstream.pipe(client);
      let pending: Buffer = Buffer.alloc(0);
      upstream.on('data', (data: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, data]) : data;
        const out: Buffer[] = [];
        let at = 0;
        while (pending.length - at >= 5) {
          const size = 1 + pending.readInt32BE(at + 1);
          if (pending.length - at < size) break;
          if (!(proxy.dropNotifications && pending[at] === NOTIFICATION_RESPONSE))
            out.push(pending.subarray(at, at + size));
          at += size;
        }
        pending = pending.subarray(at);
        if (out.length) client.write(Buffer.concat(out));
      });
    };
    client.on('data', onStartup);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);

  const proxy: PgProxy = {
    url: url.toString(),
    dropNotifications: false,
    refuse: undefined,
    connections: [],
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

/** The parameters of a startup message (length, protocol, then name\0value\0 pairs, then \0). */
function startupParams(message: Buffer): Record<string, string> {
  const fields = message.subarray(8, message.readInt32BE(0)).toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length && fields[i]; i += 2) params[fields[i]!] = fields[i + 1]!;
  return params;
}
