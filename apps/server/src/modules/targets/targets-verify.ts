import type { TTargetType } from '@perimeter/contracts';
import { DnsResolver, type ScopePolicy, txtValues } from '@perimeter/engine';
import type { TEnv } from '../../lib/config/index.ts';
import { guardedRequest, userFetchPolicy } from '../../lib/guarded-request.ts';
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
  if (type === 'peer') return checkFile(target.value, expected, userFetchPolicy(env));
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

async function checkFile(address: string, expected: string, policy: ScopePolicy): Promise<ProofResult> {
  const problems: string[] = [];
  let answered = false;
  for (const url of verificationFileUrls(address)) {
    try {
      const body = await fetchSmall(url, policy).catch((err: Error) => {
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

/** GET through the guarded request: scope policy, no redirects, 5 s, at most 4 KiB. */
async function fetchSmall(url: string, policy: ScopePolicy): Promise<string> {
  const res = await guardedRequest(
    url,
    { method: 'GET', timeoutMs: 5000, maxBytes: 4096, rejectUnauthorized: false },
    policy,
  );
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  return res.body;
}
