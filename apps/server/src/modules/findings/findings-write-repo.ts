import { SEVERITY_RANK, type TSeverity } from '@perimeter/contracts';
import type { CveFinding, Severity as EngineSeverity, LeakFinding, TemplateFinding } from '@perimeter/engine';
import { type AnyColumn, and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  findingSightings,
  findingsExploitDb,
  findingsExploitScanner,
  findingsLeakcheck,
} from '../../db/schema/index.ts';
import { applyIntelToFindings } from '../intel/intel-repo.ts';
import { FINDING_TABLES, type FindingRow, pageColumnsOf, type Subclass } from './findings-repo.ts';

/*
 * The write side of the finding tables: a scan's worker upserts what it saw (by target and
 * fingerprint, so a retried scan never duplicates) and, at the end, marks what it no longer sees
 * as fixed.
 */

/** The engine says `info` where the API says `informational`. */
function apiSeverity(s: EngineSeverity | string): TSeverity {
  return s === 'info' ? 'informational' : (s as TSeverity);
}

type FindingTable = (typeof FINDING_TABLES)[Subclass];

/** The lifecycle update when a finding is seen by `scanId` (SQL over the existing row). */
function seenAgain(table: FindingTable, scanId: string) {
  const t = table;
  return {
    status: sql`case when ${t.lastScanId} = ${scanId}::uuid then ${t.status} when ${t.status} = 'fixed' then 'regressed' else 'open' end`,
    resolved: sql`case when ${t.status} = 'fixed' and ${t.resolvedReason} = 'fixed' then false else ${t.resolved} end`,
    resolvedReason: sql`case when ${t.status} = 'fixed' and ${t.resolvedReason} = 'fixed' then null else ${t.resolvedReason} end`,
    fixedAt: sql`case when ${t.status} = 'fixed' then null else ${t.fixedAt} end`,
    fixedScanId: sql`case when ${t.status} = 'fixed' then null else ${t.fixedScanId} end`,
    lastSeen: sql`now()`,
    lastScanId: sql`${scanId}::uuid`,
    severity: sql`excluded.severity`,
    severityOrdering: sql`excluded.severity_ordering`,
    detail: sql`excluded.detail`,
  };
}

export interface SeenFinding<F> {
  targetId: string;
  finding: F;
}

const common = (
  userId: string,
  scanId: string,
  targetId: string,
  f: { fingerprint: string; severity: string; mainDomain: string },
) => {
  const severity = apiSeverity(f.severity);
  return {
    userId,
    targetId,
    fingerprint: f.fingerprint,
    severity,
    severityOrdering: SEVERITY_RANK[severity],
    mainDomain: f.mainDomain,
    firstScanId: scanId,
    lastScanId: scanId,
  };
};

const detailOf = (f: object) => JSON.parse(JSON.stringify(f)) as Record<string, unknown>;
const isoOrNull = (v: string | undefined) => {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

function dedupe<F extends { fingerprint: string }>(list: SeenFinding<F>[]): SeenFinding<F>[] {
  return [...new Map(list.map((x) => [`${x.targetId}|${x.finding.fingerprint}`, x])).values()];
}

/** What an upsert returns for the scan's sightings (`host`: the table's host column). */
function upserted<H extends AnyColumn>(t: FindingTable, host: H) {
  return {
    id: t.id,
    status: t.status,
    firstScanId: t.firstScanId,
    host,
    severityOrdering: t.severityOrdering,
  };
}
type Upserted = {
  id: string;
  status: string;
  firstScanId: string | null;
  host: string;
  severityOrdering: number;
};

async function recordSightings(
  db: DbOrTx,
  scanId: string,
  userId: string,
  subclass: string,
  rows: Upserted[],
) {
  if (rows.length === 0) return;
  await db
    .insert(findingSightings)
    .values(
      rows.map((r) => ({
        scanId,
        findingId: r.id,
        subclass,
        userId,
        host: r.host,
        severityOrdering: r.severityOrdering,
        change: r.firstScanId === scanId ? 'new' : r.status === 'regressed' ? 'regressed' : 'seen',
      })),
    )
    .onConflictDoNothing();
}

/** Upserts findings by (target, fingerprint) and records that this scan saw them. */
export async function upsertFindings(
  db: DbOrTx,
  scanId: string,
  userId: string,
  batch: {
    exploit_scanner: SeenFinding<TemplateFinding>[];
    exploit_db: SeenFinding<CveFinding>[];
    leakcheck: SeenFinding<LeakFinding>[];
  },
): Promise<void> {
  const es = dedupe(batch.exploit_scanner);
  if (es.length) {
    const t = findingsExploitScanner;
    const rows = await db
      .insert(t)
      .values(
        es.map(({ targetId, finding: f }) => ({
          ...common(userId, scanId, targetId, f),
          templateId: f.templateId,
          name: f.name,
          host: f.host,
          subdomain: f.subdomain,
          matchedAt: f.matchedAt,
          detail: detailOf(f),
        })),
      )
      .onConflictDoUpdate({
        target: [t.targetId, t.fingerprint],
        set: { ...seenAgain(t, scanId), name: sql`excluded.name`, matchedAt: sql`excluded.matched_at` },
      })
      .returning(upserted(t, t.host));
    await recordSightings(db, scanId, userId, 'exploit_scanner', rows);
  }
  const ed = dedupe(batch.exploit_db);
  if (ed.length) {
    const t = findingsExploitDb;
    const rows = await db
      .insert(t)
      .values(
        ed.map(({ targetId, finding: f }) => ({
          ...common(userId, scanId, targetId, f),
          tech: f.tech,
          version: f.version,
          cve: f.cve,
          host: f.host,
          subdomain: f.subdomain,
          port: f.port ?? null,
          cvssScore: f.cvssScore ?? null,
          infoCreatedTs: isoOrNull(f.infoCreatedTs),
          infoUpdatedTs: isoOrNull(f.infoUpdatedTs),
          lastCheckTs: isoOrNull(f.lastCheckTs) ?? new Date(),
          detail: detailOf(f),
        })),
      )
      .onConflictDoUpdate({
        target: [t.targetId, t.fingerprint],
        set: {
          ...seenAgain(t, scanId),
          cvssScore: sql`excluded.cvss_score`,
          infoUpdatedTs: sql`excluded.info_updated_ts`,
          lastCheckTs: sql`excluded.last_check_ts`,
          lastUpdateTs: sql`now()`,
          detail: sql`excluded.detail`,
        },
      })
      .returning(upserted(t, t.host));
    await recordSightings(db, scanId, userId, 'exploit_db', rows);
    // CISA KEV and EPSS of the CVEs just seen (a sync refreshes every finding later on).
    await applyIntelToFindings(
      db,
      rows.map((r) => r.id),
    );
  }
  const lc = dedupe(batch.leakcheck);
  if (lc.length) {
    const t = findingsLeakcheck;
    const rows = await db
      .insert(t)
      .values(
        lc.map(({ targetId, finding: f }) => {
          const { passwordEncrypted, ...shown } = f;
          return {
            ...common(userId, scanId, targetId, { ...f, severity: f.password ? 'high' : 'medium' }),
            email: f.email,
            password: f.password,
            passwordEncrypted: passwordEncrypted ?? null,
            leakDate: f.leakDate ?? null,
            sources: f.sources,
            detail: detailOf(shown),
          };
        }),
      )
      .onConflictDoUpdate({
        target: [t.targetId, t.fingerprint],
        set: { ...seenAgain(t, scanId), sources: sql`excluded.sources` },
      })
      .returning(upserted(t, t.mainDomain));
    await recordSightings(db, scanId, userId, 'leakcheck', rows);
  }
}

/**
 * What a scan may conclude about the findings it did not see (honest completion): a finding is
 * fixed only when the check that found it ran and came back negative.
 */
export interface FixRule {
  /** Subclasses whose stage did not run to its end, or skipped work: none of their findings is fixed. */
  undecided: string[];
  /**
   * exploit_scanner, per check: may this template's finding on this host be fixed? (The template
   * ran against the host and answered; or the scan ran whole and the host is no longer there.)
   */
  isTemplateFixable?: (templateId: string, host: string) => boolean;
}

/**
 * After a completed scan: findings of its targets and subclasses it did not see, and that no
 * other scan saw since it started (scans of one target may overlap), are fixed — as far as
 * `rule` says the scan could tell. Returns how many were fixed.
 */
export async function markUnseenFixed(
  db: DbOrTx,
  scanId: string,
  targetIds: string[],
  subclasses: string[],
  startedAt: Date,
  rule: FixRule = { undecided: [] },
): Promise<number> {
  let n = 0;
  for (const sub of subclasses) {
    const t = FINDING_TABLES[sub as Subclass];
    if (!t || targetIds.length === 0 || rule.undecided.includes(sub)) continue;
    const unseen = and(
      inArray(t.targetId, targetIds),
      sql`${t.status} <> 'fixed'`,
      sql`${t.lastSeen} < ${startedAt.toISOString()}::timestamptz`,
      sql`not exists (select 1 from ${findingSightings} s where s.scan_id = ${scanId}::uuid and s.finding_id = ${t.id})`,
    );
    let where = unseen;
    const fixable = rule.isTemplateFixable;
    if (sub === 'exploit_scanner' && fixable) {
      const es = findingsExploitScanner;
      const candidates = await db
        .select({ id: es.id, templateId: es.templateId, host: es.host })
        .from(es)
        .where(unseen);
      const ids = candidates.filter((c) => fixable(c.templateId, c.host)).map((c) => c.id);
      if (ids.length === 0) continue;
      where = and(unseen, inArray(t.id, ids));
    }
    const rows = await db
      .update(t)
      .set({ status: 'fixed', fixedAt: sql`now()`, fixedScanId: scanId })
      .where(where)
      .returning({ id: t.id });
    n += rows.length;
  }
  return n;
}

/** A finding resolved (with its reason) or reopened by its owner; undefined when not theirs. */
export async function setResolved(
  db: DbOrTx,
  userId: string,
  sub: Subclass,
  id: string,
  resolved: { reason: string } | null,
): Promise<FindingRow | undefined> {
  const t = FINDING_TABLES[sub] as typeof findingsExploitScanner;
  const [row] = await db
    .update(t)
    .set(
      resolved
        ? { resolved: true, resolvedReason: resolved.reason, resolvedAt: new Date() }
        : { resolved: false, resolvedReason: null, resolvedAt: null },
    )
    .where(and(eq(t.userId, userId), eq(t.id, id)))
    .returning(pageColumnsOf(sub));
  return row ? ({ ...row, subclass: sub } as FindingRow) : undefined;
}
