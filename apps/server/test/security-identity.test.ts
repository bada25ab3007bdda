import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/lib/config/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import { failureDelayMs } from '../src/modules/limits/limits-service.ts';
import { readOutbox, redactExpiredMail } from '../src/modules/mail/mail-service.ts';
import { buildApp } from '../src/server/app.ts';
import { openRuntime } from '../src/server/runtime.ts';
import {
  client,
  createTestApp,
  newUserInput,
  PASSWORD,
  TEST_ENCRYPTION_KEY,
  TEST_JWT_SECRET,
  type TestApp,
  totpCode,
} from './support/app.ts';
import { linkIn, startSmtpCapture } from './support/smtp.ts';

type Smtp = Awaited<ReturnType<typeof startSmtpCapture>>;

let smtp: Smtp;
beforeAll(async () => {
  smtp = await startSmtpCapture();
});
afterAll(async () => smtp?.close());

async function withApp(env: Record<string, string>, run: (t: TestApp, sql: pg.Client) => Promise<void>) {
  const t = await createTestApp({ SMTP_URL: smtp.url, ...env });
  const sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
  try {
    await run(t, sql);
  } finally {
    await sql.end();
    await t.close();
  }
}

async function register(t: TestApp) {
  const input = newUserInput();
  const since = smtp.messages.length;
  expect((await client(t.app).post('/users/auth/registration/', input)).status).toBe(201);
  await smtp.waitFor(input.email, since);
  return input;
}

function loginFrom(t: TestApp, remoteAddress: string, email: string, password: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/users/auth/login/',
    remoteAddress,
    payload: { email, password },
  });
}

/** Mean of the middle 60 % (the loaded machine's outliers dropped). */
function trimmedMean(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * 0.2);
  const middle = sorted.slice(cut, sorted.length - cut);
  return middle.reduce((a, b) => a + b, 0) / middle.length;
}

describe('account enumeration by timing', () => {
  it('answers reset, resend, sign-in and registration in the same time for known and unknown addresses', async () => {
    const env = {
      AUTH_ACCOUNT_LOCK_AFTER: '1000',
      AUTH_FAILURES_PER_ADDRESS: '100000',
      AUTH_FAILURE_DELAY_MS: '0',
    };
    await withApp(env, async (t) => {
      const known = await register(t);
      const TRIES = 32;
      const newcomer = (email: string) => ({ ...newUserInput(), email });
      // Each endpoint: what it is sent for a known and an unknown address, and the answer both get.
      const endpoints: [string, (email: string) => unknown, number][] = [
        ['/users/auth/password/reset/', (email) => ({ email }), 200],
        ['/users/auth/registration/resend-email/', (email) => ({ email }), 200],
        ['/users/auth/login/', (email) => ({ email, password: 'not the password' }), 401],
        ['/users/auth/registration/', newcomer, 201],
      ];
      /** Trimmed means of known and unknown tries, interleaved so load changes hit both alike. */
      const measure = async (
        url: string,
        body: (email: string) => unknown,
        status: number,
        round: number,
      ) => {
        const times: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
        for (let i = 0; i < 5; i += 1) await client(t.app).post(url, body(`warm${round}-${i}@example.com`));
        for (let i = 0; i < TRIES; i += 1) {
          for (const kind of i % 2 === 0
            ? (['known', 'unknown'] as const)
            : (['unknown', 'known'] as const)) {
            const email = kind === 'known' ? known.email : `nobody${round}-${i}@example.com`;
            const started = process.hrtime.bigint();
            const res = await client(t.app).post(url, body(email));
            times[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
            expect(res.status).toBe(status);
            // The mail goes out after the answer; let it finish before the next try is timed.
            await t.runtime.ctx.accountMail.drain();
          }
        }
        const k = trimmedMean(times.known);
        const u = trimmedMean(times.unknown);
        return {
          ratio: Math.max(k, u) / Math.min(k, u),
          text: `${url}: known ${k.toFixed(2)} ms, unknown ${u.toFixed(2)} ms`,
        };
      };
      const report: string[] = [];
      for (const [url, body, status] of endpoints) {
        let result = await measure(url, body, status, 0);
        // A load spike on a shared machine gets one second measurement; a real difference (the old
        // ~2.7) fails both.
        if (result.ratio >= 1.5) result = await measure(url, body, status, 1);
        report.push(result.text);
        // Before: ~11 ms against ~4 ms (ratio ~2.7). The same work now: the ratio stays near 1.
        expect(result.ratio, report.join('; ')).toBeLessThan(1.5);
      }
      console.info(`timing (trimmed means of ${TRIES}): ${report.join('; ')}`);
    });
  }, 180_000);
});

describe('brute force and spraying', () => {
  it('refuses one address trying many accounts (spraying) with 429', async () => {
    await withApp({ RATE_LIMIT_AUTH_PER_MINUTE: '1000', AUTH_FAILURES_PER_ADDRESS: '20' }, async (t) => {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        const res = await loginFrom(t, '127.0.240.20', `victim${i}@example.com`, 'Spring2024!!');
        statuses.push(res.statusCode);
      }
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
      expect(statuses.slice(20)).toEqual(Array(10).fill(429));
      // Another address is not affected.
      expect((await loginFrom(t, '127.0.240.21', 'victim0@example.com', 'x')).statusCode).toBe(401);
    });
  });

  it('locks an account attacked from 5 addresses through 2 API processes, and mails its owner', async () => {
    await withApp({ AUTH_FAILURE_DELAY_MS: '5' }, async (t) => {
      const user = await register(t);
      // A second API process on the same database: the counters are shared through PostgreSQL.
      const config = loadConfig({
        NODE_ENV: 'test',
        DATABASE_URL: t.databaseUrl,
        PERIMETER_DATA_DIR: t.runtime.ctx.config.dataDir,
        PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        JWT_SECRET: TEST_JWT_SECRET,
        SMTP_URL: smtp.url,
        LOG_LEVEL: 'silent',
        RATE_LIMIT_AUTH_PER_MINUTE: '10000',
        AUTH_FAILURE_DELAY_MS: '5',
      });
      const second = await openRuntime(config, createLogger('silent'));
      const app2 = await buildApp({ ctx: second.ctx, maintenance: second.maintenance });
      try {
        const since = smtp.messages.length;
        const statuses: number[] = [];
        for (let round = 0; round < 10; round += 1) {
          for (let ip = 0; ip < 5; ip += 1) {
            const app = (round * 5 + ip) % 2 === 0 ? t : { app: app2 };
            const res = await loginFrom(app as TestApp, `127.0.241.${ip + 1}`, user.email, `wrong-${round}`);
            statuses.push(res.statusCode);
          }
        }
        expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
        expect(statuses.slice(10)).toEqual(Array(40).fill(429));
        // Locked even for the right password, from a new address; the owner is told.
        const right = await loginFrom(t, '127.0.241.99', user.email, PASSWORD);
        expect(right.statusCode).toBe(429);
        expect(right.json()).toMatchObject({ code: 'rate_limited', detail: expect.stringMatching(/locked/) });
        const mail = await smtp.waitFor(user.email, since);
        expect(mail.subject).toMatch(/paused/);
        // An unknown address gets the very same answers (no enumeration through the lock).
        const ghost: number[] = [];
        for (let i = 0; i < 11; i += 1)
          ghost.push((await loginFrom(t, `127.0.242.${i + 1}`, 'ghost@example.com', 'x')).statusCode);
        expect(ghost).toEqual([...Array(10).fill(401), 429]);
      } finally {
        await app2.close();
        await second.close();
      }
    });
  }, 60_000);

  it('counts attempts sent all at once before checking any: no more guesses than the lock allows', async () => {
    await withApp({ AUTH_FAILURE_DELAY_MS: '1' }, async (t, sql) => {
      const user = await register(t);
      // Every attempt in flight together, each from its own address: a check made before any
      // of them failed would let all 30 guesses through.
      const statuses = (
        await Promise.all(
          Array.from({ length: 30 }, (_, i) => loginFrom(t, `127.0.56.${i + 1}`, user.email, `guess-${i}`)),
        )
      ).map((res) => res.statusCode);
      expect(statuses.filter((s) => s === 401)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(20);
      expect((await loginFrom(t, '127.0.56.200', user.email, PASSWORD)).statusCode).toBe(429);
      await t.runtime.ctx.accountMail.drain();
      const { rows } = await sql.query(
        `select 1 from mail_outbox where "to" = $1 and kind = 'account_locked'`,
        [user.email],
      );
      expect(rows).toHaveLength(1);
    });
  }, 60_000);

  it('progressive delay: none for three failures, then doubling up to a cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => failureDelayMs(n, 250))).toEqual([
      0, 0, 0, 250, 500, 1000, 2000, 4000, 4000,
    ]);
  });

  it('counts wrong codes per account over every login challenge', async () => {
    await withApp({ AUTH_FAILURE_DELAY_MS: '1' }, async (t, sql) => {
      const user = await register(t);
      await sql.query('update users set email_verified = true where email = $1', [user.email]);
      const first = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
        email: user.email,
        password: PASSWORD,
      });
      const api = client(t.app, first.body.data.access);
      const setup = await api.post<{ data: { secret: string } }>('/users/auth/app/activate/');
      const secret = setup.body.data.secret;
      expect((await api.post('/users/auth/app/activate/confirm/', { code: totpCode(secret) })).status).toBe(
        200,
      );
      const wrong = (totpCode(secret, 5) === '000000' ? '111111' : '000000') as string;
      const since = smtp.messages.length;
      const statuses: number[] = [];
      // A stolen password buys fresh challenges, 5 tries each: the account still locks at 10.
      for (let c = 0; c < 3; c += 1) {
        const login = await client(t.app).post<{ data: { ephemeral_token: string } }>('/users/auth/login/', {
          email: user.email,
          password: PASSWORD,
        });
        for (let i = 0; i < 4; i += 1) {
          const res = await client(t.app).post('/users/auth/login/code/', {
            ephemeral_token: login.body.data.ephemeral_token,
            code: wrong,
          });
          statuses.push(res.status);
        }
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses.slice(10)).toEqual([429, 429]);
      expect((await smtp.waitFor(user.email, since)).subject).toMatch(/paused/);
    });
  }, 60_000);
});

describe('live links at rest', () => {
  it('keeps no usable reset link in the database once the mail went out by SMTP', async () => {
    await withApp({}, async (t, sql) => {
      const user = await register(t);
      const since = smtp.messages.length;
      await client(t.app).post('/users/auth/password/reset/', { email: user.email });
      const mail = await smtp.waitFor(user.email, since);
      const link = linkIn(mail, /confirm\/[0-9a-f-]{36}\/[A-Za-z0-9_-]+/);
      const token = link.split('/').pop() as string;
      // The row is written before delivery and redacted right after it: wait for the update.
      let stored: { text: string; html: string; redacted_at: Date | null }[] = [];
      for (let i = 0; i < 50; i += 1) {
        stored = (
          await sql.query('select text, html, redacted_at from mail_outbox where "to" = $1', [user.email])
        ).rows;
        if (stored.every((r) => r.redacted_at)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(stored.length).toBeGreaterThanOrEqual(2); // verification and reset
      for (const row of stored) {
        expect(row.text).not.toContain(token);
        expect(row.html).not.toContain(token);
        expect(row.text).not.toMatch(/verify\/[A-Za-z0-9_-]{20,}/);
      }
      // What the database shows cannot reset; the mailed link still can.
      const uid = link.split('/')[1] as string;
      const fromDb = /confirm\/[^\s]+/.exec(stored.find((r) => r.text.includes('reset'))!.text)?.[0] ?? '';
      expect(fromDb).toContain('[removed]');
      const body = { new_password1: 'another long password', new_password2: 'another long password' };
      expect(
        (await client(t.app).post(`/account/password/reset/confirm/${uid}/[removed]/`, body)).status,
      ).toBe(400);
      expect(
        (await client(t.app).post(`/account/password/reset/confirm/${uid}/${token}/`, body)).status,
      ).toBe(200);
    });
  }, 60_000);

  it('keeps outbox links (no SMTP) only until they expire', async () => {
    const t = await createTestApp();
    try {
      const input = newUserInput();
      await client(t.app).post('/users/auth/registration/', input);
      await t.runtime.ctx.accountMail.drain();
      const sql = t.runtime.ctx.database.pool;
      const before = await sql.query('select text from mail_outbox where "to" = $1', [input.email]);
      expect(before.rows[0].text).toMatch(/verify\/[A-Za-z0-9_-]{20,}/);
      await sql.query(
        `update mail_outbox set links_expire_at = now() - interval '1 second' where "to" = $1`,
        [input.email],
      );
      expect(await redactExpiredMail(t.runtime.ctx.db)).toBe(1);
      const after = await sql.query('select text from mail_outbox where "to" = $1', [input.email]);
      expect(after.rows[0].text).not.toMatch(/verify\/[A-Za-z0-9_-]{20,}/);
      expect(after.rows[0].text).toContain('/account/confirm-email/verify/[removed]');
    } finally {
      await t.close();
    }
  });

  it('keeps outbox links (no SMTP) only until `cli mail outbox` showed them once', async () => {
    const t = await createTestApp();
    try {
      const input = newUserInput();
      await client(t.app).post('/users/auth/registration/', input);
      await t.runtime.ctx.accountMail.drain();
      const live = /verify\/[A-Za-z0-9_-]{20,}/;
      const shown = (await readOutbox(t.runtime.ctx.db, 10)).find((row) => row.to === input.email);
      expect(shown?.text).toMatch(live);
      const again = (await readOutbox(t.runtime.ctx.db, 10)).find((row) => row.to === input.email);
      expect(again?.text).not.toMatch(live);
      expect(again?.text).toContain('/account/confirm-email/verify/[removed]');
    } finally {
      await t.close();
    }
  });
});

describe('ownership checks are limited', () => {
  it('per user and per target', async () => {
    await withApp(
      {
        PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
        VERIFY_CHECKS_PER_USER_PER_HOUR: '3',
        VERIFY_CHECKS_PER_TARGET_PER_HOUR: '4',
      },
      async (t, sql) => {
        const signUp = async () => {
          const user = await register(t);
          await sql.query('update users set email_verified = true, plan = $2 where email = $1', [
            user.email,
            'enterprise',
          ]);
          const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
            email: user.email,
            password: PASSWORD,
          });
          return client(t.app, login.body.data.access);
        };
        const addPeer = async (api: ReturnType<typeof client>, value: string) => {
          const res = await api.post<{ data: { added: { user_target_id: string }[] } }>(
            '/main/user_target/add_targets',
            { targets: [{ target_type: 'peer', target: value }] },
          );
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return { target_type: 'peer', user_target_id: res.body.data.added[0]!.user_target_id };
        };
        // Loopback peers with nothing listening: each check is refused at once, locally.
        const a = await signUp();
        const idA = await addPeer(a, '127.0.243.1');
        const statuses: number[] = [];
        for (let i = 0; i < 4; i += 1)
          statuses.push((await a.post('/main/user_target/check_verification', idA)).status);
        expect(statuses).toEqual([200, 200, 200, 429]);
        // Per target: other users checking the same address share its budget.
        const b = await signUp();
        const c = await signUp();
        const idB = await addPeer(b, '127.0.243.2');
        const idC = await addPeer(c, '127.0.243.2');
        const shared = [
          (await b.post('/main/user_target/check_verification', idB)).status,
          (await b.post('/main/user_target/check_verification', idB)).status,
          (await c.post('/main/user_target/check_verification', idC)).status,
          (await c.post('/main/user_target/check_verification', idC)).status,
          (await c.post('/main/user_target/check_verification', idC)).status,
        ];
        expect(shared).toEqual([200, 200, 200, 200, 429]);
      },
    );
  }, 60_000);
});
