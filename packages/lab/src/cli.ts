import { parseArgs } from 'node:util';
import type { LabOobOptions } from './oob-services.ts';
import { startLab } from './start-lab.ts';
import { parseTxtRecords } from './txt-records.ts';

const USAGE = `Usage: npm run lab [-- --hostile] [--txt NAME=VALUE]... [--subnet 127.0.1] [--dns-port 5300]

  --hostile           add the out-of-scope records (169.254.169.254, 10.0.0.1)
  --txt NAME=VALUE    publish a TXT record, e.g. the ownership proof Perimeter asks for:
                      --txt _perimeter.acme.test=perimeter-verification=<token>
                      (repeat for more records, or for more values of one name)
  --subnet A.B.C      the lab's /24 inside 127.0.0.0/8 (default 127.0.1)
  --dns-port N        the DNS server's port on 127.0.0.1 (default 5300; 0 = any free port)
  --oob-zone ZONE     start the call-back services and forward ZONE's queries to --oob-ns
  --oob-ns HOST:PORT  the interaction server's DNS on 127.0.0.0/8 (e.g. 127.0.0.1:5353)
  --oob-http-port N   its HTTP port (default 80); --oob-ldap-port N: its LDAP port (default 389)`;

function oobOptions(
  values: Partial<Record<'oob-zone' | 'oob-ns' | 'oob-http-port' | 'oob-ldap-port', string>>,
): LabOobOptions | undefined {
  const zone = values['oob-zone'];
  if (!zone) return undefined;
  const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/.exec(values['oob-ns'] ?? '');
  if (!m) throw new Error('--oob-zone needs --oob-ns 127.x.y.z:PORT');
  const port = (name: 'oob-http-port' | 'oob-ldap-port') => {
    const v = values[name];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`--${name}: not a port`);
    return n;
  };
  const httpPort = port('oob-http-port');
  const ldapPort = port('oob-ldap-port');
  return {
    zone,
    nameserver: { host: m[1] as string, port: Number(m[2]) },
    ...(httpPort ? { httpPort } : {}),
    ...(ldapPort ? { ldapPort } : {}),
  };
}

function readArgs() {
  try {
    const { values } = parseArgs({
      options: {
        hostile: { type: 'boolean' },
        txt: { type: 'string', multiple: true },
        help: { type: 'boolean' },
        subnet: { type: 'string' },
        'dns-port': { type: 'string' },
        'oob-zone': { type: 'string' },
        'oob-ns': { type: 'string' },
        'oob-http-port': { type: 'string' },
        'oob-ldap-port': { type: 'string' },
      },
    });
    return { ...values, records: parseTxtRecords(values.txt ?? []), oob: oobOptions(values) };
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
  ...(args.oob ? { oob: args.oob } : {}),
});
for (const [name, values] of args.records) lab.setTxt(name, values);
console.log(`Perimeter lab running on ${lab.subnet}.0/24, DNS ${lab.dns.host}:${lab.dns.port} (UDP+TCP)`);
console.log(`Zones: ${lab.domains.join(', ')}; CT API: ${lab.ctUrl}`);
if (args.oob)
  console.log(
    `Out-of-band zone ${args.oob.zone} forwarded to ${args.oob.nameserver.host}:${args.oob.nameserver.port}`,
  );
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
