import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  createTestApp,
  newUserInput,
  PASSWORD,
  TEST_JWT_SECRET,
  type TestApp,
} from './support/app.ts';

/**
 * The onboarding gate held only in the web app: an unverified account could add targets, create
 * webhooks and open checkout through the API. And a signed token without `exp` was accepted.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const confirmAddress = (email: string) =>
  t.runtime.ctx.database.pool.query('update users set email_verified = true where email = $1', [email]);

/** A registered, signed-in account whose address is not confirmed yet. */
async function unverifiedAccount() {
  const input = newUserInput();
  expect((await client(t.app).post('/users/auth/registration/', input)).status).toBe(201);
  const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
    email: input.email,
    password: PASSWORD,
  });
  expect(login.status).toBe(200);
  return { email: input.email, token: login.body.data.access };
}

// What an unverified account may do: read and edit its profile, finish onboarding. A route
// added to this list (`config: { onboarding: true }`) must be added here too, on purpose.
const ONBOARDING = [
  'GET /users/user',
  'GET /users/user/',
  'PUT /users/user/',
  'POST /users/agreement_confirm',
  'POST /users/auth/app/activate/',
  'POST /users/auth/app/activate/confirm/',
  'POST /users/auth/app/deactivate/',
  'POST /users/auth/password/change/',
];

const CONFIRM_FIRST = { code: 'forbidden', detail: expect.stringMatching(/Confirm your e-mail/) };

describe('onboarding gate on the server', () => {
  it('refuses every signed-in route of the API but the profile and onboarding (walks the route table)', async () => {
    const { token } = await unverifiedAccount();
    const spec = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const id = '00000000-0000-4000-8000-000000000000';
    const signedIn: string[] = [];
    const wrong: string[] = [];
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const method of Object.keys(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        const url = `/api${path.replace(/\{[^}]+\}/g, id)}`;
        const call = (headers: Record<string, string>) =>
          t.app.inject({
            method: method.toUpperCase() as 'GET',
            url,
            headers,
            ...(method === 'get' ? {} : { payload: {} }),
          });
        // A route that needs a user says so to an anonymous call, whatever its schema declares.
        if ((await call({})).statusCode !== 401) continue;
        signedIn.push(name);
        const res = await call({ authorization: `Bearer ${token}` });
        const gated = res.statusCode === 403 && /Confirm your e-mail/.test(res.json().detail ?? '');
        if (gated === ONBOARDING.includes(name)) wrong.push(`${name} → ${res.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
    // Every onboarding route was found and answered; the rest of the API is large and all gated.
    expect(signedIn).toEqual(expect.arrayContaining(ONBOARDING));
    expect(signedIn.length - ONBOARDING.length).toBeGreaterThan(40);
  });

  it('refuses targets, webhooks, checkout, lists and menus; opens them once the address is confirmed', async () => {
    const user = await unverifiedAccount();
    const api = client(t.app, user.token);
    const refused = [
      await api.post('/main/user_target/add_targets', { targets: ['example.com'] }),
      await api.post('/users/webhooks/create', { url: 'https://hooks.example.com/x' }),
      await api.get('/users/get_checkout_sessions_link?plan=starter&period=monthly'),
      await api.get('/main/user_target/get_targets'),
      await api.get('/menu/dashboard'),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject(CONFIRM_FIRST);
    }
    expect((await api.get('/users/user/')).status).toBe(200);
    expect((await api.put('/users/user/', { tz: 'Europe/Berlin' })).status).toBe(200);
    expect((await api.post('/users/agreement_confirm', { accepted: true })).status).toBe(200);
    expect((await api.post('/users/auth/app/activate/')).status).toBe(200);
    await confirmAddress(user.email);
    expect((await api.get('/main/user_target/get_targets')).status).toBe(200);
  });
});

describe('tokens', () => {
  it('refuses a signed token without an expiry', async () => {
    const user = await unverifiedAccount();
    await confirmAddress(user.email);
    const claims = JSON.parse(Buffer.from(user.token.split('.')[1]!, 'base64url').toString());
    const key = new TextEncoder().encode(TEST_JWT_SECRET);
    const build = () =>
      new SignJWT({ fam: claims.fam, typ: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.sub)
        .setIssuer('perimeter')
        .setIssuedAt();
    const forever = await build().sign(key);
    const expiring = await build().setExpirationTime('5m').sign(key);
    expect((await client(t.app, forever).get('/users/user/')).status).toBe(401);
    expect((await client(t.app, expiring).get('/users/user/')).status).toBe(200);
  });
});
