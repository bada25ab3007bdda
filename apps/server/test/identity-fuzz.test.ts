import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, newUserInput, type TestApp } from './support/app.ts';

/**
 * Property: no generated malformed request to an identity endpoint gets a 5xx, and a rejected
 * request leaves the database exactly as it was.
 */

const ENDPOINTS: Array<{ method: 'GET' | 'POST' | 'PUT'; url: string; fields: string[] }> = [
  {
    method: 'POST',
    url: '/users/auth/registration/',
    fields: ['first_name', 'last_name', 'company', 'email', 'password1', 'password2'],
  },
  { method: 'POST', url: '/users/auth/registration/resend-email/', fields: ['email'] },
  { method: 'POST', url: '/account/confirm-email/verify/{s}/', fields: [] },
  { method: 'POST', url: '/users/auth/login/', fields: ['email', 'password'] },
  { method: 'POST', url: '/users/auth/login/code/', fields: ['ephemeral_token', 'code'] },
  { method: 'POST', url: '/users/token/refresh/', fields: ['refresh'] },
  { method: 'POST', url: '/users/token/refresh', fields: ['refresh'] },
  { method: 'POST', url: '/users/auth/logout/', fields: ['refresh'] },
  { method: 'GET', url: '/users/user', fields: [] },
  { method: 'GET', url: '/users/user/', fields: [] },
  {
    method: 'PUT',
    url: '/users/user/',
    fields: ['first_name', 'last_name', 'company', 'tz', 'language', 'notifications'],
  },
  { method: 'POST', url: '/users/agreement_confirm', fields: ['accepted'] },
  { method: 'POST', url: '/users/auth/app/activate/confirm/', fields: ['code'] },
  { method: 'POST', url: '/users/auth/app/deactivate/', fields: ['code'] },
  {
    method: 'POST',
    url: '/users/auth/password/change/',
    fields: ['old_password', 'new_password1', 'new_password2'],
  },
  { method: 'POST', url: '/users/auth/password/reset/', fields: ['email'] },
  {
    method: 'POST',
    url: '/account/password/reset/confirm/{s}/{s}/',
    fields: ['new_password1', 'new_password2'],
  },
];

const TABLES = [
  'users',
  'email_verifications',
  'password_resets',
  'refresh_tokens',
  'login_challenges',
  'recovery_codes',
  'mail_outbox',
  'system_settings',
];

let t: TestApp;
let sql: pg.Client;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
  const input = newUserInput();
  await client(t.app).post('/users/auth/registration/', input);
  const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
    email: input.email,
    password: input.password1,
  });
  token = login.body.data.access;
});

afterAll(async () => {
  await sql?.end();
  await t?.close();
});

async function snapshot(): Promise<string> {
  const parts = await Promise.all(
    TABLES.map(
      async (table) =>
        (
          await sql.query(
            `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from ${table} t`,
          )
        ).rows[0].h,
    ),
  );
  return parts.join(',');
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const weirdString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '../../etc/passwd', "' or 1=1 --", '<script>', 'a'.repeat(2000)),
);

/** Bodies that are malformed in different ways: wrong shapes, wrong types, unknown keys, raw text. */
const bodyFor = (fields: string[]) =>
  fc.oneof(
    jsonValue.map((v) => ({ kind: 'json' as const, payload: JSON.stringify(v) })),
    fc
      .record(Object.fromEntries(fields.map((f) => [f, fc.oneof(jsonValue, weirdString)])), {
        requiredKeys: [],
      })
      .chain((rec) =>
        fc.dictionary(weirdString, jsonValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...rec })),
      )
      .map((v) => ({ kind: 'json' as const, payload: JSON.stringify(v) })),
    weirdString.map((s) => ({ kind: 'raw' as const, payload: s })),
  );

const headersArb = fc.record(
  {
    authorization: fc.oneof(
      weirdString,
      weirdString.map((s) => `Bearer ${s}`),
      fc.constant('AUTH'),
    ),
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/json; charset=latin1',
      'garbage/!!',
    ),
    'accept-language': weirdString,
    'x-request-id': weirdString,
  },
  { requiredKeys: ['content-type'] },
);

const queryArb = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.oneof(weirdString, fc.array(weirdString, { maxLength: 3 })),
  { maxKeys: 3 },
);

describe('identity endpoints under malformed input', () => {
  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.method} ${endpoint.url}: no 5xx, nothing changed when rejected`, async () => {
      await fc.assert(
        fc.asyncProperty(
          bodyFor(endpoint.fields),
          headersArb,
          queryArb,
          weirdString,
          async (body, headers, query, segment) => {
            const url = endpoint.url.replaceAll('{s}', encodeURIComponent(segment) || 'x');
            const authorization =
              headers.authorization === 'AUTH' ? `Bearer ${token}` : (headers.authorization ?? undefined);
            const before = await snapshot();
            const res = await t.app.inject({
              method: endpoint.method,
              url: `/api${url}`,
              query: query as Record<string, string | string[]>,
              headers: {
                ...headers,
                ...(authorization === undefined ? {} : { authorization }),
              },
              ...(endpoint.method === 'GET' ? {} : { payload: body.payload }),
            });
            expect(res.statusCode, `${res.statusCode} ${res.body}`).toBeLessThan(500);
            if (res.statusCode >= 400) {
              expect(res.json()).toMatchObject({ detail: expect.any(String), code: expect.any(String) });
              expect(await snapshot()).toBe(before);
            }
          },
        ),
        { numRuns: 200 },
      );
    }, 120_000);
  }
});
