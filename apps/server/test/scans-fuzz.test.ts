import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../src/lib/queue.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { seedScan, signUp } from './support/scan-lab.ts';

/**
 * Property: at least 200 malformed (or half-right) bodies and queries per targets, scans and
 * events endpoint never get a 5xx, and every 4xx has the API's error shape.
 */
let t: TestApp;
let boss: PgBoss;
let token: string;
let seeded: Awaited<ReturnType<typeof seedScan>>;

beforeAll(async () => {
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
  boss = await startQueue(t.databaseUrl, createLogger('silent'));
  const user = await signUp(t, 'business');
  token = user.token;
  seeded = await seedScan(t, user.api, user.userId);
});

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
});

const weirdString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '\u0000', "' or 1=1 --", '%', '_', '\\', 'a'.repeat(400), '-1', '1e309', 'NaN'),
);
const json = fc.jsonValue({ maxDepth: 2 });

/** Values near the valid ones: enum members, ids (own ones only where safe), numbers, filter objects. */
function plausible(ownIds: boolean) {
  const ids = ownIds ? () => [seeded.targetId, seeded.scanId, ...Object.values(seeded.events)] : () => [];
  return fc.oneof(
    fc.constantFrom(
      'domain',
      'peer',
      'network',
      'full',
      'custom',
      'exploit_scanner',
      'exploit_db',
      'leakcheck',
      'class_exploitation',
      'class_resources',
      'class_information_gathering',
      'severity',
      'add_ts',
      'name',
      'cve',
      'email',
      'asc',
      'ascend',
      'desc',
      'true',
      'false',
      'with',
      'without',
      'false_positive',
      'fixed',
      'done',
      'running',
      '00000000-0000-0000-0000-000000000000',
    ),
    fc.uuid(),
    fc.constant(null).chain(() => (ids().length ? fc.constantFrom(...ids()) : fc.uuid())),
    fc.integer({ min: -5, max: 200 }),
    fc.boolean(),
    fc.record(
      {
        subdomain_filter: weirdString,
        domain_filter: weirdString,
        email_filter: weirdString,
        name_filter: weirdString,
        is_contains: fc.oneof(fc.boolean(), json),
      },
      { requiredKeys: [] },
    ),
    fc.array(fc.oneof(fc.constantFrom('critical', 'high', 'informational', 'info'), weirdString), {
      maxLength: 4,
    }),
    fc.array(
      fc.record({
        target_type: fc.constantFrom('domain', 'peer', 'x'),
        user_target_id: fc.oneof(fc.uuid(), weirdString),
      }),
      { maxLength: 3 },
    ),
    weirdString,
    json,
  );
}

interface Endpoint {
  method: 'GET' | 'POST';
  url: string;
  body?: string[];
  query?: string[];
  /** Own ids are safe only where no network check can follow. */
  ownIds?: boolean;
}

const EVENT_FIELDS = [
  'severity',
  'targets_type',
  'scan_class',
  'scan_subclass',
  'sort_key',
  'sort_order',
  'subdomain_filter_opt',
  'main_domain_filter_opt',
  'hide_resolved',
  'vulnerabilities_existence',
  'leak_email_password',
  'email_filter_opt',
];
const REF = ['target_type', 'user_target_id'];

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', url: '/main/user_target/get_targets', query: ['targets_type', 'disabled'], ownIds: true },
  { method: 'POST', url: '/main/user_target/add_targets', body: ['targets'] },
  {
    method: 'GET',
    url: '/main/user_target/get_extend_targets_info',
    query: ['targets_type', 'disabled'],
    ownIds: true,
  },
  { method: 'GET', url: '/main/user_target/get_info_by_id', query: REF, ownIds: true },
  { method: 'POST', url: '/main/user_target/get_verification_txt', body: REF, ownIds: true },
  { method: 'POST', url: '/main/user_target/check_verification', body: REF },
  { method: 'POST', url: '/main/user_target/disable_verification', body: REF },
  { method: 'POST', url: '/main/user_target/disable', body: REF },
  { method: 'POST', url: '/main/create_abstract_scan', body: ['targets', 'scan_type', 'custom_scan_config'] },
  { method: 'POST', url: '/main/start_created_abstract_scan', body: ['id'] },
  { method: 'POST', url: '/main/cancel_running_abstract_scan', body: ['id'], ownIds: true },
  { method: 'GET', url: '/main/get_abstract_scan', query: ['id'], ownIds: true },
  {
    method: 'GET',
    url: '/main/get_user_abstract_scans_stats',
    query: [
      'limit',
      'offset',
      'targets_type',
      'status',
      'filter_user_target_id',
      'filter_target_type',
      'custom_scan_config',
      'sort_key',
      'sort_order',
    ],
    ownIds: true,
  },
  { method: 'GET', url: '/main/get_user_abstract_scan_progress', query: ['id'], ownIds: true },
  {
    method: 'GET',
    url: '/main/get_last_user_abstract_scan_progress',
    query: ['user_target_id', 'targets_type'],
    ownIds: true,
  },
  {
    method: 'POST',
    url: '/main/get_one_user_abstract_scan_scope',
    body: ['id', 'targets_type', 'sort_order', 'name_filter_opt'],
    query: ['limit', 'offset'],
    ownIds: true,
  },
  {
    method: 'POST',
    url: '/main/get_all_user_abstract_scan_events',
    body: EVENT_FIELDS,
    query: ['limit', 'offset'],
    ownIds: true,
  },
  {
    method: 'POST',
    url: '/main/get_one_user_abstract_scan_events',
    body: ['id', ...EVENT_FIELDS],
    query: ['limit', 'offset'],
    ownIds: true,
  },
  {
    method: 'POST',
    url: '/main/resolve_abstract_scan_event',
    body: ['scan_subclass', 'event_id', 'reason'],
    ownIds: true,
  },
  {
    method: 'POST',
    url: '/main/unresolve_abstract_scan_event',
    body: ['scan_subclass', 'event_id'],
    ownIds: true,
  },
];

const fieldsRecord = (fields: string[], ownIds: boolean) =>
  fc.record(Object.fromEntries(fields.map((f) => [f, plausible(ownIds)])), { requiredKeys: [] });

const bodyFor = (e: Endpoint) =>
  fc.oneof(
    { weight: 6, arbitrary: fieldsRecord(e.body ?? [], e.ownIds ?? false).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: json.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: weirdString },
  );

const queryFor = (e: Endpoint) =>
  fc.record(
    Object.fromEntries(
      (e.query ?? []).map((f) => [
        f,
        fc.oneof(
          plausible(e.ownIds ?? false).map((v) =>
            typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v),
          ),
          fc.array(fc.oneof(weirdString, fc.constantFrom('domain', 'done', 'running', 'peer')), {
            maxLength: 3,
          }),
        ),
      ]),
    ),
    { requiredKeys: [] },
  );

describe('targets, scans and events endpoints under malformed input', () => {
  for (const e of ENDPOINTS) {
    it(`${e.method} ${e.url}: no 5xx in 200 requests`, async () => {
      let count = 0;
      await fc.assert(
        fc.asyncProperty(
          bodyFor(e),
          queryFor(e),
          fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain'),
          async (payload, query, contentType) => {
            count++;
            const res = await t.app.inject({
              method: e.method,
              url: `/api${e.url}`,
              query: query as Record<string, string | string[]>,
              headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
              ...(e.method === 'GET' ? {} : { payload }),
            });
            expect(res.statusCode, `${res.statusCode} ${res.body}`).toBeLessThan(500);
            if (res.statusCode >= 400)
              expect(res.json()).toMatchObject({ detail: expect.any(String), code: expect.any(String) });
          },
        ),
        { numRuns: 200 },
      );
      expect(count).toBeGreaterThanOrEqual(200);
    }, 120_000);
  }
});
