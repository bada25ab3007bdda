import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/lib/config/index.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { buildApp } from '../../src/server/app.ts';
import { openRuntime, type Runtime } from '../../src/server/runtime.ts';
import { createTestDatabase } from './database.ts';

export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';
export const PUBLIC_URL = 'http://perimeter.test';

export interface TestApp {
  app: FastifyInstance;
  runtime: Runtime;
  databaseUrl: string;
  close(): Promise<void>;
}

/** The real app on a fresh database cloned from the migrated template. */
export async function createTestApp(
  env: Record<string, string> = {},
  /** An existing database to use instead of a clone of the template (it is migrated, not dropped). */
  databaseUrl?: string,
): Promise<TestApp> {
  const database = databaseUrl ? { url: databaseUrl, drop: async () => {} } : await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'perimeter-test-data-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    PERIMETER_DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
    PUBLIC_URL,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_AUTH_PER_MINUTE: '10000',
    RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
    ...env,
  });
  const runtime = await openRuntime(config, createLogger('silent'));
  const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance });
  await app.ready();
  return {
    app,
    runtime,
    databaseUrl: database.url,
    async close() {
      await app.close();
      await runtime.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The app of a test file and a SQL client on its database: started before the file's tests, closed
 * after them. Read the fields inside tests and hooks (they are set once the app has started).
 */
export function useTestApp(env: Record<string, string> = {}): { t: TestApp; sql: pg.Client } {
  const state = {} as { t: TestApp; sql: pg.Client };
  beforeAll(async () => {
    state.t = await createTestApp(env);
    state.sql = new pg.Client({ connectionString: state.t.databaseUrl });
    await state.sql.connect();
  });
  afterAll(async () => {
    await state.sql?.end();
    await state.t?.close();
  });
  return state;
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: LightMyRequestResponse['headers'];
}

type Json = Record<string, unknown>;

/** A tiny client over `app.inject()` speaking the API's JSON. */
export function client(app: FastifyInstance, token?: string) {
  const call = async <T = Json>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
  ) => {
    const res = await app.inject({
      method,
      url: `/api${url}`,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body === undefined ? {} : { payload: body as Json }),
    });
    return { status: res.statusCode, body: res.json() as T, headers: res.headers } satisfies ApiResponse<T>;
  };
  return {
    get: <T = Json>(url: string) => call<T>('GET', url),
    post: <T = Json>(url: string, body?: unknown) => call<T>('POST', url, body ?? {}),
    put: <T = Json>(url: string, body?: unknown) => call<T>('PUT', url, body),
    patch: <T = Json>(url: string, body?: unknown) => call<T>('PATCH', url, body),
  };
}

export const PASSWORD = 'correct horse battery staple';

let counter = 0;
export function newUserInput(overrides: Json = {}) {
  counter += 1;
  return {
    first_name: 'Ada',
    last_name: 'Lovelace',
    company: 'Analytical Engines Ltd',
    email: `ada${counter}.${process.pid}@example.com`,
    password1: PASSWORD,
    password2: PASSWORD,
    ...overrides,
  };
}

/** The TOTP code of the step `offsetSteps` away from now. */
export function totpCode(secret: string, offsetSteps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetSteps * 30_000 });
}
