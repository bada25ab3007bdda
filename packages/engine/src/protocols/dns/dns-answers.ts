import type { DnsQueryResult } from './dns-client.ts';

/**
 * The answers of one template run's DNS questions, so that templates asking the same question
 * of the same name (the dangling-CNAME checks all ask `{{FQDN}} CNAME`; the SPF and DMARC ones
 * `MX`) send it once: the next asker gets the first one's answer — in flight or arrived — and
 * takes no rate slot. nuclei clusters only identical one-request templates; this also covers
 * the first request of multi-request ones. A question is answered from here for `maxAgeMs` at
 * most (a recursive resolver would answer from its cache within the record's TTL anyway); a
 * failed question is asked again by the next template.
 */
export class DnsAnswers {
  private readonly entries = new Map<string, { at: number; answer: Promise<DnsQueryResult> }>();

  constructor(
    private readonly maxAgeMs = 30_000,
    private readonly maxEntries = 4096,
  ) {}

  /** The answer to `key`'s question: a fresh one from `ask`, or the one already asked. */
  get(key: string, ask: () => Promise<DnsQueryResult>): Promise<DnsQueryResult> {
    const now = performance.now();
    const known = this.entries.get(key);
    if (known && now - known.at <= this.maxAgeMs) return known.answer;
    if (known) this.entries.delete(key);
    const answer = ask();
    this.entries.set(key, { at: now, answer });
    answer.catch(() => {
      if (this.entries.get(key)?.answer === answer) this.entries.delete(key);
    });
    // Oldest first: the jobs go template by template over a batch of inputs, so a question
    // comes back within a few hundred of the others.
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return answer;
  }
}
