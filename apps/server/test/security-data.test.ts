import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { LeakCipher, leakFinding } from '@perimeter/engine';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/db/migrate.ts';
import { loadConfig } from '../src/lib/config/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import {
  rekeyLeakFindingFingerprints,
  rekeyLegacyLeakDigests,
} from '../src/modules/scans/scans-intel-repo.ts';
import { buildApp } from '../src/server/app.ts';
import { openRuntime } from '../src/server/runtime.ts';
import { createTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.ts';
import { seedLeakFinding, seedScan, seedTarget } from './support/findings-seed.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const oldDigest = (password: string) =>
  createHash('sha256').update(password, 'utf8').digest('hex').slice(0, 16);

/** The statements of migration 0012 that rewrite existing rows (they are idempotent). */
async function migrationUpdates(): Promise<string[]> {
  const text = await readFile(path.join(MIGRATIONS_DIR, '0012_security_hardening.sql'), 'utf8');
  return text
    .split('--> statement-breakpoint')
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.startsWith('UPDATE'));
}

describe('leaked passwords at rest', () => {
  it('drops unsalted digests, re-keys them with the deployment key and re-masks stored findings', async () => {
    const db = t.runtime.ctx.db;
    const pool = t.runtime.ctx.database.pool;
    const cipher = new LeakCipher(t.runtime.ctx.config.secrets.encryptionKey);
    // Rows as the old code wrote them: a plain SHA-256 prefix next to the ciphertext.
    const words = ['Summer2019!', 'password1', 'qwerty123'];
    for (const [i, word] of words.entries()) {
      await pool.query(
        `insert into leak_records (email, domain, password_encrypted, digest, leak_date, sources)
         values ($1, 'old.example', $2, $3, '2019-07-14', $4)`,
        [`user${i}@old.example`, cipher.encrypt(word), oldDigest(word), [`feed-${i}`]],
      );
    }
    const { rows: users } = await pool.query<{ id: string }>(
      `insert into users (email, password_hash, first_name, last_name, company) values ('o@old.example', 'x', 'a', 'b', 'c') returning id`,
    );
    const userId = users[0]!.id;
    const target = await seedTarget(db, userId, 'old.example');
    const scan = await seedScan(db, userId, target.id, new Date());
    const ids = { userId, targetId: target.id, scanId: scan.id };
    await seedLeakFinding(db, ids, { key: 'lc-long', email: 'a@old.example', password: 'Su*******9!' });
    await seedLeakFinding(db, ids, { key: 'lc-short', email: 'b@old.example', password: 'p**d' });

    for (const statement of await migrationUpdates()) await pool.query(statement);
    // A row re-imported (re-keyed) since, and its legacy twin: they merge.
    await pool.query(
      `insert into leak_records (email, domain, password_encrypted, digest, leak_date, sources)
       values ('user0@old.example', 'old.example', $1, $2, '2019-07-14', '{feed-new}')`,
      [cipher.encrypt('Summer2019!'), cipher.digest('Summer2019!')],
    );
    const dropped = await pool.query<{ digest: string }>(
      `select digest from leak_records where domain = 'old.example' order by digest`,
    );
    for (const word of words) expect(dropped.rows.map((r) => r.digest)).not.toContain(oldDigest(word));

    expect(await rekeyLegacyLeakDigests(db, cipher)).toBe(3);
    const { rows } = await pool.query<{ email: string; digest: string; sources: string[] }>(
      `select email, digest, sources from leak_records where domain = 'old.example' order by email`,
    );
    expect(rows).toEqual([
      { email: 'user0@old.example', digest: cipher.digest('Summer2019!'), sources: ['feed-0', 'feed-new'] },
      { email: 'user1@old.example', digest: cipher.digest('password1'), sources: ['feed-1'] },
      { email: 'user2@old.example', digest: cipher.digest('qwerty123'), sources: ['feed-2'] },
    ]);
    // A word list and SHA-256 no longer find anything; the digest needs the deployment key.
    const all = JSON.stringify(rows);
    for (const word of words) {
      expect(all).not.toContain(oldDigest(word));
      expect(all).not.toContain(createHash('sha256').update(word).digest('hex').slice(0, 32));
    }
    const masks = await pool.query<{ fingerprint: string; password: string }>(
      `select fingerprint, password from findings_leakcheck where user_id = $1 order by fingerprint`,
      [userId],
    );
    expect(masks.rows).toEqual([
      { fingerprint: 'lc-long', password: 'S*********!' },
      { fingerprint: 'lc-short', password: '****' },
    ]);

    // The finding's fingerprint hashed the old digest too: re-keyed once, to what scans now compute.
    await pool.query(
      `update findings_leakcheck set password_encrypted = $1, leak_date = '2019-07-14' where fingerprint = 'lc-long'`,
      [cipher.encrypt('Summer2019!')],
    );
    await pool.query(`delete from system_settings where key = 'leak_fingerprints_keyed'`);
    expect(await rekeyLeakFindingFingerprints(db, cipher)).toBe(1);
    const expected = leakFinding(
      {
        email: 'a@old.example',
        leakDate: '2019-07-14',
        passwordDigest: cipher.digest('Summer2019!'),
        passwordMasked: 'S*********!',
        sources: ['x'],
      },
      'old.example',
    ).fingerprint;
    const { rows: fps } = await pool.query<{ fingerprint: string }>(
      `select fingerprint from findings_leakcheck where email = 'a@old.example'`,
    );
    expect(fps).toEqual([{ fingerprint: expected }]);
    // Once per database.
    expect(await rekeyLeakFindingFingerprints(db, cipher)).toBe(0);
  });
});

describe('logs', () => {
  it('never keep query strings, query parameters or secrets', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    const logger = createLogger('info', sink);
    const secrets = [
      'alice',
      'k3y-s3cr3t',
      't0k3n-s3cr3t',
      'hunter2-s3cr3t',
      'hunter3-s3cr3t',
      'argon2id',
      'aGFzaGhhc2hoYXNo',
      'k3y-in-p4th',
      't0k3n-in-p4th',
    ];
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: t.databaseUrl,
      PERIMETER_DATA_DIR: t.runtime.ctx.config.dataDir,
      PERIMETER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'info',
    });
    const runtime = await openRuntime(config, logger);
    const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance });
    try {
      await app.inject({ method: 'GET', url: '/api/main/ping?email=alice%40example.com&key=k3y-s3cr3t' });
      await app.inject({ method: 'GET', url: '/api/nowhere?token=t0k3n-s3cr3t' });
      await app.inject({
        method: 'POST',
        url: '/api/users/auth/login/',
        payload: { email: 'alice@example.com', password: 'hunter2-s3cr3t' },
      });
      // Secrets in a path: the e-mail key and the reset token.
      await app.inject({ method: 'POST', url: '/api/account/confirm-email/verify/k3y-in-p4th/' });
      await app.inject({
        method: 'POST',
        url: `/api/account/password/reset/confirm/${randomUUID()}/t0k3n-in-p4th/`,
        payload: { new_password1: 'a long new password', new_password2: 'a long new password' },
      });
      // A mail kept in the outbox (no SMTP): the log says so without its address or live link.
      await app.inject({
        method: 'POST',
        url: '/api/users/auth/registration/',
        payload: {
          email: 'alice.logged@example.com',
          password1: 'hunter3-s3cr3t',
          password2: 'hunter3-s3cr3t',
          first_name: 'A',
          last_name: 'B',
          company: 'C',
        },
      });
      await runtime.ctx.accountMail.drain();
      const { rows } = await runtime.ctx.database.pool.query<{ text: string }>(
        `select text from mail_outbox where "to" = 'alice.logged@example.com'`,
      );
      const key = /verify\/([A-Za-z0-9_-]{20,})/.exec(rows[0]?.text ?? '')?.[1];
      expect(key).toBeDefined();
      secrets.push(key as string);
      // A failing query whose parameters are an address and an argon2 hash, logged as an error.
      const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo';
      const err = await runtime.ctx.db
        .execute(sql`select ${'alice@example.com'}::int, ${hash}::int`)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      logger.error({ err }, 'unhandled error');
    } finally {
      await app.close();
      await runtime.close();
    }
    const out = lines.join('');
    expect(out).toContain('/api/main/ping');
    expect(out).toContain('unhandled error');
    expect(out).toContain('mail kept in the outbox');
    expect(out).toContain('/api/account/password/reset/confirm/:uid/:token/');
    for (const secret of secrets) expect(out, secret).not.toContain(secret);
  });
});
