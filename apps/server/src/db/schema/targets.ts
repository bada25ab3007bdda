import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './identity.ts';

/** A domain, peer (one IP address) or network (CIDR) a user owns and may scan once verified. */
export const targets = pgTable(
  'targets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** domain | peer | network */
    targetType: text('target_type').notNull(),
    /** Normalised: punycode domain, canonical address, network address/prefix. */
    value: text('value').notNull(),
    displayName: text('display_name').notNull(),
    /** Registrable domain (domains only). */
    mainDomain: text('main_domain'),
    /** Addresses the target stands for (plan limit "external IPs"); 0 for domains. */
    ipCount: integer('ip_count').notNull().default(0),
    disabled: boolean('disabled').notNull().default(false),
    verified: boolean('verified').notNull().default(false),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    /** Published by the owner as `perimeter-verification=<token>`. */
    verificationToken: text('verification_token').notNull(),
    lastCheckAt: timestamp('last_check_at', { withTimezone: true }),
    lastCheckDetail: text('last_check_detail'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One live target per value; disabled ones stay for the history of their scans.
    uniqueIndex('targets_user_value_key')
      .on(t.userId, t.targetType, t.value)
      .where(sql`${t.disabled} = false`),
    index('targets_user_idx').on(t.userId, t.targetType, t.createdAt),
  ],
);

/** What happened to a target (added, verified, disabled, replaced…): its history on the targets screen. */
export const targetEvents = pgTable(
  'target_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    targetId: uuid('target_id')
      .notNull()
      .references(() => targets.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** One of TARGET_EVENT_KINDS (contracts). */
    kind: text('kind').notNull(),
    detail: text('detail'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('target_events_target_idx').on(t.targetId, t.createdAt)],
);
