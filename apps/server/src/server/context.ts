import type { ChangeFeed, UserCache, Wakeups } from '../db/changes.ts';
import type { Database, Db } from '../db/client.ts';
import type { AppConfig } from '../lib/config/index.ts';
import type { Logger } from '../lib/logger.ts';
import type { AccountMailDispatcher } from '../modules/auth/auth-mail.ts';
import type { SessionState } from '../modules/auth/auth-repo.ts';
import type { BillingProvider } from '../modules/billing/billing-provider.ts';
import type { FindingsMemoValue } from '../modules/findings/findings-counts.ts';
import type { Mailer } from '../modules/mail/mail-service.ts';

/** What every service function receives: no globals. */
export interface AppContext {
  config: AppConfig;
  database: Database;
  db: Db;
  mailer: Mailer;
  /** Account mails (verification, reset, lock notice) queued by requests and sent after them. */
  accountMail: AccountMailDispatcher;
  logger: Logger;
  /** The payment provider: Stripe with STRIPE_SECRET_KEY, else the embedded local one. */
  billing: BillingProvider;
  /** Change notifications (the API process listens) and the caches they keep true. */
  changes: ChangeFeed;
  /** Events totals, walk bounds and targets of a type remembered until the user's findings or targets change. */
  findingsMemo: UserCache<FindingsMemoValue>;
  /** Signed-in sessions' state remembered until the user's account or sessions change. */
  sessionStates: UserCache<SessionState>;
  /** A scan job was queued: the scan workers' idle loops fetch at once (their poll stays). */
  scansQueued: Wakeups;
}
