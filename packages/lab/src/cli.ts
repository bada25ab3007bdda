import { parseArgs } from 'node:util';
import { startLab } from './start-lab.js';
import { parseTxtRecords } from './txt-records.js';

const USAGE = `Usage: npm run lab [-- --hostile] [--txt NAME=VALUE]... [--subnet 127.0.1] [--dns-port 5300]

  --hostile           add the out-of-scope records (169.254.169.254, 10.0.0.1)
  --txt NAME=VALUE    publish a TXT record, e.g. the ownership proof Perimeter asks for:
                      --txt _perimeter.acme.test=perimeter-verification=<token>
                      (repeat for more records, or for more values of one name)
  --subnet A.B.C      the lab's /24 inside 127.0.0.0/8 (default 127.0.1)
  --dns-port N        the DNS server's port on 127.0.0.1 (default 5300; 0 = any free port)`;

function readArgs() {
  try {
    const { values } = parseArgs({
      options: {
        hostile: { type: 'boolean' },
        txt: { type: 'string', multiple: true },
        help: { type: 'boolean' },
        subnet: { type: 'string' },
        'dns-port': { type: 'string' },
      },
    });
    return { ...values, records: parseTxtRecords(values.txt ?? []) };
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(64);
  }
}

const args = readArgs();
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const lab = await startLab({
  hostileRecords: args.hostile ?? false,
  ...(args.subnet ? { subnet: args.subnet } : {}),
  ...(args['dns-port'] ? { dnsPort: Number(args['dns-port']) } : {}),
});
for (const [name, values] of args.records) lab.setTxt(name, values);
console.log(`Perimeter lab running on ${lab.subnet}.0/24, DNS ${lab.dns.host}:${lab.dns.port} (UDP+TCP)`);
console.log(`Zones: ${lab.domains.join(', ')}; CT API: ${lab.ctUrl}`);
for (const s of lab.services) console.log(`  ${s.address}:${s.port}\t${s.kind}\t${s.role}`);
for (const [name, values] of args.records)
  console.log(`  TXT ${name}\t${values.map((v) => `"${v}"`).join(' ')}`);
console.log(
  'Try: npx perimeter-scan acme.test --dns-server 127.0.0.1:5300 --allow-private --allow 127.0.0.0/8',
);
const shutdown = () => {
  void lab.stop().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
