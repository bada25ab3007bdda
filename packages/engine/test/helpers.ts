import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Lab, startLab } from '@perimeter/lab';
import type { ScanConfig } from '../src/pipeline/scan-config.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** `../shared/datasets/<parts>` or undefined (skip) when absent; absence fails in CI. */
export function sharedDataset(...parts: string[]): string | undefined {
  const p = path.resolve(REPO_ROOT, '../shared/datasets', ...parts);
  if (existsSync(p)) return p;
  if (process.env.CI === 'true') throw new Error(`dataset missing in CI: ${p}`);
  console.warn(`dataset not found, skipping: ${p}`);
  return undefined;
}

/**
 * A lab on its own /24 (tests run in parallel) with an ephemeral DNS port. Each test file
 * passes a distinct third octet.
 */
export function startTestLab(octet: number, hostileRecords = false): Promise<Lab> {
  return startLab({ subnet: `127.0.${octet}`, dnsPort: 0, hostileRecords });
}

/** The scan configuration the lab tests use: lab DNS, loopback only, the lab's ports. */
export function labScanConfig(lab: Lab, extra: Partial<ScanConfig> = {}): ScanConfig {
  const ports = [...new Set([...Object.values(lab.portMap), 23, 3389])].sort((a, b) => a - b);
  return {
    // Generous time-outs: the lab shares this process and the machine may be busy.
    dns: { servers: [`${lab.dns.host}:${lab.dns.port}`], timeoutMs: 2000, retries: 2 },
    scope: { allowPrivate: true, allow: ['127.0.0.0/8'] },
    discovery: { ctUrl: lab.ctUrl },
    ports: { list: ports, bannerTimeoutMs: 1500 },
    ...extra,
  };
}
