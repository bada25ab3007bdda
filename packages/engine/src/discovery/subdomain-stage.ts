import { dataOf, txtValues } from '../dns/dns-resolver.ts';
import { mapConcurrent } from '../lib/async.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import { log, ProgressTracker } from '../pipeline/progress.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { isWithinDomain } from '../scope/targets.ts';
import { fetchCtNames } from './certificate-transparency.ts';
import { detectWildcard, isWildcardAnswer } from './wildcard.ts';
import { builtinWordlist, loadWordlist } from './wordlist.ts';
import { attemptZoneTransfer } from './zone-transfer.ts';

const STAGE = 'subdomains';

function soaEmail(rname: string): string | null {
  // hostmaster.example.com → hostmaster@example.com (an escaped dot stays in the local part).
  const m = /^((?:[^.\\]|\\.)+)\.(.+)$/.exec(rname.replace(/\.$/, ''));
  return m?.[1] && m[2] ? `${m[1].replace(/\\\./g, '.')}@${m[2]}`.toLowerCase() : null;
}

/** DNS records of a target domain kept for fingerprints and later stages; e-mails in SOA/DMARC. */
async function* collectDomainRecords(
  ctx: StageContext,
  domain: string,
  answered: { count: number },
): AsyncGenerator<ScanEvent, boolean> {
  const records: Record<string, string[]> = {};
  // One probe first: when the servers do not answer, the other queries would only time out.
  try {
    await ctx.resolver.query(domain, 'SOA', ctx.signal);
    answered.count++;
  } catch {
    yield log('error', STAGE, `the DNS servers did not answer for ${domain}`, 'dns_unreachable', {
      domain,
      servers: ctx.resolver.servers.map((s) => `${s.host}:${s.port}`).join(','),
    });
    return false;
  }
  const types = ['TXT', 'MX', 'NS', 'SOA', 'CAA'] as const;
  await Promise.all(
    types.map(async (type) => {
      try {
        const r = await ctx.resolver.query(domain, type, ctx.signal);
        const answers = r.answers.filter((a) => a.type === type);
        records[type] =
          type === 'TXT'
            ? txtValues(answers)
            : answers.map((a) => {
                const d = dataOf(a) as Record<string, unknown> | string;
                if (typeof d === 'string') return d;
                if (type === 'MX') return String(d.exchange);
                if (type === 'SOA') return `${d.mname} ${d.rname}`;
                return JSON.stringify(d);
              });
      } catch {
        records[type] = [];
      }
    }),
  );
  try {
    records.DMARC = txtValues((await ctx.resolver.query(`_dmarc.${domain}`, 'TXT', ctx.signal)).answers);
  } catch {
    records.DMARC = [];
  }
  ctx.inventory.dnsRecords.set(domain, records);
  const emails: [string, string][] = [];
  for (const soa of records.SOA ?? []) {
    const e = soaEmail(soa.split(' ')[1] ?? '');
    if (e) emails.push([e, 'dns:soa']);
  }
  for (const d of records.DMARC ?? []) {
    for (const m of d.matchAll(/mailto:([^,;\s!]+)/gi))
      if (m[1]) emails.push([m[1].toLowerCase(), 'dns:dmarc']);
  }
  for (const [email, source] of emails) {
    if (!ctx.isInTarget(email.split('@')[1] ?? '')) continue;
    const asset = ctx.inventory.addEmail(email, source);
    if (asset) yield { type: 'asset', asset };
  }
  return true;
}

/**
 * Finds candidate names for every domain target: the domain itself, a zone transfer,
 * certificate transparency, and a wordlist brute force filtered against wildcard answers.
 * Names go to the inventory's pending list; the resolve stage turns them into assets.
 */
export function subdomainStage(): Stage {
  return {
    name: STAGE,
    class: 'class_resources',
    async *run(ctx) {
      const domains = ctx.targets.flatMap((t) => (t.type === 'domain' ? [t.domain] : []));
      if (!domains.length) return;
      const d = ctx.config.discovery ?? {};
      let labels: string[] = [];
      if (d.bruteforce !== false) {
        labels = builtinWordlist();
        if (d.wordlistLimit) labels = labels.slice(0, d.wordlistLimit);
      }
      if (d.wordlistFile) labels = [...new Set([...labels, ...loadWordlist(d.wordlistFile)])];

      const answered = { count: 0 };
      for (const domain of domains) {
        ctx.inventory.addCandidate(domain, 'target');
        const reachable = yield* collectDomainRecords(ctx, domain, answered);
        if (!reachable) continue;

        const wildcard = await detectWildcard(ctx.resolver, domain, ctx.signal);
        ctx.inventory.wildcards.set(domain, wildcard);
        if (wildcard.isWildcard) {
          yield log(
            'info',
            STAGE,
            `${domain} answers any name (wildcard); matching answers are ignored`,
            'wildcard_zone',
            {
              domain,
              addresses: [...wildcard.addresses].join(','),
            },
          );
        }

        if (d.axfr !== false) {
          const axfr = await attemptZoneTransfer(ctx.resolver, ctx.policy, domain, ctx.signal);
          if (axfr) {
            yield log('warn', STAGE, `zone transfer of ${domain} allowed by ${axfr.server}`, 'axfr_allowed', {
              domain,
              server: axfr.server,
              names: axfr.names.length,
            });
            for (const n of axfr.names) if (isWithinDomain(n, domain)) ctx.inventory.addCandidate(n, 'axfr');
          }
        }

        if (d.ctUrl) {
          try {
            const names = await fetchCtNames(d.ctUrl, domain, ctx.signal);
            yield log(
              'info',
              STAGE,
              `${names.length} names for ${domain} from certificate transparency`,
              'ct_names',
              {
                domain,
                names: names.length,
              },
            );
            for (const n of names) ctx.inventory.addCandidate(n, 'ct');
          } catch (e) {
            yield log(
              'warn',
              STAGE,
              `certificate transparency lookup failed: ${(e as Error).message}`,
              'ct_failed',
            );
          }
        }
      }

      if (!labels.length) return;
      // Thousands of queries to servers that answer nothing would only time out.
      if (answered.count === 0) return;
      const reachableDomains = domains.filter((dom) => ctx.inventory.dnsRecords.has(dom));
      const work = reachableDomains.flatMap((domain) => labels.map((l) => `${l}.${domain}`));
      const progress = new ProgressTracker(STAGE, work.length);
      let done = 0;
      const found = mapConcurrent(
        work,
        d.concurrency ?? 200,
        async (name) => {
          try {
            return await ctx.resolver.resolveHost(name, ctx.signal, ['A']);
          } catch {
            return null;
          }
        },
        ctx.signal,
      );
      for await (const r of found) {
        done++;
        if (r && (r.addresses.length || r.cnames.length)) {
          const domain = domains.find((dom) => isWithinDomain(r.name, dom)) ?? '';
          if (!isWildcardAnswer(r, ctx.inventory.wildcards.get(domain)))
            ctx.inventory.addCandidate(r.name, 'bruteforce');
        }
        const p = progress.tick(done);
        if (p) yield p;
      }
    },
  };
}
