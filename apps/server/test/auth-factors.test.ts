import { describe, expect, it } from 'vitest';
import { PASSWORD, PUBLIC_URL, totpCode } from './support/app.ts';
import {
  api,
  count,
  enableTwoFactor,
  login,
  type Session,
  signedIn,
  smtp,
  sql,
  useIdentityApp,
} from './support/identity.ts';
import { linkIn } from './support/smtp.ts';

// Registration, sign-in, tokens and the profile: auth.test.ts.
useIdentityApp();

describe('two-factor authentication', () => {
  it('activates with a QR code, then logs in with a code in two steps', async () => {
    const session = await signedIn();
    const started = await api(session.access).post<{
      data: { secret: string; otpauth_url: string; qr_code: string };
    }>('/users/auth/app/activate/');
    expect(started.body.data.otpauth_url).toMatch(/^otpauth:\/\/totp\/Perimeter:/);
    expect(started.body.data.qr_code).toMatch(/^data:image\/png;base64,/);
    const secret = started.body.data.secret;
    const activationCode = totpCode(secret);

    const wrong = await api(session.access).post('/users/auth/app/activate/confirm/', {
      code: totpCode(secret, 5),
    });
    expect(wrong.status).toBe(400);
    const confirmed = await api(session.access).post<{ data: { recovery_codes: string[] } }>(
      '/users/auth/app/activate/confirm/',
      { code: activationCode },
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.body.data.recovery_codes).size).toBe(10);
    const stored = await sql.query('select totp_secret_enc from users where email = $1', [session.email]);
    expect(stored.rows[0].totp_secret_enc).not.toContain(secret);

    const first = await login(session.email);
    expect(first.body.data).toEqual({ ephemeral_token: expect.any(String) });
    const { ephemeral_token } = first.body.data as { ephemeral_token: string };
    // The activation spent its code's time step: the same code is a replay, even when the clock has
    // moved to the next 30-second step since (the window still accepts the previous step).
    const replayed = await api().post('/users/auth/login/code/', { ephemeral_token, code: activationCode });
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
