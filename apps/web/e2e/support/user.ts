import * as OTPAuth from 'otpauth';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TServer } from './server.ts';
import type { startSmtp } from './smtp.ts';

export type TApiCall = <T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
) => Promise<{ status: number; data: T; raw: unknown }>;

export type TPreparedUser = {
  email: string;
  password: string;
  call: TApiCall;
  signIn: (page: Page) => Promise<void>;
};

/**
 * A user onboarded through the API (register, verify the mailed link, accept the terms, time zone,
 * 2FA): the journeys that are not about onboarding start from here; journey.e2e.ts covers its UI.
 */
export async function prepareUser(
  server: TServer,
  smtp: Awaited<ReturnType<typeof startSmtp>>,
  email: string,
  password = 'correct-horse-battery-9',
): Promise<TPreparedUser> {
  let access = '';
  let refresh = '';
  const call: TApiCall = async (method, url, body) => {
    const res = await fetch(`${server.url}/api${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(access ? { authorization: `Bearer ${access}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { data: never };
    return { status: res.status, data: json.data, raw: json };
  };

  const reg = await call('POST', '/users/auth/registration/', {
    first_name: 'Ada',
    last_name: 'Lovelace',
    company: 'Engines',
    email,
    password1: password,
    password2: password,
  });
  expect(reg.status).toBe(201);
  const [, key] = await smtp.waitFor(email, /\/account\/confirm-email\/verify\/([^\s"'<>/]+)/);
  expect((await call('POST', `/account/confirm-email/verify/${key}/`)).status).toBe(200);
  const login = await call<{ access: string; refresh: string }>('POST', '/users/auth/login/', {
    email,
    password,
  });
  access = login.data.access;
  refresh = login.data.refresh;
  expect((await call('POST', '/users/agreement_confirm', { accepted: true })).status).toBe(200);
  expect((await call('PUT', '/users/user/', { tz: 'Europe/Berlin' })).status).toBe(200);
  const activate = await call<{ secret: string }>('POST', '/users/auth/app/activate/');
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(activate.data.secret) });
  expect((await call('POST', '/users/auth/app/activate/confirm/', { code: totp.generate() })).status).toBe(
    200,
  );
  if ((await call('GET', '/users/user')).status !== 200) {
    // Sessions were renewed by the 2FA change: sign in again with a code of the next time step.
    const counter = totp.counter();
    while (totp.counter() === counter) await new Promise((r) => setTimeout(r, 500));
    access = '';
    const l = await call<{ ephemeral_token: string }>('POST', '/users/auth/login/', { email, password });
    const s = await call<{ access: string; refresh: string }>('POST', '/users/auth/login/code/', {
      ephemeral_token: l.data.ephemeral_token,
      code: totp.generate(),
    });
    access = s.data.access;
    refresh = s.data.refresh;
  }

  /** Puts the session into the browser's storage, as the sign-in page does. */
  async function signIn(page: Page) {
    await page.goto(`${server.url}/login`);
    await page.evaluate(
      ({ a, r }) => {
        localStorage.setItem('accessToken', a);
        localStorage.setItem('refreshToken', r);
        localStorage.setItem('agreementAccepted', 'true');
      },
      { a: access, r: refresh },
    );
  }
  return { email, password, call, signIn };
}
