/**
 * The events bench's server side (scripts/events-bench.ts): the real app on loopback over one
 * PostgreSQL (the embedded one in a fresh data directory, or DATABASE_URL's server), and one
 * enterprise user holding BENCH_FINDINGS bulk findings (test/support/findings-bulk.ts).
 *
 * With DATABASE_URL and BENCH_REUSE=1 a user seeded by an earlier run with the same number of
 * findings is signed in again instead of seeding another million (for repeated runs while tuning).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/lib/config/index.ts';
import { createLogger, logDestination } from '../src/lib/logger.ts';
import { buildApp } from '../src/server/app.ts';
import { openRuntime } from '../src/server/runtime.ts';
import { seedBulkFindings, seedScanHistory } from '../test/support/findings-bulk.ts';

export const benchLog = (msg: string) =>
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

const PASSWORD = 'correct horse battery staple';

export async function startEventsServer(findings: number) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-bench-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    PERIMETER_DATA_DIR: dataDir,
    // Every bench client comes from one loopback address.
    RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '10000',
  });
  // The product's log level (LOG_LEVEL, info by default: a line per request), written to a file
  // as a user's server writes to its log (the product's destination), not silenced.
  const logFile = path.join(dataDir, 'server.log');
  const runtime = await openRuntime(config, createLogger(config.env.LOG_LEVEL, logDestination(logFile)));
  const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const pool = runtime.ctx.database.pool;
  const reuseEmail = `bench-reuse-${findings}@example.com`;
  const reuse = Boolean(config.env.DATABASE_URL) && process.env.BENCH_REUSE === '1';

  const signIn = async (email: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/users/auth/login/',
      payload: { email, password: PASSWORD },
    });
    return (res.json() as { data: { access: string } }).data.access;
  };

  /** The bench user and their findings: seeded now, or (BENCH_REUSE) found from an earlier run. */
  async function benchUser(log = benchLog) {
    if (reuse) {
      const { rows } = await pool.query<{ id: string; scan_id: string }>(
        `select u.id, (select s.id from scans s where s.user_id = u.id order by s.created_at limit 1) as scan_id
         from users u where u.email = $1`,
        [reuseEmail],
      );
      const found = rows[0];
      if (found?.scan_id) {
        log(`reusing the ${findings.toLocaleString('en')} findings of ${reuseEmail}`);
        // A user seeded before the scan history was part of the seed gets it now.
        await seedScanHistory(pool, found.id, log);
        return { userId: found.id, scanId: found.scan_id, token: await signIn(reuseEmail), seedSeconds: 0 };
      }
    }
    const email = reuse ? reuseEmail : `bench-${Date.now()}@example.com`;
    await app.inject({
      method: 'POST',
      url: '/api/users/auth/registration/',
      payload: {
        first_name: 'Bench',
        last_name: 'Mark',
        company: 'Perf',
        email,
        password1: PASSWORD,
        password2: PASSWORD,
      },
    });
    const { rows } = await pool.query<{ id: string }>(
      `update users set plan = 'enterprise', tz = 'UTC', email_verified = true where email = $1 returning id`,
      [email],
    );
    const userId = rows[0]!.id;
    log(`seeding ${findings.toLocaleString('en')} findings`);
    const started = performance.now();
    const seeded = await seedBulkFindings(pool, userId, findings, { rebuildIndexes: true, log });
    const seedSeconds = (performance.now() - started) / 1000;
    log(`seeded in ${seedSeconds.toFixed(0)} s`);
    // Signed in after the seed, which may outlast an access token.
    return { userId, scanId: seeded.scanId, token: await signIn(email), seedSeconds };
  }

  /** The pid of the PostgreSQL server's postmaster when it runs on this machine (its postmaster.pid). */
  async function postgresPid(): Promise<number | undefined> {
    try {
      const { rows } = await pool.query<{ dir: string }>(`select current_setting('data_directory') as dir`);
      return Number(readFileSync(path.join(rows[0]!.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  }

  return {
    app,
    address,
    pool,
    config,
    logFile,
    postgresPid,
    benchUser,
    async close() {
      await app.close();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
