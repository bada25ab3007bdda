import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Lab, startLab } from '@perimeter/lab';
import type { TServer } from './server.ts';
import { repoRoot } from './server.ts';

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
    PERIMETER_CT_URL: lab.ctUrl,
    PERIMETER_SCAN_PORTS: ports.join(','),
    WORKER_CONCURRENCY: '2',
  };
}

/** A shared dataset folder; its absence fails in CI and skips elsewhere (undefined). */
export function datasetPath(...parts: string[]): string | undefined {
  const p = path.resolve(repoRoot, '../shared/datasets', ...parts);
  if (existsSync(p)) return p;
  if (process.env.CI === 'true') throw new Error(`dataset missing in CI: ${p}`);
  return undefined;
}

/**
 * Loads the CVE feeds (the shared NVD and retire.js samples, as an operator would) and the lab's
 * leak corpus into the server's database with the operator commands.
 */
export function loadIntel(server: TServer, lab: Lab, cveDir: string, retireDir: string): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'perimeter-e2e-intel-'));
  const leaks = path.join(dir, 'lab-leaks.json');
  writeFileSync(leaks, JSON.stringify(lab.expected().leakCorpus));
  server.cli(['leaks', 'import', leaks]);
  server.cli([
    'cve',
    'import',
    path.join(cveDir, 'nvd-json-1.1/nvdcve-1.1-sample.json'),
    path.join(cveDir, 'nvd-json-2.0-examples/CVE-2021-41773.json'),
    path.join(cveDir, 'nvd-json-2.0-examples/CVE-2021-43798.json'),
    path.join(retireDir, 'jsrepository-v5.json'),
  ]);
}
