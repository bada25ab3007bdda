import { client, newUserInput, useTestApp } from './app.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The app of a schedules test file, with its request, sign-up and target helpers. */
export function useSchedulesApp() {
  const app = useTestApp();
  async function call<T = Record<string, unknown>>(
    token: string | undefined,
    method: Method,
    url: string,
    body?: unknown,
  ) {
    const res = await app.t.app.inject({
      method,
      url: `/api${url}`,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    return { status: res.statusCode, body: res.json() as T };
  }

  async function signUp(tz: string | null = 'Europe/Berlin', plan = 'enterprise') {
    const input = newUserInput();
    await client(app.t.app).post('/users/auth/registration/', input);
    const login = await client(app.t.app).post<{ data: { access: string; user: { id?: string } } }>(
      '/users/auth/login/',
      { email: input.email, password: input.password1 },
    );
    const { rows } = await app.sql.query<{ id: string }>(
      'update users set tz = $2, plan = $3, email_verified = true where email = $1 returning id',
      [input.email, tz, plan],
    );
    return { token: login.body.data.access, userId: rows[0]!.id };
  }

  async function addTarget(userId: string, value: string, type = 'domain') {
    const { rows } = await app.sql.query<{ id: string }>(
      `insert into targets (user_id, target_type, value, display_name, main_domain, verified, verification_token)
       values ($1, $2, $3, $3, $3, true, 'tok') returning id`,
      [userId, type, value],
    );
    return rows[0]!.id;
  }

  return { app, call, signUp, addTarget };
}
