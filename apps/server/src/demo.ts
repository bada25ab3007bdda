/**
 * `npm run demo`: the local lab and the product configured for it, in one process, with a demo
 * account whose lab domain is verified; prints the URL and the credentials.
 *
 *   npm run demo [-- --data-dir ./data/demo] [--port 8080] [--subnet 127.0.1] [--dns-port 5300]
 *
 * Private targets are allowed for the lab's /24 only (PERIMETER_SCAN_ALLOW), verification and
 * scans resolve through the lab's DNS, subdomain discovery asks the lab's CT log, and the lab's
 * CVE feed and leak corpus are loaded. Settings already in the environment win.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LAB_CVE_FEED_PATH, startLab } from '@perimeter/lab';
import { loadConfig } from './lib/config/index.ts';
import { createLogger } from './lib/logger.ts';
import { seedDemo } from './modules/demo/demo-service.ts';
import { runProcess } from './server/process.ts';
import { openRuntime } from './server/runtime.ts';

const DEMO_DOMAIN = 'acme.test';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: './data/demo' },
    port: { type: 'string', default: process.env.PORT ?? '8080' },
    subnet: { type: 'string', default: '127.0.1' },
    'dns-port': { type: 'string', default: '5300' },
  },
});

const lab = await startLab({ subnet: args.subnet, dnsPort: Number(args['dns-port']) });
const ports = [...new Set([...Object.values(lab.portMap), 3306, 6379, 8080, 3000])].sort((a, b) => a - b);
const labEnv: Record<string, string> = {
  PERIMETER_DATA_DIR: args['data-dir'],
  PORT: args.port,
  PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
  PERIMETER_SCAN_ALLOW: `${lab.subnet}.0/24`,
  PERIMETER_DNS_SERVERS: `${lab.dns.host}:${lab.dns.port}`,
  PERIMETER_CT_URL: lab.ctUrl,
  PERIMETER_SCAN_PORTS: ports.join(','),
  // The lab is this machine's own: its templates run without the product's politeness.
  PERIMETER_TEMPLATE_RATE_LIMIT: '0',
  // The banner with the credentials stays readable; LOG_LEVEL=info shows every request.
  LOG_LEVEL: 'warn',
};
for (const [name, value] of Object.entries(labEnv)) process.env[name] ??= value;
// The command line wins over the environment for where the demo keeps its data and listens.
process.env.PERIMETER_DATA_DIR = args['data-dir'];
process.env.PORT = args.port;

const config = loadConfig();
const seeding = await openRuntime(config, createLogger(config.env.LOG_LEVEL));
let account: Awaited<ReturnType<typeof seedDemo>>;
try {
  account = await seedDemo(seeding.ctx, {
    domain: DEMO_DOMAIN,
    publishTxt: (name, values) => lab.setTxt(name, values),
    cveFeedPath: fileURLToPath(LAB_CVE_FEED_PATH),
    leakCorpus: lab.expected().leakCorpus,
  });
} finally {
  await seeding.close();
}

await runProcess({ api: true, worker: true });
console.log(`
Perimeter demo on the local lab
  URL:       ${config.publicUrl}
  E-mail:    ${account.email}
  Password:  ${account.password}
  Two-factor: add this secret to an authenticator app: ${account.totpSecret}
             (${account.otpauthUrl})
             or sign in with a one-time recovery code: ${account.recoveryCodes.slice(0, 3).join('  ')}
  Target:    ${account.domain} (verified) — lab DNS ${lab.dns.host}:${lab.dns.port}, services on ${lab.subnet}.0/24
Open Targets or New scan and scan ${account.domain}. Ctrl-C stops the product and the lab.
`);
