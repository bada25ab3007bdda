import type { TLoginResponse, TUser } from '@perimeter/contracts';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { client, createTestApp, newUserInput, PASSWORD, type TestApp, totpCode } from './app.ts';
import { startSmtpCapture } from './smtp.ts';

/**
 * The identity tests' shared set-up: one app delivering mail to a capturing SMTP server, a
 * database connection, and the sign-up steps they repeat. Call `useIdentityApp()` once at the
 * top of a test file; `t`, `smtp` and `sql` are live from its `beforeAll` on.
 */
type Smtp = Awaited<ReturnType<typeof startSmtpCapture>>;
export type Session = { access: string; refresh: string; user: TUser };

export let t: TestApp;
export let smtp: Smtp;
export let sql: pg.Client;

export function useIdentityApp() {
  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await createTestApp({ SMTP_URL: smtp.url });
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await t?.close();
    await smtp?.close();
  });
}

export const api = (token?: string) => client(t.app, token);

export async function register(overrides: Record<string, unknown> = {}) {
  const input = newUserInput(overrides);
  const since = smtp.messages.length;
  const res = await api().post('/users/auth/registration/', input);
  expect(res.status).toBe(201);
  return { input, mail: await smtp.waitFor(input.email, since) };
}

export async function login(email: string, password = PASSWORD) {
  return api().post<{ data: TLoginResponse }>('/users/auth/login/', { email, password });
}

export async function signedIn(): Promise<Session & { email: string }> {
  const { input } = await register();
  const res = await login(input.email);
  expect(res.status).toBe(200);
  return { ...(res.body.data as Session), email: input.email };
}

/** Turns two-factor on and returns the secret and recovery codes. */
export async function enableTwoFactor(session: Session) {
  const started = await api(session.access).post<{ data: { secret: string } }>('/users/auth/app/activate/');
  expect(started.status).toBe(200);
  const secret = started.body.data.secret;
  const confirmed = await api(session.access).post<{ data: { recovery_codes: string[] } }>(
    '/users/auth/app/activate/confirm/',
    { code: totpCode(secret) },
  );
  expect(confirmed.status).toBe(200);
  return { secret, recoveryCodes: confirmed.body.data.recovery_codes };
}

export const count = async (table: string) =>
  Number((await sql.query(`select count(*) from ${table}`)).rows[0].count);
