import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './identity.ts';
import { scans } from './scans.ts';
import { targets } from './targets.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true });

/**
 * Columns every finding table shares: the owner, the stable fingerprint (target + subclass + the
 * fields that identify the finding), and the lifecycle (new → open → fixed → regressed; resolved).
 */
const lifecycle = () => ({
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  targetId: uuid('target_id')
    .notNull()
    .references(() => targets.id, { onDelete: 'cascade' }),
  fingerprint: text('fingerprint').notNull(),
  severity: text('severity').notNull(),
  severityOrdering: integer('severity_ordering').notNull(),
  mainDomain: text('main_domain').notNull(),
  /** new | open | fixed | regressed */
  status: text('status').notNull().default('new'),
  resolved: boolean('resolved').notNull().default(false),
  /** false_positive | accepted_risk | fixed */
  resolvedReason: text('resolved_reason'),
  resolvedAt: ts('resolved_at'),
  addTs: ts('add_ts').notNull().defaultNow(),
  firstSeen: ts('first_seen').notNull().defaultNow(),
  lastSeen: ts('last_seen').notNull().defaultNow(),
  fixedAt: ts('fixed_at'),
  firstScanId: uuid('first_scan_id'),
  lastScanId: uuid('last_scan_id'),
  /** The scan that found it gone. */
  fixedScanId: uuid('fixed_scan_id'),
  /** The engine's finding as reported (evidence masked). */
  detail: jsonb('detail').$type<Record<string, unknown>>().notNull(),
});

export const findingsExploitScanner = pgTable(
  'findings_exploit_scanner',
  {
    ...lifecycle(),
    templateId: text('template_id').notNull(),
    name: text('name').notNull(),
    host: text('host').notNull(),
    subdomain: text('subdomain').notNull(),
    matchedAt: text('matched_at').notNull(),
  },
  (t) => [
    uniqueIndex('fes_target_fp_key').on(t.targetId, t.fingerprint),
    index('fes_user_name_idx').on(t.userId, t.name, t.id),
    index('fes_user_sevord_idx').on(t.userId, t.severityOrdering, t.id),
    index('fes_user_host_idx').on(t.userId, t.host, t.id),
    index('fes_user_main_domain_idx').on(t.userId, t.mainDomain, t.id),
    index('fes_user_subdomain_idx').on(t.userId, t.subdomain, t.id),
    index('fes_user_add_ts_idx').on(t.userId, t.addTs, t.id),
    // main_domain equality with the default order (severity): the page is read in index order.
    index('fes_user_main_domain_sev_idx').on(t.userId, t.mainDomain, t.severityOrdering, t.id),
    index('fes_user_subdomain_sev_idx').on(t.userId, t.subdomain, t.severityOrdering, t.id),
  ],
);

export const findingsExploitDb = pgTable(
  'findings_exploit_db',
  {
    ...lifecycle(),
    tech: text('tech').notNull(),
    version: text('version').notNull(),
    cve: text('cve').notNull(),
    host: text('host').notNull(),
    subdomain: text('subdomain').notNull(),
    port: integer('port'),
    cvssScore: real('cvss_score'),
    infoCreatedTs: ts('info_created_ts'),
    infoUpdatedTs: ts('info_updated_ts'),
    lastUpdateTs: ts('last_update_ts').notNull().defaultNow(),
    lastCheckTs: ts('last_check_ts').notNull().defaultNow(),
    /** CISA KEV and FIRST EPSS of the CVE, refreshed at each sync (modules/intel). */
    kev: boolean('kev').notNull().default(false),
    kevDateAdded: text('kev_date_added'),
    kevDueDate: text('kev_due_date'),
    kevRansomware: boolean('kev_ransomware').notNull().default(false),
    epssScore: real('epss_score'),
    epssPercentile: real('epss_percentile'),
  },
  (t) => [
    uniqueIndex('fdb_target_fp_key').on(t.targetId, t.fingerprint),
    index('fdb_user_tech_idx').on(t.userId, t.tech, t.id),
    index('fdb_user_version_idx').on(t.userId, t.version, t.id),
    index('fdb_user_info_created_idx').on(t.userId, t.infoCreatedTs, t.id),
    index('fdb_user_info_updated_idx').on(t.userId, t.infoUpdatedTs, t.id),
    index('fdb_user_main_domain_idx').on(t.userId, t.mainDomain, t.id),
    index('fdb_user_last_update_idx').on(t.userId, t.lastUpdateTs, t.id),
    index('fdb_user_last_check_idx').on(t.userId, t.lastCheckTs, t.id),
    index('fdb_user_cve_idx').on(t.userId, t.cve, t.id),
    index('fdb_user_add_ts_idx').on(t.userId, t.addTs, t.id),
    index('fdb_user_severity_idx').on(t.userId, t.severityOrdering, t.id),
    index('fdb_user_main_domain_sev_idx').on(t.userId, t.mainDomain, t.severityOrdering, t.id),
    index('fdb_user_subdomain_sev_idx').on(t.userId, t.subdomain, t.severityOrdering, t.id),
    index('fdb_user_epss_idx').on(t.userId, t.epssScore, t.id),
    // EPSS descending with unscored CVEs last (the index above serves ascending, nulls last).
    index('fdb_user_epss_desc_idx').on(t.userId, t.epssScore.desc().nullsLast(), t.id.desc()),
    // Known-exploited findings in the default order (severity): a range read directly (0022); it
    // serves their count and their sorts by other keys too (0024 dropped the (user_id, id) one).
    index('fdb_user_kev_sev_idx').on(t.userId, t.severityOrdering, t.id).where(sql`${t.kev}`),
    index('fdb_cve_idx').on(t.cve),
    // A host's CVE findings of a technology version: the check of technology_sightings' list (0025).
    index('fdb_user_host_tech_idx')
      .on(t.userId, t.host, sql`lower(${t.tech})`, t.version)
      .where(sql`${t.cve} <> ''`),
  ],
);

/**
 * The technologies a user's finished scans detected, one row per host, technology (lower case) and
 * version (0025): folded in by triggers as each scan finishes, their CVE flag kept by triggers on
 * exploit_db's inserts and deletes; the exploit_db list of technologies without a CVE
 * (findings-tech-repo.ts) walks them by index instead of deriving them from every scan's scope.
 */
export const technologySightings = pgTable(
  'technology_sightings',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    host: text('host').notNull(),
    techKey: text('tech_key').notNull(),
    version: text('version').notNull(),
    mainDomain: text('main_domain').notNull(),
    /** The event's stable id: md5 of user, host, technology and version. */
    id: uuid('id').notNull(),
    /** The smallest spelling of the name seen. */
    tech: text('tech').notNull(),
    targetTypes: text('target_types').array().notNull(),
    firstSeen: ts('first_seen').notNull(),
    lastSeen: ts('last_seen').notNull(),
    lastScanId: uuid('last_scan_id').notNull(),
    hasCve: boolean('has_cve').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.host, t.techKey, t.version, t.mainDomain] }),
    // The list's sort keys over the rows it shows, ties by host and id.
    index('tsi_user_tech_idx').on(t.userId, t.techKey, t.host, t.id).where(sql`not ${t.hasCve}`),
    index('tsi_user_version_idx').on(t.userId, t.version, t.host, t.id).where(sql`not ${t.hasCve}`),
    index('tsi_user_main_domain_idx').on(t.userId, t.mainDomain, t.host, t.id).where(sql`not ${t.hasCve}`),
    index('tsi_user_first_seen_idx').on(t.userId, t.firstSeen, t.host, t.id).where(sql`not ${t.hasCve}`),
    index('tsi_user_last_seen_idx').on(t.userId, t.lastSeen, t.host, t.id).where(sql`not ${t.hasCve}`),
  ],
);

export const findingsLeakcheck = pgTable(
  'findings_leakcheck',
  {
    ...lifecycle(),
    email: text('email').notNull(),
    /** Masked (`pa******rd`); the clear value is never stored. */
    password: text('password').notNull(),
    /** AES-256-GCM ciphertext from the leak source, when it gave one. */
    passwordEncrypted: text('password_encrypted'),
    /** YYYY-MM-DD or YYYY-MM as the source gives it (sorts as text). */
    leakDate: text('leak_date'),
    sources: text('sources').array().notNull(),
  },
  (t) => [
    uniqueIndex('flc_target_fp_key').on(t.targetId, t.fingerprint),
    index('flc_user_email_idx').on(t.userId, t.email, t.id),
    // The e-mail filter by equality, without case: lower(email) = lower($1) (0022).
    index('flc_user_email_lower_idx').on(t.userId, sql`lower(${t.email})`),
    index('flc_user_password_idx').on(t.userId, t.password, t.id),
    index('flc_user_leak_date_idx').on(t.userId, t.leakDate, t.id),
    index('flc_user_main_domain_idx').on(t.userId, t.mainDomain, t.id),
    index('flc_user_add_ts_idx').on(t.userId, t.addTs, t.id),
    index('flc_user_sevord_idx').on(t.userId, t.severityOrdering, t.id),
    // leakcheck's default order is add_ts.
    index('flc_user_main_domain_add_ts_idx').on(t.userId, t.mainDomain, t.addTs, t.id),
  ],
);

/**
 * Which scan saw which finding (a finding's events per scan); `change` is new | seen | regressed.
 * `severity_ordering` is the finding's, set on insert and kept in step by triggers (migration 0018)
 * so one scan's findings of a severity are an index range.
 */
export const findingSightings = pgTable(
  'finding_sightings',
  {
    scanId: uuid('scan_id')
      .notNull()
      .references(() => scans.id, { onDelete: 'cascade' }),
    findingId: uuid('finding_id').notNull(),
    subclass: text('subclass').notNull(),
    userId: uuid('user_id').notNull(),
    host: text('host'),
    change: text('change').notNull(),
    seenAt: ts('seen_at').notNull().defaultNow(),
    severityOrdering: integer('severity_ordering'),
  },
  (t) => [
    primaryKey({ columns: [t.scanId, t.findingId] }),
    index('finding_sightings_finding_idx').on(t.findingId),
    index('finding_sightings_scan_sub_sev_idx').on(t.scanId, t.subclass, t.severityOrdering),
  ],
);

/** The CVE database (engine's VulnStore on PostgreSQL): one row per advisory id. */
export const vulnRecords = pgTable('vuln_records', {
  id: text('id').primaryKey(),
  source: text('source').notNull(),
  lastModified: text('last_modified'),
  record: jsonb('record').$type<Record<string, unknown>>().notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** `vendor:product` and `*:product` keys of each record's vulnerable CPE rules. */
export const vulnProducts = pgTable(
  'vuln_products',
  {
    key: text('key').notNull(),
    vulnId: text('vuln_id')
      .notNull()
      .references(() => vulnRecords.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.key, t.vulnId] }), index('vuln_products_vuln_idx').on(t.vulnId)],
);

/** The local leak index on PostgreSQL: passwords only encrypted (AES-256-GCM). */
export const leakRecords = pgTable(
  'leak_records',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    domain: text('domain').notNull(),
    passwordEncrypted: text('password_encrypted'),
    /** Digest of the clear password ('' when none), for deduplication. */
    digest: text('digest').notNull().default(''),
    /** '' when unknown. */
    leakDate: text('leak_date').notNull().default(''),
    sources: text('sources').array().notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('leak_records_key').on(t.email, t.digest, t.leakDate),
    index('leak_records_domain_idx').on(t.domain),
  ],
);
