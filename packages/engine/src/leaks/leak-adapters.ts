import { type LeakCipher, maskPassword } from './leak-crypto.ts';
import { LeakHttpClient, type LeakHttpOptions } from './leak-http.ts';
import { type LeakRecord, type LeakSource, LeakSourceError } from './leak-types.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export interface AdapterOptions extends Partial<Omit<LeakHttpOptions, 'apiKey'>> {
  apiKey: string;
  /** Encrypts clear passwords the provider returns (for storage at rest). */
  cipher?: LeakCipher;
}

function withPassword(record: LeakRecord, password: string | undefined, cipher?: LeakCipher): LeakRecord {
  if (!password) return record;
  record.passwordMasked = maskPassword(password);
  if (cipher) {
    record.passwordDigest = cipher.digest(password);
    record.passwordEncrypted = cipher.encrypt(password);
  }
  return record;
}

/**
 * Have I Been Pwned API v3: `breacheddomain/{domain}` (aliases → breach names, needs a
 * verified domain) and `breachedaccount/{account}`; breach dates from `breach/{name}`.
 * HIBP gives no passwords. Rate limit: by subscription (default 10 requests a minute).
 */
export class HibpSource implements LeakSource {
  readonly name = 'hibp';
  private readonly http: LeakHttpClient;
  private readonly breachDates = new Map<string, Promise<{ title: string; date?: string }>>();

  constructor(private readonly options: AdapterOptions) {
    this.http = new LeakHttpClient(
      'Have I Been Pwned',
      { baseUrl: 'https://haveibeenpwned.com/api/v3', minIntervalMs: 6000, ...options },
      {
        401: 'Have I Been Pwned: API key rejected (401 Unauthorized) — set a valid hibp-api-key',
        403: 'Have I Been Pwned: forbidden (403) — the domain is not verified for this key, or no user agent was sent',
        429: 'Have I Been Pwned: rate limit of the subscription reached (429)',
      },
    );
  }

  private headers(): Record<string, string> {
    return { 'hibp-api-key': this.options.apiKey };
  }

  private breach(name: string, signal?: AbortSignal): Promise<{ title: string; date?: string }> {
    let p = this.breachDates.get(name);
    if (!p) {
      p = this.http
        .json(
          `/breach/${encodeURIComponent(name)}`,
          { headers: this.headers(), notFoundIsEmpty: true },
          signal,
        )
        .then((b) => {
          const o = obj(b);
          const date = str(o.BreachDate);
          return { title: str(o.Title) ?? name, ...(date ? { date } : {}) };
        })
        .catch(() => ({ title: name }));
      this.breachDates.set(name, p);
    }
    return p;
  }

  async searchDomain(domain: string, signal?: AbortSignal): Promise<LeakRecord[]> {
    const body = await this.http.json(
      `/breacheddomain/${encodeURIComponent(domain)}`,
      { headers: this.headers(), notFoundIsEmpty: true },
      signal,
    );
    const out: LeakRecord[] = [];
    for (const [alias, names] of Object.entries(obj(body))) {
      for (const name of arr(names).map((n) => String(n))) {
        const b = await this.breach(name, signal);
        out.push({
          email: `${alias.toLowerCase()}@${domain.toLowerCase()}`,
          sources: [b.title],
          ...(b.date ? { leakDate: b.date } : {}),
        });
      }
    }
    return out;
  }

  async searchEmail(email: string, signal?: AbortSignal): Promise<LeakRecord[]> {
    const body = await this.http.json(
      `/breachedaccount/${encodeURIComponent(email)}?truncateResponse=false`,
      { headers: this.headers(), notFoundIsEmpty: true },
      signal,
    );
    return arr(body).map((b) => {
      const o = obj(b);
      const date = str(o.BreachDate);
      return {
        email: email.toLowerCase(),
        sources: [str(o.Title) ?? str(o.Name) ?? 'unknown'],
        ...(date ? { leakDate: date } : {}),
      };
    });
  }
}

/** LeakCheck API v2: `GET /api/v2/query/{domain}?type=domain` with `X-API-Key`. 3 requests/s. */
export class LeakCheckSource implements LeakSource {
  readonly name = 'leakcheck';
  private readonly http: LeakHttpClient;

  constructor(private readonly options: AdapterOptions) {
    this.http = new LeakHttpClient(
      'LeakCheck',
      { baseUrl: 'https://leakcheck.io', minIntervalMs: 350, ...options },
      {
        401: 'LeakCheck: API key missing or invalid (401) — set the X-API-Key in the configuration',
        403: 'LeakCheck: plan limit reached or no active plan for domain search (403)',
        429: 'LeakCheck: too many requests (429) — the API allows 3 requests a second',
      },
    );
  }

  private async query(q: string, type: 'domain' | 'email', signal?: AbortSignal): Promise<LeakRecord[]> {
    const out: LeakRecord[] = [];
    const limit = 1000;
    for (let offset = 0; offset <= 2500; offset += limit) {
      const body = obj(
        await this.http.json(
          `/api/v2/query/${encodeURIComponent(q)}?type=${type}&limit=${limit}&offset=${offset}`,
          { headers: { 'X-API-Key': this.options.apiKey } },
          signal,
        ),
      );
      if (body.success === false)
        throw new LeakSourceError(
          'LeakCheck',
          'bad_response',
          `LeakCheck: ${str(body.error) ?? 'query failed'}`,
        );
      const rows = arr(body.result).map(obj);
      for (const row of rows) {
        const email = str(row.email);
        if (!email) continue;
        const source = obj(row.source);
        const date = str(source.breach_date);
        out.push(
          withPassword(
            {
              email: email.toLowerCase(),
              sources: [str(source.name) ?? 'unknown'],
              ...(date ? { leakDate: date } : {}),
            },
            str(row.password),
            this.options.cipher,
          ),
        );
      }
      if (rows.length < limit) break;
    }
    return out;
  }

  searchDomain(domain: string, signal?: AbortSignal): Promise<LeakRecord[]> {
    return this.query(domain, 'domain', signal);
  }

  searchEmail(email: string, signal?: AbortSignal): Promise<LeakRecord[]> {
    return this.query(email, 'email', signal);
  }
}

/** DeHashed API v2: `POST /v2/search` `{ query: "domain:x", page, size }` with `Dehashed-Api-Key`. */
export class DehashedSource implements LeakSource {
  readonly name = 'dehashed';
  private readonly http: LeakHttpClient;

  constructor(private readonly options: AdapterOptions & { pageSize?: number; maxResults?: number }) {
    this.http = new LeakHttpClient(
      'DeHashed',
      { baseUrl: 'https://api.dehashed.com', minIntervalMs: 250, ...options },
      {
        401: 'DeHashed: API key rejected (401) — set a valid Dehashed-Api-Key',
        403: 'DeHashed: no credits left or no API subscription (403)',
        429: 'DeHashed: rate limit reached (429) — at most 5 requests a second',
      },
    );
  }

  private async search(query: string, signal?: AbortSignal): Promise<LeakRecord[]> {
    const size = this.options.pageSize ?? 1000;
    const max = this.options.maxResults ?? 10000;
    const out: LeakRecord[] = [];
    for (let page = 1; (page - 1) * size < max; page++) {
      const body = obj(
        await this.http.json(
          '/v2/search',
          {
            method: 'POST',
            headers: { 'Dehashed-Api-Key': this.options.apiKey },
            body: { query, page, size, de_dupe: true },
          },
          signal,
        ),
      );
      const entries = arr(body.entries).map(obj);
      for (const e of entries) {
        const passwords = arr(e.password).map(String).filter(Boolean);
        for (const email of arr(e.email)
          .map(String)
          .filter((x) => x.includes('@'))) {
          const base: LeakRecord = {
            email: email.toLowerCase(),
            sources: [str(e.database_name) ?? 'unknown'],
          };
          if (passwords.length === 0) out.push(base);
          for (const p of passwords)
            out.push(withPassword({ ...base, sources: [...base.sources] }, p, this.options.cipher));
        }
      }
      const total = typeof body.total === 'number' ? body.total : 0;
      if (entries.length < size || page * size >= total) break;
    }
    return out;
  }

  searchDomain(domain: string, signal?: AbortSignal): Promise<LeakRecord[]> {
    return this.search(`domain:${domain}`, signal);
  }

  searchEmail(email: string, signal?: AbortSignal): Promise<LeakRecord[]> {
    return this.search(`email:"${email}"`, signal);
  }
}
