import type { TLoginResponse, TUser } from '@perimeter/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  createTestApp,
  newUserInput,
  PASSWORD,
  PUBLIC_URL,
  type TestApp,
  totpCode,
} from './support/app.ts';
import { linkIn, startSmtpCapture } from './support/smtp.ts';

type Smtp = Awaited<ReturnType<typeof startSmtpCapture>>;
type Session = { access: string; refresh: string; user: TUser };

let t: TestApp;
let smtp: Smtp;
let sql: pg.Client;

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

const api = (token?: string) => client(t.app, token);

async function register(overrides: Record<string, unknown> = {}) {
  const input = newUserInput(overrides);
  const since = smtp.messages.length;
  const res = await api().post('/users/auth/registration/', input);
  expect(res.status).toBe(201);
  return { input, mail: await smtp.waitFor(input.email, since) };
}

async function login(email: string, password = PASSWORD) {
  return api().post<{ data: TLoginResponse }>('/users/auth/login/', { email, password });
}

async function signedIn(): Promise<Session & { email: string }> {
  const { input } = await register();
  const res = await login(input.email);
  expect(res.status).toBe(200);
  return { ...(res.body.data as Session), email: input.email };
}

/** Turns two-factor on and returns the secret and recovery codes. */
async function enableTwoFactor(session: Session) {
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

const count = async (table: string) =>
  Number((await sql.query(`select count(*) from ${table}`)).rows[0].count);

describe('registration and e-mail verification', () => {
  it('mails a verification link over SMTP; following it verifies the address once', async () => {
    const { input, mail } = await register();
    expect(mail.subject).toMatch(/confirm/i);
    const link = linkIn(mail, new RegExp(`${PUBLIC_URL}/account/confirm-email/verify/[A-Za-z0-9_-]+`));
    const key = link.split('/').pop()!;

    const first = await login(input.email);
    const session = first.body.data as Session;
    expect(session.user.metadata.email_verified).toBe(false);

    const verified = await api().post(`/account/confirm-email/verify/${key}/`);
    expect(verified.status).toBe(200);
    const me = await api(session.access).get<{ data: TUser }>('/users/user/');
    expect(me.body.data.metadata.email_verified).toBe(true);

    const reused = await api().post(`/account/confirm-email/verify/${key}/`);
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ code: 'link_invalid' });
  });

  it('refuses an expired key and an unknown key', async () => {
    const { input, mail } = await register();
    const key = linkIn(mail, /verify\/[A-Za-z0-9_-]+/)
      .split('/')
      .pop()!;
    await sql.query(
      `update email_verifications set expires_at = now() - interval '1 minute'
       where user_id = (select id from users where email = $1)`,
      [input.email],
    );
    expect((await api().post(`/account/confirm-email/verify/${key}/`)).status).toBe(400);
    expect((await api().post('/account/confirm-email/verify/not-a-real-key/')).status).toBe(400);
  });

  it('resends to an unverified account and stays silent about unknown addresses', async () => {
    const { input } = await register();
    const since = smtp.messages.length;
    const res = await api().post('/users/auth/registration/resend-email/', { email: input.email });
    expect(res.status).toBe(200);
    const mail = await smtp.waitFor(input.email, since);
    expect(mail.text).toContain('/account/confirm-email/verify/');

    const before = smtp.messages.length;
    const unknown = await api().post('/users/auth/registration/resend-email/', {
      email: 'nobody@example.com',
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(res.body);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.length).toBe(before);
  });

  it('answers a taken address like a new one, creates nothing and mails the owner a reset link', async () => {
    const { input } = await register();
    const users = await count('users');
    const since = smtp.messages.length;
    const again = await api().post('/users/auth/registration/', { ...input, first_name: 'Mallory' });
    expect(again.status).toBe(201);
    expect(await count('users')).toBe(users);
    const mail = await smtp.waitFor(input.email, since);
    expect(mail.text).toContain('/account/password/reset/confirm/');
  });

  it('sends the mail in Russian when the request asks for it', async () => {
    const input = newUserInput();
    const since = smtp.messages.length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/users/auth/registration/',
      headers: { 'accept-language': 'ru-RU,ru;q=0.9' },
      payload: input,
    });
    expect(res.statusCode).toBe(201);
    const mail = await smtp.waitFor(input.email, since);
    expect(mail.subject).toContain('Подтвердите');
    expect(mail.text).toContain('Здравствуйте');
  });

  it('rejects bad input with 400 and field errors', async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...newUserInput(), password2: 'something else entirely' }, 'password2'],
      [{ ...newUserInput(), password1: 'short', password2: 'short' }, 'password1'],
      [{ ...newUserInput(), email: 'not-an-email' }, 'email'],
      [{ ...newUserInput(), is_admin: true }, 'is_admin'],
      [{ email: 'x@example.com' }, 'first_name'],
      // Field names that exist on Object.prototype must not break the error format.
      [{ ...newUserInput(), toString: null }, 'toString'],
    ];
    const users = await count('users');
    for (const [body, field] of cases) {
      const res = await api().post<{ code: string; fields: Record<string, string[]> }>(
        '/users/auth/registration/',
        body,
      );
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(Object.keys(res.body.fields)).toContain(field);
    }
    const polluting = await t.app.inject({
      method: 'POST',
      url: '/api/users/auth/registration/',
      headers: { 'content-type': 'application/json' },
      payload: '{"first_name": "A", "__proto__": {"isAdmin": true}}',
    });
    expect(polluting.statusCode).toBe(400);
    expect(polluting.json()).toMatchObject({ code: 'validation_error', detail: expect.any(String) });
    const badJson = await t.app.inject({
      method: 'POST',
      url: '/api/users/auth/registration/',
      headers: { 'content-type': 'application/json' },
      payload: '{"first_name": ',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json()).toMatchObject({ code: 'validation_error' });
    expect(await count('users')).toBe(users);
  });
});

describe('login, tokens and the current user', () => {
  it('answers wrong passwords and unknown addresses alike', async () => {
    const { input } = await register();
    const wrong = await login(input.email, 'wrong password here');
    const unknown = await login('unknown@example.com');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ code: 'invalid_credentials' });
  });

  it('returns tokens and the user; the user endpoints need the bearer token', async () => {
    const session = await signedIn();
    expect(session.user).toMatchObject({
      first_name: 'Ada',
      tz: null,
      metadata: { email_verified: false, agreement_status: false, '2fa_enable': false },
      tariffs: [{ key: 'trial_scan', name: 'Trial scan' }],
    });
    expect(JSON.stringify(session.user)).not.toMatch(/password|totp|hash/i);
    for (const url of ['/users/user', '/users/user/']) {
      expect((await api(session.access).get(url)).status).toBe(200);
      expect((await api().get(url)).status).toBe(401);
      expect((await api('not.a.jwt.token').get(url)).status).toBe(401);
    }
  });

  it('updates the profile, validates the time zone and confirms the agreement', async () => {
    const session = await signedIn();
    const updated = await api(session.access).put<{ data: TUser }>('/users/user/', {
      first_name: 'Grace',
      company: 'Navy',
      tz: 'Europe/Moscow',
      notifications: { scan_finished: false },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      first_name: 'Grace',
      last_name: 'Lovelace',
      company: 'Navy',
      tz: 'Europe/Moscow',
      notifications: { scan_finished: false, new_critical_high: true },
    });
    const badTz = await api(session.access).put('/users/user/', { tz: 'Mars/Olympus_Mons' });
    expect(badTz.status).toBe(400);
    expect((await api(session.access).put('/users/user/', { email: 'x@example.com' })).status).toBe(400);

    const agreed = await api(session.access).post<{ data: TUser }>('/users/agreement_confirm', {
      accepted: true,
    });
    expect(agreed.status).toBe(200);
    expect(agreed.body.data.metadata.agreement_status).toBe(true);
    expect((await api(session.access).post('/users/agreement_confirm', { accepted: false })).status).toBe(
      400,
    );
  });

  it('rotates refresh tokens on both paths; reusing a rotated token revokes the family', async () => {
    const session = await signedIn();
    const first = await api().post<{ data: { access: string; refresh: string } }>('/users/token/refresh/', {
      refresh: session.refresh,
    });
    expect(first.status).toBe(200);
    expect(first.body.data.refresh).not.toBe(session.refresh);
    const second = await api().post<{ data: { access: string; refresh: string } }>('/users/token/refresh', {
      refresh: first.body.data.refresh,
    });
    expect(second.status).toBe(200);
    expect((await api(second.body.data.access).get('/users/user/')).status).toBe(200);

    // The first token comes back: someone replayed it. The whole family ends.
    const replay = await api().post('/users/token/refresh/', { refresh: session.refresh });
    expect(replay.status).toBe(401);
    const afterReplay = await api().post('/users/token/refresh/', { refresh: second.body.data.refresh });
    expect(afterReplay.status).toBe(401);
    expect((await api(second.body.data.access).get('/users/user/')).status).toBe(401);
  });

  it('refuses expired and malformed refresh tokens; logout ends the session', async () => {
    const session = await signedIn();
    await sql.query(`update refresh_tokens set expires_at = now() - interval '1 second' where id = $1`, [
      session.refresh.split('.')[0],
    ]);
    expect((await api().post('/users/token/refresh/', { refresh: session.refresh })).status).toBe(401);
    expect((await api().post('/users/token/refresh/', { refresh: 'garbage' })).status).toBe(401);
    expect((await api().post('/users/token/refresh/', {})).status).toBe(400);

    const other = await signedIn();
    expect((await api().post('/users/auth/logout/', { refresh: other.refresh })).status).toBe(200);
    expect((await api(other.access).get('/users/user/')).status).toBe(401);
    expect((await api().post('/users/token/refresh/', { refresh: other.refresh })).status).toBe(401);
  });
});

describe('two-factor authentication', () => {
  it('activates with a QR code, then logs in with a code in two steps', async () => {
    const session = await signedIn();
    const started = await api(session.access).post<{
      data: { secret: string; otpauth_url: string; qr_code: string };
    }>('/users/auth/app/activate/');
    expect(started.body.data.otpauth_url).toMatch(/^otpauth:\/\/totp\/Perimeter:/);
    expect(started.body.data.qr_code).toMatch(/^data:image\/png;base64,/);
    const secret = started.body.data.secret;

    const wrong = await api(session.access).post('/users/auth/app/activate/confirm/', {
      code: totpCode(secret, 5),
    });
    expect(wrong.status).toBe(400);
    const confirmed = await api(session.access).post<{ data: { recovery_codes: string[] } }>(
      '/users/auth/app/activate/confirm/',
      { code: totpCode(secret) },
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.body.data.recovery_codes).size).toBe(10);
    const stored = await sql.query('select totp_secret_enc from users where email = $1', [session.email]);
    expect(stored.rows[0].totp_secret_enc).not.toContain(secret);

    const first = await login(session.email);
    expect(first.body.data).toEqual({ ephemeral_token: expect.any(String) });
    const { ephemeral_token } = first.body.data as { ephemeral_token: string };
    // The current step was spent by the activation: reusing it is a replay.
    const replayed = await api().post('/users/auth/login/code/', { ephemeral_token, code: totpCode(secret) });
    expect(replayed.status).toBe(401);
    expect(replayed.body).toMatchObject({ code: 'code_invalid' });
    const ok = await api().post<{ data: Session }>('/users/auth/login/code/', {
      ephemeral_token,
      code: totpCode(secret, 1),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.metadata['2fa_enable']).toBe(true);
    // The challenge is single use.
    const again = await api().post('/users/auth/login/code/', { ephemeral_token, code: totpCode(secret, 1) });
    expect(again.status).toBe(401);
  });

  it('accepts each recovery code once', async () => {
    const session = await signedIn();
    const { recoveryCodes } = await enableTwoFactor(session);
    const code = recoveryCodes[0]!;
    const challenge1 = (await login(session.email)).body.data as { ephemeral_token: string };
    const ok = await api().post('/users/auth/login/code/', { ...challenge1, code: code.toUpperCase() });
    expect(ok.status).toBe(200);
    const challenge2 = (await login(session.email)).body.data as { ephemeral_token: string };
    const twice = await api().post('/users/auth/login/code/', { ...challenge2, code });
    expect(twice.status).toBe(401);
    const other = await api().post('/users/auth/login/code/', { ...challenge2, code: recoveryCodes[1] });
    expect(other.status).toBe(200);
  });

  it('locks the sign-in after five wrong codes and refuses expired challenges', async () => {
    const session = await signedIn();
    const { secret } = await enableTwoFactor(session);
    const challenge = (await login(session.email)).body.data as { ephemeral_token: string };
    for (let i = 0; i < 5; i += 1) {
      const res = await api().post('/users/auth/login/code/', { ...challenge, code: '000000' });
      expect(res.status).toBe(401);
    }
    const locked = await api().post('/users/auth/login/code/', { ...challenge, code: totpCode(secret, 1) });
    expect(locked.status).toBe(401);
    expect(locked.body).toMatchObject({ code: 'challenge_locked' });

    const fresh = (await login(session.email)).body.data as { ephemeral_token: string };
    await sql.query(`update login_challenges set expires_at = now() - interval '1 second' where id = $1`, [
      fresh.ephemeral_token.split('.')[0],
    ]);
    const expired = await api().post('/users/auth/login/code/', { ...fresh, code: totpCode(secret, 1) });
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ code: 'token_invalid' });
  });

  it('deactivates only with a valid code', async () => {
    const session = await signedIn();
    const { secret } = await enableTwoFactor(session);
    expect((await api(session.access).post('/users/auth/app/activate/')).status).toBe(409);
    const wrong = await api(session.access).post('/users/auth/app/deactivate/', { code: '123456' });
    expect(wrong.status).toBe(400);
    const ok = await api(session.access).post('/users/auth/app/deactivate/', { code: totpCode(secret, 1) });
    expect(ok.status).toBe(200);
    const res = await login(session.email);
    expect(res.body.data).toHaveProperty('access');
    expect(await count(`recovery_codes where user_id = '${session.user.id}'`)).toBe(0);
  });
});

describe('passwords', () => {
  it('changes the password: the old one stops working and other sessions end', async () => {
    const session = await signedIn();
    const otherSession = (await login(session.email)).body.data as Session;
    const wrongOld = await api(session.access).post('/users/auth/password/change/', {
      old_password: 'not my password',
      new_password1: 'a brand new passphrase',
      new_password2: 'a brand new passphrase',
    });
    expect(wrongOld.status).toBe(400);
    expect(wrongOld.body).toMatchObject({ fields: { old_password: expect.any(Array) } });
    const ok = await api(session.access).post('/users/auth/password/change/', {
      old_password: PASSWORD,
      new_password1: 'a brand new passphrase',
      new_password2: 'a brand new passphrase',
    });
    expect(ok.status).toBe(200);
    expect((await login(session.email)).status).toBe(401);
    expect((await login(session.email, 'a brand new passphrase')).status).toBe(200);
    expect((await api(session.access).get('/users/user/')).status).toBe(200);
    expect((await api(otherSession.access).get('/users/user/')).status).toBe(401);
  });

  it('resets the password through the mailed link, once', async () => {
    const session = await signedIn();
    const since = smtp.messages.length;
    const res = await api().post('/users/auth/password/reset/', { email: session.email });
    expect(res.status).toBe(200);
    const mail = await smtp.waitFor(session.email, since);
    const link = linkIn(
      mail,
      new RegExp(`${PUBLIC_URL}/account/password/reset/confirm/[0-9a-f-]{36}/[A-Za-z0-9_-]+`),
    );
    const [uid, token] = link.split('/').slice(-2);
    const body = { new_password1: 'reset passphrase one', new_password2: 'reset passphrase one' };

    const mismatch = await api().post(`/account/password/reset/confirm/${uid}/${token}/`, {
      ...body,
      new_password2: 'different',
    });
    expect(mismatch.status).toBe(400);
    const ok = await api().post(`/account/password/reset/confirm/${uid}/${token}/`, body);
    expect(ok.status).toBe(200);
    expect((await login(session.email, 'reset passphrase one')).status).toBe(200);
    expect((await api(session.access).get('/users/user/')).status).toBe(401);
    const reused = await api().post(`/account/password/reset/confirm/${uid}/${token}/`, body);
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ code: 'link_invalid' });
  });

  it('answers the same for unknown addresses and sends nothing', async () => {
    const before = smtp.messages.length;
    const res = await api().post('/users/auth/password/reset/', { email: 'ghost@example.com' });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.length).toBe(before);
  });

  it('refuses expired reset links and links issued before the password changed', async () => {
    const session = await signedIn();
    const since = smtp.messages.length;
    await api().post('/users/auth/password/reset/', { email: session.email });
    const mail = await smtp.waitFor(session.email, since);
    const [uid, token] = linkIn(mail, /confirm\/[0-9a-f-]{36}\/[A-Za-z0-9_-]+/)
      .split('/')
      .slice(-2);
    const body = { new_password1: 'reset passphrase two', new_password2: 'reset passphrase two' };

    await api(session.access).post('/users/auth/password/change/', {
      old_password: PASSWORD,
      new_password1: 'changed in between',
      new_password2: 'changed in between',
    });
    expect((await api().post(`/account/password/reset/confirm/${uid}/${token}/`, body)).status).toBe(400);

    const since2 = smtp.messages.length;
    await api().post('/users/auth/password/reset/', { email: session.email });
    const mail2 = await smtp.waitFor(session.email, since2);
    const [uid2, token2] = linkIn(mail2, /confirm\/[0-9a-f-]{36}\/[A-Za-z0-9_-]+/)
      .split('/')
      .slice(-2);
    await sql.query(
      `update password_resets set expires_at = now() - interval '1 second' where user_id = $1`,
      [uid2],
    );
    expect((await api().post(`/account/password/reset/confirm/${uid2}/${token2}/`, body)).status).toBe(400);
    expect((await api().post(`/account/password/reset/confirm/not-a-uid/${token2}/`, body)).status).toBe(400);
  });
});
