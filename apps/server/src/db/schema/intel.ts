import { boolean, integer, jsonb, pgTable, real, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true });

/**
 * One row per vulnerability-intelligence source (nvd, kev, epss, retire): where its sync stands
 * (the cursor a crashed or failed run resumes from), what the last runs gave, and the lease that
 * keeps one run at a time across workers and the CLI.
 */
export const intelSources = pgTable('intel_sources', {
  source: text('source').primaryKey(),
  cursor: jsonb('cursor').$type<Record<string, unknown>>().notNull().default({}),
  records: integer('records').notNull().default(0),
  lastRunAt: ts('last_run_at'),
  lastSuccessAt: ts('last_success_at'),
  lastError: text('last_error'),
  lastErrorAt: ts('last_error_at'),
  leaseOwner: text('lease_owner'),
  leaseUntil: ts('lease_until'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** CISA Known Exploited Vulnerabilities catalogue, replaced whole at each sync. */
export const vulnKev = pgTable('vuln_kev', {
  cveId: text('cve_id').primaryKey(),
  vendorProject: text('vendor_project'),
  product: text('product'),
  name: text('name'),
  /** YYYY-MM-DD as CISA writes it. */
  dateAdded: text('date_added').notNull(),
  dueDate: text('due_date'),
  knownRansomware: boolean('known_ransomware').notNull().default(false),
  requiredAction: text('required_action'),
});

/** FIRST EPSS: probability of exploitation in the next 30 days and its percentile, per CVE. */
export const vulnEpss = pgTable('vuln_epss', {
  cveId: text('cve_id').primaryKey(),
  score: real('score').notNull(),
  percentile: real('percentile').notNull(),
  scoreDate: text('score_date'),
});
