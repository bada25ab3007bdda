// Worker thread of the connect scanner for large port lists (plain JS: workers load no
// TypeScript). Same loop as rawScan in raw-tcp.ts; the parent has already checked the scope
// policy for `address` before starting any worker.
import { parentPort, workerData } from 'node:worker_threads';

const { address, ports, concurrency, timeoutMs, ipv6 } = workerData;
const { TCP, TCPConnectWrap, constants } = process.binding('tcp_wrap');
const inFlight = new Set();
let next = 0;
let settled = 0;
const open = [];

function settle(req, isOpen) {
  if (req.settled) return;
  req.settled = true;
  inFlight.delete(req);
  // A TCP self-connect (see isSelfConnectedHandle in raw-tcp.ts) is never an open port.
  const selfConnected = isOpen && isSelfConnected(req.handle);
  req.handle.close();
  if (isOpen && !selfConnected) open.push(req.port);
  settled++;
}
function isSelfConnected(handle) {
  const local = {};
  const peer = {};
  if (handle.getsockname(local) !== 0 || handle.getpeername(peer) !== 0) return false;
  return local.port === peer.port && local.address === peer.address;
}
function oncomplete(status) {
  settle(this, status === 0);
  pump();
}
function pump() {
  while (inFlight.size < concurrency && next < ports.length) {
    const port = ports[next++];
    const handle = new TCP(constants.SOCKET);
    const req = new TCPConnectWrap();
    req.handle = handle;
    req.settled = false;
    req.address = address;
    req.port = port;
    req.deadline = Date.now() + timeoutMs;
    req.oncomplete = oncomplete;
    const err = ipv6 ? handle.connect6(req, address, port) : handle.connect(req, address, port);
    if (err) {
      req.settled = true;
      handle.close();
      settled++;
      continue;
    }
    inFlight.add(req);
  }
  if (settled === ports.length) {
    clearInterval(sweeper);
    parentPort.postMessage(open);
  }
}
const sweeper = setInterval(
  () => {
    // Let completions already pending be delivered before expiring (see raw-tcp.ts).
    const now = Date.now();
    const expired = [...inFlight].filter((req) => req.deadline <= now);
    if (!expired.length) return pump();
    setImmediate(() => {
      for (const req of expired) settle(req, false);
      pump();
    });
  },
  Math.min(250, Math.max(20, timeoutMs / 4)),
);
pump();
