import { findingFingerprint, hostNames } from '../findings/evidence.ts';
import type { LeakFinding } from '../findings/types.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { emailFromSoaRname, emailsFromDmarc, isEmailOfDomain } from './email-harvest.ts';
import { type LeakRecord, type LeakSource, LeakSourceError } from './leak-types.ts';

export interface LeakStageInput {
  /** Registrable domains of the target. */
  domains: string[];
  /** Addresses the scan saw (pages, SOA, DMARC), looked up one by one where a source can. */
  emails: string[];
}

export interface LeakStageOptions {
  sources: LeakSource[];
  signal?: AbortSignal;
  /** Where source problems go (401/403/429 messages). */
  log?: (level: 'info' | 'warn', message: string, code?: string) => void;
  /** Look up seen addresses individually with sources that support it (default true). */
  lookupSeenEmails?: boolean;
}

export function leakFinding(record: LeakRecord, mainDomain: string): LeakFinding {
  const sources = [...new Set(record.sources)].sort();
  const f: LeakFinding = {
    subclass: 'leakcheck',
    // The leak is the e-mail with its date and password; sources are only named when the
    // record has neither (HIBP), so a second feed reporting the same leak keeps the key.
    fingerprint: findingFingerprint(
      'leakcheck',
      record.email,
      record.leakDate,
      record.passwordDigest ?? record.passwordMasked ?? '',
      record.leakDate || record.passwordDigest || record.passwordMasked ? '' : sources.join('|'),
    ),
    email: record.email,
    password: record.passwordMasked ?? '',
    sources,
    mainDomain,
  };
  if (record.leakDate) f.leakDate = record.leakDate;
  if (record.passwordEncrypted) f.passwordEncrypted = record.passwordEncrypted;
  return f;
}

/**
 * The leakcheck stage as a plain async generator: a finding per e-mail and leak, merged
 * across sources (the same e-mail, password and date from two sources is one finding).
 */
export async function* runLeakStage(
  input: LeakStageInput,
  options: LeakStageOptions,
): AsyncGenerator<LeakFinding> {
  const log = options.log ?? (() => {});
  const byKey = new Map<string, { record: LeakRecord; domain: string }>();
  const collect = (records: LeakRecord[], domain: string) => {
    for (const r of records) {
      if (!isEmailOfDomain(r.email, domain)) continue;
      const key = `${r.email}|${r.leakDate ?? ''}|${r.passwordDigest ?? r.passwordMasked ?? ''}`;
      const existing = byKey.get(key);
      if (existing) existing.record.sources = [...new Set([...existing.record.sources, ...r.sources])];
      else byKey.set(key, { record: { ...r, sources: [...r.sources] }, domain });
    }
  };
  const domains = [...new Set(input.domains.map((d) => d.toLowerCase()))];
  for (const source of options.sources) {
    for (const domain of domains) {
      if (options.signal?.aborted) return;
      try {
        collect(await source.searchDomain(domain, options.signal), domain);
      } catch (err) {
        if (err instanceof LeakSourceError) log('warn', err.message, `leak_${err.code}`);
        else log('warn', `${source.name}: ${(err as Error).message}`, 'leak_failed');
      }
    }
    if (options.lookupSeenEmails !== false && source.searchEmail) {
      for (const email of new Set(input.emails.map((e) => e.toLowerCase()))) {
        const domain = domains.find((d) => isEmailOfDomain(email, d));
        if (!domain || options.signal?.aborted) continue;
        try {
          collect(await source.searchEmail(email, options.signal), domain);
        } catch (err) {
          if (err instanceof LeakSourceError) {
            log('warn', err.message, `leak_${err.code}`);
            if (err.code === 'unauthorized' || err.code === 'forbidden') break;
          } else log('warn', `${source.name}: ${(err as Error).message}`, 'leak_failed');
        }
      }
    }
  }
  const sorted = [...byKey.values()].sort(
    (a, b) =>
      a.record.email.localeCompare(b.record.email) ||
      (a.record.leakDate ?? '').localeCompare(b.record.leakDate ?? ''),
  );
  for (const { record, domain } of sorted) yield leakFinding(record, hostNames(domain).mainDomain);
}

/** Target domains and the e-mails discovery saw (inventory, SOA rname, DMARC rua/ruf). */
export function leakInputFromContext(ctx: StageContext): LeakStageInput {
  const domains = ctx.targets.flatMap((t) => (t.type === 'domain' ? [t.registrable || t.domain] : []));
  const emails = new Set<string>([...ctx.inventory.emails.keys()]);
  for (const [, records] of ctx.inventory.dnsRecords) {
    for (const soa of records.SOA ?? []) {
      const rname = soa.split(/\s+/)[1];
      const e = rname ? emailFromSoaRname(rname) : undefined;
      if (e) emails.add(e);
    }
    for (const txt of [...(records.TXT ?? []), ...(records.DMARC ?? [])])
      if (/v=DMARC1/i.test(txt)) for (const e of emailsFromDmarc(txt)) emails.add(e);
  }
  return { domains, emails: [...emails] };
}

/** The leakcheck stage in the pipeline's Stage shape. */
export function createLeakStage(options: Omit<LeakStageOptions, 'signal' | 'log'>): Stage {
  return {
    name: 'leaks',
    class: 'class_information_gathering',
    subclass: 'leakcheck',
    async *run(ctx: StageContext): AsyncIterable<ScanEvent> {
      const input = leakInputFromContext(ctx);
      const logs: ScanEvent[] = [];
      let count = 0;
      for await (const finding of runLeakStage(input, {
        ...options,
        signal: ctx.signal,
        log: (level, message, code) =>
          logs.push({ type: 'log', level, stage: 'leaks', ...(code ? { code } : {}), message }),
      })) {
        while (logs.length) yield logs.shift() as ScanEvent;
        count++;
        yield { type: 'finding', finding };
      }
      while (logs.length) yield logs.shift() as ScanEvent;
      yield {
        type: 'log',
        level: 'info',
        stage: 'leaks',
        code: 'leak_summary',
        message: `${count} leaked credential findings for ${input.domains.length} domain(s), ${input.emails.length} address(es) seen`,
      };
    },
  };
}
