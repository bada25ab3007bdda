import { expect } from 'vitest';
import { client, newUserInput, type TestApp } from './app.ts';
import { type BulkFindings, seedBulkFindings } from './findings-bulk.ts';

/**
 * A signed-in enterprise user (address verified) holding `findings` bulk findings
 * (findings-bulk.ts): the events tests' user.
 */
export async function signUpWithBulkFindings(
  t: TestApp,
  findings: number,
  seed: Parameters<typeof seedBulkFindings>[3] = {},
): Promise<{ userId: string; token: string; bulk: BulkFindings }> {
  const input = newUserInput();
  const registered = await client(t.app).post('/users/auth/registration/', input);
  expect(registered.status).toBe(201);
  const pool = t.runtime.ctx.database.pool;
  const { rows } = await pool.query<{ id: string }>(
    `update users set plan = 'enterprise', email_verified = true where email = $1 returning id`,
    [input.email],
  );
  const userId = rows[0]!.id;
  const bulk = await seedBulkFindings(pool, userId, findings, seed);
  const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
    email: input.email,
    password: input.password1,
  });
  expect(login.status).toBe(200);
  return { userId, token: login.body.data.access, bulk };
}
