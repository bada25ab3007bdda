import { startLab } from './start-lab.js';

const hostile = process.argv.includes('--hostile');
const lab = await startLab({ hostileRecords: hostile });
console.log(`Perimeter lab running on ${lab.subnet}.0/24, DNS ${lab.dns.host}:${lab.dns.port} (UDP+TCP)`);
console.log(`Zones: ${lab.domains.join(', ')}; CT API: ${lab.ctUrl}`);
for (const s of lab.services) console.log(`  ${s.address}:${s.port}\t${s.kind}\t${s.role}`);
console.log(
  'Try: npx perimeter-scan acme.test --dns-server 127.0.0.1:5300 --allow-private --allow 127.0.0.0/8',
);
const shutdown = () => {
  void lab.stop().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
