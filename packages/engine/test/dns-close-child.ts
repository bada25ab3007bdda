/**
 * Child process of dns-resolver-udp.test.ts: queries a silent server with a one-minute time-out,
 * closes the resolver and prints how each query ended. The process must then exit by itself: no
 * socket, timer or queued send of the resolver may keep it alive.
 * Usage: node --import tsx dns-close-child.ts <host:port>
 */
import { DnsResolver } from '../src/dns/dns-resolver.ts';

const [server = '127.0.0.1:9'] = process.argv.slice(2);
const resolver = new DnsResolver({ servers: [server], timeoutMs: 60_000, retries: 0 });
const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: Error) => e.message,
  );
// The first is queued until the socket connects; the second is sent on the connected socket.
const before = settled(resolver.query('queued.example.test', 'A'));
await new Promise((r) => setTimeout(r, 100));
const after = settled(resolver.query('sent.example.test', 'A'));
await new Promise((r) => setTimeout(r, 100));
resolver.close();
console.log(JSON.stringify(await Promise.all([before, after])));
