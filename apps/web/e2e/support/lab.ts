import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAB_CVE_FEED_PATH, type Lab, startLab } from '@perimeter/lab';
import type { TServer } from './server.ts';

export type { Lab };

/** The lab on its own /24 and a free DNS port, for the browser journeys. */
export async function startE2eLab(subnet = '127.0.160'): Promise<Lab> {
  return startLab({ subnet, dnsPort: 0 });
}

/** Server settings that point scans and verification at the running lab (loopback only). */
export function labServerEnv(lab: Lab): Record<string, string> {
  const ports = [...new Set([...Object.values(lab.portMap), 3306, 6379, 8080, 3000])].sort((a, b) => a - b);
  return {
    PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
    PERIMETER_DNS_SERVERS: `${lab.dns.host}:${lab.dns.port}`,
    PERIMETER_SCAN_ALLOW: `${lab.subnet}.0/24`,
    // The lab's domains point at the lab's own addresses: intrusive templates may run there.
    PERIMETER_INTRUSIVE_ALLOW: `${lab.subnet}.0/24`,
    PERIMETER_CT_URL: lab.ctUrl,
    PERIMETER_SCAN_PORTS: ports.join(','),
    // The lab is this machine's own: its templates run without the product's politeness.
    PERIMETER_TEMPLATE_RATE_LIMIT: '0',
    WORKER_CONCURRENCY: '2',
  };
}

/**
 * Loads the lab's own CVE feed (the 16 planted CVEs, NVD 2.0) and its leak corpus into the server's
 * database with the operator commands, as an operator would load real feeds.
 */
export function loadLabIntel(server: TServer, lab: Lab): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'perimeter-e2e-intel-'));
  const leaks = path.join(dir, 'lab-leaks.json');
  writeFileSync(leaks, JSON.stringify(lab.expected().leakCorpus));
  server.cli(['leaks', 'import', leaks]);
  server.cli(['cve', 'import', fileURLToPath(LAB_CVE_FEED_PATH)]);
}
