import type { TUser } from '@perimeter/contracts';
import { describe, expect, it } from 'vitest';
import { newUserInput, PUBLIC_URL } from './support/app.ts';
import {
  api,
  count,
  login,
  register,
  type Session,
  signedIn,
  smtp,
  sql,
  t,
  useIdentityApp,
} from './support/identity.ts';
import { linkIn } from './support/smtp.ts';

// Two-factor authentication and passwords: auth-factors.test.ts.
useIdentityApp();

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
