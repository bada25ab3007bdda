// Child process of the benches: runs the lab (so that it does not share the event loop with
// what is measured) on a free loopback /24 with a free DNS port, both chosen at run time, and
// prints its coordinates as one JSON line.
import { startFreeLab } from '@perimeter/lab/bench';

const lab = await startFreeLab();
process.stdout.write(
  `${JSON.stringify({ subnet: lab.subnet, dns: lab.dns, ctUrl: lab.ctUrl, domains: lab.domains, portMap: lab.portMap })}\n`,
);
const stop = () => {
  void lab.stop().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
