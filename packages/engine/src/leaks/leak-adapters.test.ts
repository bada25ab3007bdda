import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp } from '../../test/template-helpers.ts';
import { DehashedSource, HibpSource, LeakCheckSource } from './leak-adapters.ts';
import { LeakCipher } from './leak-crypto.ts';
import { runLeakStage } from './leak-stage.ts';
import { type LeakRecord, type LeakSource, LeakSourceError } from './leak-types.ts';
import { LocalLeakIndex } from './local-leak-index.ts';

const KEY = 'a'.repeat(64);

// A local server answering with the documented response shapes of the three providers.
let srv: Awaited<ReturnType<typeof startHttp>>;
const seen: { url: string; headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
let rateLimitedOnce = false;

beforeAll(async () => {
  srv = await startHttp((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      const url = req.url ?? '';
      // HIBP v3
      if (url.startsWith('/hibp/')) {
        const key = req.headers['hibp-api-key'];
        if (key === 'bad')
          return json(401, { statusCode: 401, message: 'Access denied due to invalid hibp-api-key.' });
        if (key === 'unverified') return json(403, { statusCode: 403, message: 'Forbidden' });
        if (key === 'busy')
          return json(
            429,
            { statusCode: 429, message: 'Rate limit is exceeded. Try again in 2 seconds.' },
            { 'retry-after': '2' },
          );
        if (url === '/hibp/breacheddomain/acme.test')
          return json(200, { info: ['Adobe'], 'jane.doe': ['Adobe', 'LinkedIn'] });
        if (url === '/hibp/breacheddomain/empty.test') return json(404, {});
        if (url === '/hibp/breach/Adobe')
          return json(200, {
            Name: 'Adobe',
            Title: 'Adobe',
            Domain: 'adobe.com',
            BreachDate: '2013-10-04',
            PwnCount: 152445165,
            DataClasses: ['Email addresses', 'Passwords'],
          });
        if (url === '/hibp/breach/LinkedIn')
          return json(200, {
            Name: 'LinkedIn',
            Title: 'LinkedIn',
            Domain: 'linkedin.com',
            BreachDate: '2012-05-05',
          });
        if (url === '/hibp/breachedaccount/security%40acme.test?truncateResponse=false')
          return json(200, [{ Name: 'Dropbox', Title: 'Dropbox', BreachDate: '2012-07-01' }]);
        return json(404, {});
      }
      // LeakCheck v2
      if (url.startsWith('/leakcheck/api/v2/query/')) {
        const key = req.headers['x-api-key'];
        if (key === 'bad') return json(401, { success: false, error: 'Invalid X-API-Key' });
        if (key === 'noplan') return json(403, { success: false, error: 'Active plan required' });
        if (key === 'busy') {
          if (!rateLimitedOnce) {
            rateLimitedOnce = true;
            return json(429, { success: false, error: 'Too many requests' }, { 'retry-after': '0' });
          }
        }
        if (url.startsWith('/leakcheck/api/v2/query/acme.test?type=domain')) {
          return json(200, {
            success: true,
            found: 2,
            quota: 399,
            result: [
              {
                email: 'info@acme.test',
                source: {
                  name: 'BreachedWebsite.net',
                  breach_date: '2019-07',
                  unverified: 0,
                  passwordless: 0,
                  compilation: 0,
                },
                password: 'Summer2019!',
                fields: ['password'],
              },
              {
                email: 'j.smith@acme.test',
                source: {
                  name: 'Forum.example',
                  breach_date: '2016-03',
                  unverified: 0,
                  passwordless: 1,
                  compilation: 0,
                },
                username: 'jsmith',
                fields: ['username'],
              },
            ],
          });
        }
        return json(200, { success: true, found: 0, quota: 399, result: [] });
      }
      // DeHashed v2
      if (url === '/dehashed/v2/search' && req.method === 'POST') {
        const key = req.headers['dehashed-api-key'];
        if (key === 'bad') return json(401, { error: 'Invalid API key' });
        if (key === 'nocredits') return json(403, { error: 'Insufficient credits' });
        const q = JSON.parse(body) as { query: string; page: number; size: number };
        if (q.query !== 'domain:acme.test')
          return json(200, { balance: 10, entries: [], took: '1ms', total: 0 });
        const all = [
          {
            id: '1',
            email: ['info@acme.test'],
            password: ['acme1234'],
            hashed_password: [],
            database_name: 'ForumDump',
          },
          {
            id: '2',
            email: ['hostmaster@acme.test'],
            password: [],
            hashed_password: ['5f4dcc3b5aa765d61d8327deb882cf99'],
            database_name: 'Combo2020',
          },
          {
            id: '3',
            email: ['jane.doe@acme.test', 'JANE@acme.test'],
            password: ['Jane!1985'],
            database_name: 'SaaS',
          },
        ];
        const page = all.slice((q.page - 1) * q.size, q.page * q.size);
        return json(200, { balance: 99, entries: page, took: '12ms', total: all.length });
      }
      json(404, {});
    });
  });
});

afterAll(async () => {
  await srv.close();
});

async function errorOf(p: Promise<unknown>): Promise<LeakSourceError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LeakSourceError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('Have I Been Pwned v3 adapter', () => {
  const hibp = (apiKey: string) =>
    new HibpSource({ apiKey, baseUrl: `${srv.url}/hibp`, minIntervalMs: 0, maxRetryWaitMs: 10, retries: 0 });

  it('lists breached aliases of a domain with breach dates, without passwords', async () => {
    const r = await hibp('good').searchDomain('acme.test');
    expect(r).toEqual([
      { email: 'info@acme.test', sources: ['Adobe'], leakDate: '2013-10-04' },
      { email: 'jane.doe@acme.test', sources: ['Adobe'], leakDate: '2013-10-04' },
      { email: 'jane.doe@acme.test', sources: ['LinkedIn'], leakDate: '2012-05-05' },
    ]);
    const last = seen.at(-1);
    expect(last?.headers['hibp-api-key']).toBe('good');
    expect(last?.headers['user-agent']).toBe('perimeter-scan');
  });

  it('treats 404 as no breaches and looks up single accounts', async () => {
    expect(await hibp('good').searchDomain('empty.test')).toEqual([]);
    expect(await hibp('good').searchEmail('security@acme.test')).toEqual([
      { email: 'security@acme.test', sources: ['Dropbox'], leakDate: '2012-07-01' },
    ]);
  });

  it.each([
    ['bad', 'unauthorized', /401/],
    ['unverified', 'forbidden', /403.*not verified/],
    ['busy', 'rate_limited', /429/],
  ])('maps key %s to %s', async (key, code, message) => {
    const err = await errorOf(hibp(key).searchDomain('acme.test'));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });
});

describe('LeakCheck v2 adapter', () => {
  const lc = (apiKey: string) =>
    new LeakCheckSource({ apiKey, baseUrl: `${srv.url}/leakcheck`, minIntervalMs: 0, maxRetryWaitMs: 10 });

  it('queries a domain and masks and encrypts the passwords it returns', async () => {
    const cipher = new LeakCipher(KEY);
    const r = await new LeakCheckSource({
      apiKey: 'good',
      baseUrl: `${srv.url}/leakcheck`,
      minIntervalMs: 0,
      cipher,
    }).searchDomain('acme.test');
    expect(r.map((x) => [x.email, x.passwordMasked, x.sources, x.leakDate])).toEqual([
      ['info@acme.test', 'S*********!', ['BreachedWebsite.net'], '2019-07'],
      ['j.smith@acme.test', undefined, ['Forum.example'], '2016-03'],
    ]);
    expect(cipher.decrypt(r[0]?.passwordEncrypted as string)).toBe('Summer2019!');
    expect(seen.at(-1)?.headers['x-api-key']).toBe('good');
    expect(seen.at(-1)?.url).toBe('/leakcheck/api/v2/query/acme.test?type=domain&limit=1000&offset=0');
  });

  it('retries once after a 429 with Retry-After', async () => {
    rateLimitedOnce = false;
    const r = await lc('busy').searchDomain('acme.test');
    expect(r).toHaveLength(2);
  });

  it.each([
    ['bad', 'unauthorized', /401/],
    ['noplan', 'forbidden', /403/],
  ])('maps key %s to %s', async (key, code, message) => {
    const err = await errorOf(lc(key).searchDomain('acme.test'));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });
});

describe('DeHashed v2 adapter', () => {
  const dh = (apiKey: string, pageSize = 2) =>
    new DehashedSource({ apiKey, baseUrl: `${srv.url}/dehashed`, minIntervalMs: 0, pageSize });

  it('searches domain:<domain>, pages through results and maps every address and password', async () => {
    const before = seen.length;
    const r = await dh('good').searchDomain('acme.test');
    expect(r.map((x) => [x.email, x.passwordMasked, x.sources])).toEqual([
      ['info@acme.test', 'a******4', ['ForumDump']],
      ['hostmaster@acme.test', undefined, ['Combo2020']],
      ['jane.doe@acme.test', 'J*******5', ['SaaS']],
      ['jane@acme.test', 'J*******5', ['SaaS']],
    ]);
    const calls = seen.slice(before);
    expect(calls).toHaveLength(2);
    expect(JSON.parse(calls[0]?.body ?? '{}')).toEqual({
      query: 'domain:acme.test',
      page: 1,
      size: 2,
      de_dupe: true,
    });
    expect(calls[0]?.headers['dehashed-api-key']).toBe('good');
  });

  it.each([
    ['bad', 'unauthorized', /401/],
    ['nocredits', 'forbidden', /credits/],
  ])('maps key %s to %s', async (key, code, message) => {
    const err = await errorOf(dh(key).searchDomain('acme.test'));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  it('spaces requests by the configured interval', async () => {
    const before = seen.length;
    const started = performance.now();
    await new DehashedSource({
      apiKey: 'good',
      baseUrl: `${srv.url}/dehashed`,
      minIntervalMs: 150,
      pageSize: 1,
    }).searchDomain('acme.test');
    const elapsed = performance.now() - started;
    const calls = seen.slice(before);
    expect(calls).toHaveLength(3);
    // Three requests, each at least 150 ms after the one before: at least 300 ms from the first
    // send (a few ms of timer rounding allowed). A lower bound on the client's own time: a loaded
    // machine only lengthens it, where the gap between the server's arrivals could shrink when
    // the first request's connection was slow (243 ms seen at load 7.9).
    expect(elapsed).toBeGreaterThanOrEqual(295);
  });

  it('reports an unreachable provider clearly', async () => {
    const err = await errorOf(
      new DehashedSource({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1', minIntervalMs: 0 }).searchDomain(
        'acme.test',
      ),
    );
    expect(err.code).toBe('unreachable');
  });
});

describe('leak stage', () => {
  it('yields one finding per e-mail and leak, merges sources, keeps other domains out, and logs source errors', async () => {
    const index = new LocalLeakIndex(KEY);
    index.importCsv(
      'email,password,source,leak date\ninfo@acme.test,Summer2019!,lab-combo-2019,2019-07-14\ninfo@acme.test,acme1234,lab-forum-dump,2016-03-02\nadmin@beta.test,betaAdmin2020,lab-paste-2020,2020-08-09\n',
    );
    const twin: LeakSource = {
      name: 'twin',
      searchDomain: async () => [
        {
          email: 'info@acme.test',
          passwordMasked: 'S*********!',
          sources: ['other-feed'],
          leakDate: '2019-07-14',
          passwordDigest: (await index.searchDomain('acme.test')).find((r) => r.leakDate === '2019-07-14')
            ?.passwordDigest as string,
        } satisfies LeakRecord,
        { email: 'x@elsewhere.test', sources: ['n'] },
      ],
    };
    const broken = new HibpSource({ apiKey: 'bad', baseUrl: `${srv.url}/hibp`, minIntervalMs: 0 });
    const logs: string[] = [];
    const findings = [];
    for await (const f of runLeakStage(
      { domains: ['acme.test'], emails: ['security@acme.test'] },
      { sources: [index, twin, broken], log: (_l, m) => logs.push(m) },
    ))
      findings.push(f);
    expect(findings.map((f) => [f.email, f.password, f.leakDate, f.sources, f.mainDomain])).toEqual([
      ['info@acme.test', 'a******4', '2016-03-02', ['lab-forum-dump'], 'acme.test'],
      ['info@acme.test', 'S*********!', '2019-07-14', ['lab-combo-2019', 'other-feed'], 'acme.test'],
    ]);
    expect(findings[0]?.passwordEncrypted?.startsWith('v1:')).toBe(true);
    expect(logs.some((m) => /401/.test(m))).toBe(true);
    const again = [];
    for await (const f of runLeakStage({ domains: ['acme.test'], emails: [] }, { sources: [index] }))
      again.push(f);
    expect(again.map((f) => f.fingerprint).sort()).toEqual(findings.map((f) => f.fingerprint).sort());
  });
});
