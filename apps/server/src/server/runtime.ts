import { LeakCipher } from '@perimeter/engine';
import { ChangeFeed } from '../db/changes.ts';
import { connectDatabase, type Database } from '../db/client.ts';
import { type EmbeddedDatabase, startEmbeddedDatabase } from '../db/embedded.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { type AppConfig, loadConfig } from '../lib/config/index.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { createAccountMailDispatcher } from '../modules/auth/auth-mail.ts';
import { SESSIONS_CHANGED_CHANNEL, type SessionState } from '../modules/auth/auth-repo.ts';
import { createBillingProvider } from '../modules/billing/billing-provider.ts';
import { FINDINGS_CHANGED_CHANNEL, type FindingsMemoValue } from '../modules/findings/findings-counts.ts';
import { createMailer } from '../modules/mail/mail-service.ts';
import { rekeyLeakFindingFingerprints, rekeyLegacyLeakDigests } from '../modules/scans/scans-intel-repo.ts';
import { SCAN_QUEUED_CHANNEL } from '../modules/scans/scans-jobs.ts';
import { createMaintenanceState, type MaintenanceState } from '../modules/system/system-service.ts';
import type { AppContext } from './context.ts';

export interface Runtime {
  ctx: AppContext;
  maintenance: MaintenanceState;
  databaseUrl: string;
  close(): Promise<void>;
}

/** Opens the database (the embedded server unless DATABASE_URL is set), migrates it, and wires the context. */
export async function openRuntime(config: AppConfig = loadConfig(), logger?: Logger): Promise<Runtime> {
  const log = logger ?? createLogger(config.env.LOG_LEVEL);
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.env.DATABASE_URL;
  if (!databaseUrl) {
    log.info({ dataDir: config.dataDir }, 'starting the embedded PostgreSQL');
    embedded = await startEmbeddedDatabase({
      dataDir: config.dataDir,
      log: (m) => log.debug({ postgres: m }, 'postgres'),
    });
    databaseUrl = embedded.url;
  }
  let database: Database | undefined;
  try {
    // Behind a pooler in transaction mode (the change feed off) a session's statements are not its own.
    database = connectDatabase(databaseUrl, undefined, {
      sessionStatements: config.env.PERIMETER_CHANGE_FEED,
    });
    await migrateDatabase(database);
    const leakCipher = new LeakCipher(config.secrets.encryptionKey);
    await rekeyLegacyLeakDigests(database.db, leakCipher);
    await rekeyLeakFindingFingerprints(database.db, leakCipher);
  } catch (err) {
    await database?.close();
    await embedded?.stop();
    throw err;
  }
  const mailer = createMailer({
    db: database.db,
    logger: log,
    smtpUrl: config.env.SMTP_URL,
    from: config.env.MAIL_FROM,
  });
  const accountMail = createAccountMailDispatcher({ db: database.db, config, mailer, logger: log });
  const changes = new ChangeFeed();
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    mailer,
    accountMail,
    logger: log,
    billing: createBillingProvider(config.env, config.publicUrl),
    changes,
    findingsMemo: changes.cache<FindingsMemoValue>(FINDINGS_CHANGED_CHANNEL),
    sessionStates: changes.cache<SessionState>(SESSIONS_CHANGED_CHANNEL, {
      maxUsers: 10_000,
      maxKeysPerUser: 50,
    }),
    scansQueued: changes.wakeupsOf(SCAN_QUEUED_CHANNEL),
  };
  return {
    ctx,
    databaseUrl,
    maintenance: createMaintenanceState(database.db, config.env),
    async close() {
      await accountMail.stop();
      mailer.close();
      await database.close();
      await embedded?.stop();
    },
  };
}
