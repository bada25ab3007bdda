import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './identity.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** The user's billing identity: the provider's customer id and the remembered card (brand + last four only). */
export const billingCustomers = pgTable('billing_customers', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  stripeCustomerId: text('stripe_customer_id').unique(),
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A checkout: local (id = random token) or Stripe (id = cs_...). */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    plan: text('plan').notNull(),
    period: text('period').notNull(),
    mode: text('mode').notNull(),
    status: text('status').notNull().default('open'),
    amount: integer('amount').notNull(),
    discount: integer('discount').notNull().default(0),
    currency: text('currency').notNull(),
    promoCode: text('promo_code'),
    failureReason: text('failure_reason'),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [index('checkout_sessions_user_idx').on(t.userId, t.createdAt)],
);

/** The user's one current subscription (replaced when the plan changes). */
export const billingSubscriptions = pgTable('billing_subscriptions', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  provider: text('provider').notNull(),
  externalId: text('external_id').notNull(),
  plan: text('plan').notNull(),
  period: text('period').notNull(),
  status: text('status').notNull(),
  currentPeriodStart: timestamp('current_period_start', { withTimezone: true }),
  currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  /** Ordering key of the last applied provider update (event.created, seconds): older ones are ignored. */
  lastEventCreated: bigint('last_event_created', { mode: 'number' }).notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Payments and invoices, paid or failed. */
export const billingInvoices = pgTable(
  'billing_invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    externalId: text('external_id').notNull(),
    plan: text('plan').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').notNull(),
    description: text('description').notNull(),
    card: text('card'),
    createdAt: createdAt(),
    /**
     * A paid one-time payment (try_it) buys one scan: the scan that used it, set once by scan
     * creation (billing-repo claimOneTimePayment); null while unused.
     */
    consumedScanId: uuid('consumed_scan_id'),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('billing_invoices_external_key').on(t.provider, t.externalId),
    index('billing_invoices_user_idx').on(t.userId, t.createdAt),
    uniqueIndex('billing_invoices_consumed_scan_key').on(t.consumedScanId),
  ],
);

/** Provider webhook events already handled (idempotency by event id). */
export const billingEvents = pgTable('billing_events', {
  eventId: text('event_id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});
