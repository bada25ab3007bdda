// Child process of the bench: runs the lab (so that it does not share the event loop with
// what is measured) and prints its coordinates as one JSON line.
import { startLab } from '@perimeter/lab';

const lab = await startLab({ subnet: process.argv[2] ?? '127.0.9', dnsPort: 0 });
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
