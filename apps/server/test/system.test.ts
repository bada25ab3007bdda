import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../src/server/app.ts';
import { client, createTestApp, newUserInput, PASSWORD, type TestApp } from './support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '3' });
});
afterAll(async () => t?.close());

describe('system endpoints', () => {
  it('answers ping', async () => {
    const res = await client(t.app).get('/main/ping');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { status: 'ok' } });
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('publishes OpenAPI and a browsable UI', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const paths = Object.keys(doc.json().paths);
    expect(paths).toEqual(
      expect.arrayContaining(['/users/auth/login/', '/users/token/refresh', '/main/ping']),
    );
    const ui = await t.app.inject({ method: 'GET', url: '/api/docs' });
    expect([200, 302]).toContain(ui.statusCode);
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const res = await client(t.app).get('/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      code: 'not_found',
      detail: expect.stringContaining('/api/no/such/thing'),
    });
  });

  it('serves the menu to signed-in users only', async () => {
    expect((await client(t.app).get('/menu/dashboard')).status).toBe(401);
    const input = newUserInput();
    await client(t.app).post('/users/auth/registration/', input);
    const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
      email: input.email,
      password: PASSWORD,
    });
    // Until the address is confirmed the menu is refused like everything past onboarding.
    expect((await client(t.app, login.body.data.access).get('/menu/dashboard')).status).toBe(403);
    await t.runtime.ctx.db.execute(sql`update users set email_verified = true where email = ${input.email}`);
    const menu = await client(t.app, login.body.data.access).get<{ data: { dashboard: { type: string } } }>(
      '/menu/dashboard',
    );
    expect(menu.status).toBe(200);
    expect(menu.body.data.dashboard.type).toBe('group');
  });

  it('sends security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/main/ping' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('sends every header helmet’s own middleware sets, with its values, and none it removes', async () => {
    // The app replays helmet's headers as recorded at start-up (securityHeadersOf): held here to
    // what helmet's middleware does to a real response.
    const own = new ServerResponse(new IncomingMessage(new Socket()));
    own.setHeader('x-powered-by', 'test');
    helmet(SECURITY_HEADERS)(own.req, own, () => {});
    const expected = own.getHeaders();
    expect(Object.keys(expected).length).toBeGreaterThan(10);
    const res = await t.app.inject({ method: 'GET', url: '/api/main/ping' });
    for (const [name, value] of Object.entries(expected)) expect(res.headers[name], name).toBe(value);
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('maintenance mode', () => {
  it('answers 503 with the operator message everywhere but ping and the status endpoint', async () => {
    const off = await client(t.app).get('/main/message/maintenance_mode/');
    expect(off.body).toEqual({ data: { maintenance_mode: false, message: null } });

    await t.runtime.maintenance.set({ enabled: true, message: 'Upgrading the database until 04:00 UTC.' });
    try {
      const on = await client(t.app).get('/main/message/maintenance_mode/');
      expect(on.body).toEqual({
        data: { maintenance_mode: true, message: 'Upgrading the database until 04:00 UTC.' },
      });
      expect((await client(t.app).get('/main/ping')).status).toBe(200);
      const blocked = await client(t.app).post('/users/auth/login/', {
        email: 'a@example.com',
        password: 'x',
      });
      expect(blocked.status).toBe(503);
      expect(blocked.body).toEqual({
        detail: 'Upgrading the database until 04:00 UTC.',
        code: 'maintenance',
      });
    } finally {
      await t.runtime.maintenance.set({ enabled: false, message: null });
    }
    expect(
      (await client(t.app).post('/users/auth/login/', { email: 'a@example.com', password: 'x' })).status,
    ).toBe(401);
  });
});

describe('rate limits', () => {
  it('limits login attempts per client address, whatever the e-mail, with a 429 and a detail', async () => {
    const input = newUserInput();
    await client(t.app).post('/users/auth/registration/', input);
    const loginFrom = async (remoteAddress: string, email: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/users/auth/login/',
        remoteAddress,
        payload: { email, password: `${PASSWORD}x` },
      });
      return { status: res.statusCode, body: res.json() as Record<string, unknown> };
    };
    const attempts = [];
    for (let i = 0; i < 4; i += 1) attempts.push(await loginFrom('127.0.240.8', input.email));
    expect(attempts.slice(0, 3).map((a) => a.status)).toEqual([401, 401, 401]);
    expect(attempts[3]!.status).toBe(429);
    expect(attempts[3]!.body).toMatchObject({
      code: 'rate_limited',
      detail: expect.stringMatching(/Too many requests/),
    });
    // Another account from the same address is limited too (no spraying) …
    expect((await loginFrom('127.0.240.8', 'other@example.com')).status).toBe(429);
    // … while another client address is not limited by the first one's attempts.
    expect((await loginFrom('127.0.240.9', 'other@example.com')).status).toBe(401);
  });

  it('limits password reset requests', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push(
        (await client(t.app).post('/users/auth/password/reset/', { email: 'limit@example.com' })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
