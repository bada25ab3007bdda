import type net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Listener {
  readonly protocol: string;
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** Listens on `port` (0: any free one) of `host`; rejects when the address cannot be bound. */
export function listening(server: net.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** A close for the server that also ends the connections still open on it (keep-alive, slow clients). */
export function closer(server: net.Server): () => Promise<void> {
  const open = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.on('secureConnection', (socket: net.Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
    });
}
