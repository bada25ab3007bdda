import { customType, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './identity.ts';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** PDF reports are rendered by a worker job and kept here (API and workers may be on different machines). */
export const reportFiles = pgTable(
  'report_files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scanId: text('scan_id').notNull(),
    format: text('format').notNull(),
    options: jsonb('options').notNull().default({}),
    /** pending | done | failed */
    status: text('status').notNull().default('pending'),
    filename: text('filename').notNull(),
    content: bytea('content'),
    bytes: integer('bytes'),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('report_files_user_idx').on(t.userId, t.createdAt)],
);
