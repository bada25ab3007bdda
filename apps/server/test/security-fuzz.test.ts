import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../src/lib/queue.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { signUp } from './support/scan-lab.ts';

/**
 * Every route the API publishes (read from its own OpenAPI document, so a new route is fuzzed
 * without being listed here) gets NUL bytes, lone surrogates, over-long strings and wrong types
 * in its path, query and body: never a 5xx, always the API's error shape; and a NUL or a lone
 * surrogate in any declared string field is a 400 from the shared validation.
 */
let t: TestApp;
let boss: PgBoss;
let token: string;

interface Operation {
  method: string;
  path: string;
  query: string[];
  body: string[];
  hasBody: boolean;
}

let operations: Operation[] = [];

type Schema = { type?: string; properties?: Record<string, Schema>; anyOf?: Schema[]; oneOf?: Schema[] };

function propertiesOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const all = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return [...new Set(all.flatMap((s) => Object.keys(s.properties ?? {})))];
}

beforeAll(async () => {
  // DNS goes to a closed loopback port: nothing a route does can reach past this machine.
  t = await createTestApp({ PERIMETER_DNS_SERVERS: '127.0.0.1:9' });
  boss = await startQueue(t.databaseUrl, createLogger('silent'));
  token = (await signUp(t, 'enterprise')).token;
  const spec = t.app.swagger() as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { in: string; name: string }[];
          requestBody?: { content?: Record<string, { schema?: Schema }> };
        }
      >
    >;
  };
  operations = Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const bodySchema = Object.values(op.requestBody?.content ?? {})[0]?.schema;
      return {
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: propertiesOf(bodySchema),
        hasBody: op.requestBody !== undefined,
      };
    }),
  );
});

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await t?.close();
});

const BAD = ['\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy', '\uDC00\uD800', 'a'.repeat(70_000)];
const hostile = fc.oneof(
  { arbitrary: fc.constantFrom(...BAD), weight: 8 },
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);
const queryValue = fc.oneof(
  { arbitrary: fc.constantFrom(...BAD), weight: 4 },
  fc.string({ maxLength: 20 }),
  fc.array(fc.constantFrom(...BAD, 'x', '1'), { minLength: 2, maxLength: 3 }),
);

/**
 * Percent-encoding as a hostile client would send it: a lone surrogate goes out as the bytes
 * of its WTF-8 form (invalid UTF-8), which the server decodes to U+FFFD.
 */
function encode(value: string): string {
  return value.replace(/[\uD800-\uDFFF]|[^\uD800-\uDFFF]+/g, (part) => {
    if (part.length === 1 && part >= '\uD800' && part <= '\uDFFF') {
      const c = part.charCodeAt(0);
      return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    }
    return encodeURIComponent(part);
  });
}

function urlFor(path: string, segment: string): string {
  return `/api${path.replace(/\{[^}]+\}/g, () => encode(segment) || 'x')}`;
}

function withQuery(url: string, query: Record<string, unknown>): string {
  const pairs = Object.entries(query).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((item) => `${encode(k)}=${encode(String(item))}`),
  );
  return pairs.length ? `${url}?${pairs.join('&')}` : url;
}

async function send(op: Operation, url: string, query: Record<string, unknown>, payload: unknown) {
  return t.app.inject({
    method: op.method as 'GET',
    url: withQuery(url, query),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(op.hasBody ? { payload: JSON.stringify(payload) } : {}),
  });
}

describe('every endpoint under hostile input', () => {
  it('publishes enough routes to be worth fuzzing', () => {
    expect(operations.length).toBeGreaterThan(40);
  });

  it('never answers 5xx (NUL, lone surrogates, over-long strings, wrong types)', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...BAD, 'x', '00000000-0000-0000-0000-000000000000'),
          fc.dictionary(fc.constantFrom(...op.query, 'extra'), queryValue, { maxKeys: 3 }),
          fc.oneof(
            fc.dictionary(fc.constantFrom(...op.body, 'extra', '__proto__'), hostile, { maxKeys: 4 }),
            hostile,
          ),
          async (segment, query, body) => {
            const res = await send(op, urlFor(op.path, segment), query, body);
            if (res.statusCode >= 500)
              failures.push(`${op.method} ${op.path} → ${res.statusCode} ${res.body}`);
            expect(res.statusCode, `${op.method} ${op.path}: ${res.body}`).toBeLessThan(500);
            if (res.statusCode >= 400)
              expect(res.json()).toMatchObject({ detail: expect.any(String), code: expect.any(String) });
          },
        ),
        { numRuns: 15 },
      );
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('answers 400 to a NUL byte (anywhere) or a lone surrogate (in a JSON body) in any declared field', async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      for (const bad of ['a\u0000b', 'x\uD800']) {
        // In a URL a lone surrogate can only arrive as invalid UTF-8, which becomes U+FFFD.
        const inUrl = !bad.includes('\uD800');
        for (const field of inUrl ? op.query : []) {
          const res = await send(op, urlFor(op.path, 'x'), { [field]: bad }, {});
          if (res.statusCode !== 400) wrong.push(`${op.method} ${op.path} ?${field} → ${res.statusCode}`);
        }
        for (const field of op.body) {
          const res = await send(op, urlFor(op.path, 'x'), {}, { [field]: bad });
          if (res.statusCode !== 400) wrong.push(`${op.method} ${op.path} .${field} → ${res.statusCode}`);
        }
        if (inUrl && op.path.includes('{')) {
          const res = await send(op, urlFor(op.path, bad), {}, {});
          if (res.statusCode !== 400) wrong.push(`${op.method} ${op.path} {path} → ${res.statusCode}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
