import type { RecordType } from 'dns-packet';
import { type DnsResolver, dataOf, type HostResolution, txtValues } from '../dns/dns-resolver.ts';
import { Channel } from '../lib/async.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import { log, ProgressTracker } from '../pipeline/progress.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { isWithinDomain } from '../scope/targets.ts';
import { fetchCtNames } from './certificate-transparency.ts';
import { detectWildcard, isWildcardAnswer, type WildcardInfo } from './wildcard.ts';
import { builtinWordlist, loadWordlist } from './wordlist.ts';
import { attemptZoneTransfer } from './zone-transfer.ts';

const STAGE = 'subdomains';

function soaEmail(rname: string): string | null {
  // hostmaster.example.com → hostmaster@example.com (an escaped dot stays in the local part).
  const m = /^((?:[^.\\]|\\.)+)\.(.+)$/.exec(rname.replace(/\.$/, ''));
  return m?.[1] && m[2] ? `${m[1].replace(/\\\./g, '.')}@${m[2]}`.toLowerCase() : null;
}

/** One probe of a domain first: when the servers do not answer it, its other queries would only time out. */
async function answersFor(ctx: StageContext, domain: string): Promise<boolean> {
  try {
    await ctx.resolver.query(domain, 'SOA', ctx.signal);
    return true;
  } catch {
    return false;
  }
}

/** DNS records of a target domain kept for fingerprints and later stages; e-mails in SOA/DMARC. */
async function collectDomainRecords(
  ctx: StageContext,
  domain: string,
  events: Channel<ScanEvent>,
): Promise<void> {
  const records: Record<string, string[]> = {};
  const types = ['TXT', 'MX', 'NS', 'SOA', 'CAA'] as const;
  await Promise.all([
    ...types.map(async (type) => {
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
    (async () => {
      try {
        records.DMARC = txtValues((await ctx.resolver.query(`_dmarc.${domain}`, 'TXT', ctx.signal)).answers);
      } catch {
        records.DMARC = [];
      }
    })(),
  ]);
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
    if (asset) events.push({ type: 'asset', asset });
  }
}

async function detectDomainWildcard(
  ctx: StageContext,
  domain: string,
  events: Channel<ScanEvent>,
): Promise<WildcardInfo> {
  const wildcard = await detectWildcard(ctx.resolver, domain, ctx.signal);
  ctx.inventory.wildcards.set(domain, wildcard);
  if (wildcard.isWildcard)
    events.push(
      log(
        'info',
        STAGE,
        `${domain} answers any name (wildcard); matching answers are ignored`,
        'wildcard_zone',
        {
          domain,
          addresses: [...wildcard.addresses].join(','),
        },
      ),
    );
  return wildcard;
}

async function zoneTransferNames(
  ctx: StageContext,
  domain: string,
  events: Channel<ScanEvent>,
): Promise<void> {
  const axfr = await attemptZoneTransfer(ctx.resolver, ctx.policy, domain, ctx.signal);
  if (!axfr) return;
  events.push(
    log('warn', STAGE, `zone transfer of ${domain} allowed by ${axfr.server}`, 'axfr_allowed', {
      domain,
      server: axfr.server,
      names: axfr.names.length,
    }),
  );
  for (const n of axfr.names) if (isWithinDomain(n, domain)) ctx.inventory.addCandidate(n, 'axfr');
}

async function certificateNames(
  ctx: StageContext,
  ctUrl: string,
  domain: string,
  events: Channel<ScanEvent>,
): Promise<void> {
  try {
    const names = await fetchCtNames(ctUrl, domain, ctx.signal);
    events.push(
      log('info', STAGE, `${names.length} names for ${domain} from certificate transparency`, 'ct_names', {
        domain,
        names: names.length,
      }),
    );
    for (const n of names) ctx.inventory.addCandidate(n, 'ct');
  } catch (e) {
    events.push(
      log('warn', STAGE, `certificate transparency lookup failed: ${(e as Error).message}`, 'ct_failed'),
    );
  }
}

/**
 * Resolves each name (type A) with at most `limit` lookups in flight and hands on each name's
 * resolution, or null when its lookup failed, with the count handed on so far. `limit` loops each
 * take the next name when their lookup has ended, until the names run out or the signal aborts; a
 * loop waits for `onResult` (a promise) before its next name. A question costs its lookup and one
 * turn of a loop: the generic concurrent map used before (lib/async's mapConcurrent: a task
 * closure, two reactions, a channel entry and a generator step per item) cost the client more than
 * the lookup's own code, most in a worker process's first scans, before that code is optimised.
 */
export async function resolveNames(
  resolver: Pick<DnsResolver, 'resolveHost'>,
  names: readonly string[],
  limit: number,
  signal: AbortSignal | undefined,
  onResult: (r: HostResolution | null, done: number) => void | Promise<void>,
): Promise<void> {
  let next = 0;
  let done = 0;
  const loop = async (): Promise<void> => {
    while (next < names.length && !signal?.aborted) {
      const name = names[next++] as string;
      let r: HostResolution | null;
      try {
        r = await resolver.resolveHost(name, signal, A_ONLY);
      } catch {
        r = null;
      }
      const handled = onResult(r, ++done);
      if (handled) await handled;
    }
  };
  const loops: Promise<void>[] = [];
  for (let i = 0; i < Math.min(Math.max(1, limit), names.length); i++) loops.push(loop());
  await Promise.all(loops);
}

const A_ONLY: RecordType[] = ['A'];

/** The wordlist under every domain; an answer that is only the domain's wildcard is dropped. */
async function bruteForce(
  ctx: StageContext,
  domains: string[],
  labels: string[],
  wildcards: Map<string, Promise<WildcardInfo>>,
  events: Channel<ScanEvent>,
): Promise<void> {
  const work = domains.flatMap((domain) => labels.map((l) => `${l}.${domain}`));
  const progress = new ProgressTracker(STAGE, work.length);
  const keepIfNotWildcard = async (r: HostResolution, domain: string) => {
    if (!isWildcardAnswer(r, await wildcards.get(domain))) ctx.inventory.addCandidate(r.name, 'bruteforce');
  };
  await resolveNames(ctx.resolver, work, ctx.config.discovery?.concurrency ?? 200, ctx.signal, (r, done) => {
    const p = progress.tick(done);
    if (p) events.push(p);
    if (r && (r.addresses.length || r.cnames.length))
      return keepIfNotWildcard(r, domains.find((dom) => isWithinDomain(r.name, dom)) ?? '');
  });
}

/**
 * Finds candidate names for every domain target: the domain itself, a zone transfer,
 * certificate transparency, and a wordlist brute force filtered against wildcard answers.
 * Names go to the inventory's pending list; the resolve stage turns them into assets.
 *
 * Once a domain's servers answer, its lookups run at once: the records, the wildcard probe,
 * the zone transfer (name servers that drop TCP cost their time-outs), the certificate log
 * (crt.sh often takes seconds) and the brute force (its answers wait only for the wildcard
 * probe's) — one after another, a scan waited for their sum.
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

      for (const domain of domains) ctx.inventory.addCandidate(domain, 'target');
      const answering = await Promise.all(domains.map((domain) => answersFor(ctx, domain)));
      const reachable = domains.filter((_domain, i) => answering[i]);
      for (const domain of domains.filter((_domain, i) => !answering[i]))
        yield log('error', STAGE, `the DNS servers did not answer for ${domain}`, 'dns_unreachable', {
          domain,
          servers: ctx.resolver.servers.map((s) => `${s.host}:${s.port}`).join(','),
        });
      // Thousands of queries to servers that answer nothing would only time out.
      if (!reachable.length) return;

      const events = new Channel<ScanEvent>();
      const wildcards = new Map(
        reachable.map((domain) => [domain, detectDomainWildcard(ctx, domain, events)]),
      );
      const ctUrl = d.ctUrl;
      Promise.all([
        ...reachable.map((domain) => collectDomainRecords(ctx, domain, events)),
        ...wildcards.values(),
        ...(d.axfr !== false ? reachable.map((domain) => zoneTransferNames(ctx, domain, events)) : []),
        ...(ctUrl ? reachable.map((domain) => certificateNames(ctx, ctUrl, domain, events)) : []),
        ...(labels.length ? [bruteForce(ctx, reachable, labels, wildcards, events)] : []),
      ]).then(
        () => events.close(),
        (e) => events.close(e),
      );
      yield* events;
    },
  };
}
