import { bigserial, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './identity.ts';
import { scans } from './scans.ts';

/**
 * One correlation id per scan run (docs/oob.md): 20 random [a-z0-9] characters that every
 * `{{interactsh-url}}` of the run starts with. The interaction server stores a call-back only while
 * its correlation is registered and unexpired.
 */
export const oobCorrelations = pgTable(
  'oob_correlations',
  {
    id: text('id').primaryKey(),
    scanId: uuid('scan_id')
      .notNull()
      .references(() => scans.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('oob_correlations_scan_idx').on(t.scanId),
    index('oob_correlations_expires_idx').on(t.expiresAt),
  ],
);

/** A call-back the interaction server received for a registered correlation. */
export const oobInteractions = pgTable(
  'oob_interactions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    correlationId: text('correlation_id')
      .notNull()
      .references(() => oobCorrelations.id, { onDelete: 'cascade' }),
    /** The whole id the call-back carried: correlation id + nonce. */
    fullId: text('full_id').notNull(),
    /** dns | http | smtp | ldap */
    protocol: text('protocol').notNull(),
    remoteAddress: text('remote_address').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    /** Truncated to OOB_RAW_LIMIT characters. */
    rawRequest: text('raw_request').notNull(),
    rawResponse: text('raw_response').notNull(),
    /** dns only: A, AAAA, TXT... */
    qType: text('q_type'),
  },
  (t) => [
    index('oob_interactions_full_id_idx').on(t.correlationId, t.fullId),
    index('oob_interactions_at_idx').on(t.correlationId, t.at),
  ],
);
