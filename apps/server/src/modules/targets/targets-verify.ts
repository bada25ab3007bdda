import http from 'node:http';
import https from 'node:https';
import type { TTargetType } from '@perimeter/contracts';
import { DnsResolver, txtValues } from '@perimeter/engine';
import type { TEnv } from '../../lib/config/index.ts';
import { verificationFileUrls, verificationRecordNames, verificationValue } from './targets-fns.ts';

export interface ProofResult {
  verified: boolean;
  detail: string;
  /** No answer at all (time-outs, refused connections): the proof may still be there. */
  inconclusive?: boolean;
}

/** `PERIMETER_DNS_SERVERS` as a list (empty = the system resolver). */
export function dnsServers(env: TEnv): string[] {
  return (env.PERIMETER_DNS_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Looks for the ownership proof of a target: a TXT record (domains, networks) or a file (peers). */
export async function checkOwnershipProof(
  env: TEnv,
  target: { targetType: string; value: string; verificationToken: string },
): Promise<ProofResult> {
  const type = target.targetType as TTargetType;
  const expected = verificationValue(target.verificationToken);
  if (type === 'peer') return checkFile(target.value, expected);
  const names = verificationRecordNames(type, target.value);
  const resolver = new DnsResolver({ servers: dnsServers(env), timeoutMs: 2000, retries: 1 });
  const problems: string[] = [];
  let answered = false;
  try {
    for (const name of names) {
      try {
        const response = await resolver.query(name, 'TXT');
        answered = true;
        const values = txtValues(response.answers).map((v) => v.trim());
        if (values.includes(expected)) return { verified: true, detail: `TXT record found on ${name}.` };
        problems.push(
          response.rcode === 'NXDOMAIN' ? `${name} does not exist` : `no matching TXT record on ${name}`,
        );
      } catch (err) {
        problems.push(`${name}: DNS query failed (${(err as Error).message})`);
      }
    }
  } finally {
    resolver.close();
  }
  return {
    verified: false,
    detail: `Verification record not found: ${problems.join('; ')}.`,
    ...(answered ? {} : { inconclusive: true }),
  };
}

async function checkFile(address: string, expected: string): Promise<ProofResult> {
  const problems: string[] = [];
  let answered = false;
  for (const url of verificationFileUrls(address)) {
    try {
      const body = await fetchSmall(url).catch((err: Error) => {
        if (/^HTTP \d+$/.test(err.message)) answered = true;
        throw err;
      });
      answered = true;
      if (body.split(/\r?\n/).some((line) => line.trim() === expected))
        return { verified: true, detail: `Verification file found at ${url}.` };
      problems.push(`${url} does not hold the verification value`);
    } catch (err) {
      problems.push(`${url}: ${(err as Error).message}`);
    }
  }
  return {
    verified: false,
    detail: `Verification file not found: ${problems.join('; ')}.`,
    ...(answered ? {} : { inconclusive: true }),
  };
}

/** GET without redirects, 5 s, at most 4 KiB; the certificate is not checked (the file is the proof). */
function fetchSmall(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith('https:') ? https : http;
    const req = lib.get(url, { timeout: 5000, rejectUnauthorized: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`HTTP ${res.statusCode}`));
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > 4096) req.destroy(new Error('file too large'));
      });
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}
