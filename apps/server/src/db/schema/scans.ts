import type {
  TScanPartial,
  TScanTemplateSet,
  TSkippedHostCode,
  TTemplateSelection,
} from '@perimeter/contracts';
import { sql } from 'drizzle-orm';
import {
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './identity.ts';
import { targets } from './targets.ts';

/** One scan of one or more targets of the same type; progress is written here as it runs. */
export const scans = pgTable(
  'scans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** running | pending | done | created | canceled */
    status: text('status').notNull().default('created'),
    targetType: text('target_type').notNull(),
    /** full | custom */
    scanType: text('scan_type').notNull(),
    customScanConfig: boolean('custom_scan_config').notNull().default(false),
    classes: text('classes').array().notNull().default(sql`'{}'::text[]`),
    /** The finding subclasses this scan runs (resolved from classes/subclasses at creation). */
    subclasses: text('subclasses').array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    queuedAt: timestamp('queued_at', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** Written by the worker while it runs (also a heartbeat). */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
    stage: text('stage'),
    percent: integer('percent').notNull().default(0),
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default({}),
    etaSeconds: integer('eta_seconds'),
    skippedHosts: jsonb('skipped_hosts')
      .$type<
        { host: string; reason: string; code?: TSkippedHostCode; params?: Record<string, string | number> }[]
      >()
      .notNull()
      .default([]),
    /** Why the scan ended early, or the engine's failure. */
    message: text('message'),
    /** Set when the scan could not be run to its end (retries used up): it ends canceled with this reason. */
    failureReason: text('failure_reason'),
    summary: jsonb('summary').$type<Record<string, unknown>>(),
    attempts: integer('attempts').notNull().default(0),
    jobId: text('job_id'),
    /** Not null when the scan ended without everything planned having run (honest completion). */
    partial: jsonb('partial').$type<TScanPartial>(),
    /** The template sets the scan ran (name, source version, content hash, templates). */
    templateSets: jsonb('template_sets').$type<TScanTemplateSet[]>().notNull().default([]),
    /** Template selection of a custom scan (severities, tags, exclusions). */
    templateSelection: jsonb('template_selection').$type<TTemplateSelection>(),
  },
  (t) => [
    index('scans_user_created_idx').on(t.userId, t.createdAt),
    index('scans_user_status_idx').on(t.userId, t.status),
    index('scans_user_started_idx').on(t.userId, t.startedAt),
    index('scans_user_finished_idx').on(t.userId, t.finishedAt),
  ],
);

export const scanTargets = pgTable(
  'scan_targets',
  {
    scanId: uuid('scan_id')
      .notNull()
      .references(() => scans.id, { onDelete: 'cascade' }),
    targetId: uuid('target_id')
      .notNull()
      .references(() => targets.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.scanId, t.targetId] }), index('scan_targets_target_idx').on(t.targetId)],
);

/** Every asset event of a scan (subdomain, ip, service, url, technology, email), keyed so a retry overwrites. */
export const scanAssets = pgTable(
  'scan_assets',
  {
    scanId: uuid('scan_id')
      .notNull()
      .references(() => scans.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.scanId, t.kind, t.key] })],
);

/** The scope of a scan: one row per host name (or bare address), merged from its assets. */
export const scanScope = pgTable(
  'scan_scope',
  {
    scanId: uuid('scan_id')
      .notNull()
      .references(() => scans.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** subdomain | ip */
    kind: text('kind').notNull(),
    mainDomain: text('main_domain'),
    ipAddresses: text('ip_addresses').array().notNull(),
    openedPorts: integer('opened_ports').array().notNull(),
    services: jsonb('services')
      .$type<{ port: number; service: string; product: string | null; version: string | null }[]>()
      .notNull(),
    technologies: jsonb('technologies').$type<{ name: string; version: string | null }[]>().notNull(),
    emails: text('emails').array().notNull(),
    cnames: text('cnames').array().notNull(),
    urls: text('urls').array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.scanId, t.name] })],
);

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * Template sets the operator installed (`npm run cli -- templates import`): the archive itself
 * lives here so every worker, on any machine, runs the same bytes; workers unpack it once per
 * content hash into their data dir. See docs/template-sets.md.
 */
export const templateSets = pgTable('template_sets', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** The source's own version (a release tag or commit) when it states one. */
  sourceVersion: text('source_version'),
  /** sha256 over every file's path and content, in path order. */
  contentHash: text('content_hash').notNull().unique('template_sets_content_hash_key'),
  /** The set as a .tar.gz. */
  archive: bytea('archive').notNull(),
  active: boolean('active').notNull().default(true),
  files: integer('files').notNull(),
  loaded: integer('loaded').notNull(),
  skipped: integer('skipped').notNull(),
  invalid: integer('invalid').notNull(),
  /** Skipped and invalid templates grouped by reason, as the engine's loader gave them. */
  reasons: jsonb('reasons')
    .$type<{ kind: 'skipped' | 'invalid'; reason: string; count: number; examples: string[] }[]>()
    .notNull()
    .default([]),
  /** Tags and files the set's own ignore list (nuclei's `.nuclei-ignore`) leaves out by default. */
  excludedTags: text('excluded_tags').array().notNull().default(sql`'{}'::text[]`),
  excludedFiles: text('excluded_files').array().notNull().default(sql`'{}'::text[]`),
  importedAt: timestamp('imported_at', { withTimezone: true }).notNull().defaultNow(),
});
