import type { TScansStatsQuery } from '@perimeter/contracts';
import type { CveFinding, LeakFinding, TemplateFinding } from '@perimeter/engine';
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Database, Db, DbOrTx } from '../../db/client.ts';
import * as schema from '../../db/schema/index.ts';
import {
  billingInvoices,
  findingSightings,
  findingsExploitDb,
  findingsExploitScanner,
  findingsLeakcheck,
  scanAssets,
  scanScope,
  scans,
  scanTargets,
  targets,
} from '../../db/schema/index.ts';
import { scanMessage } from '../../lib/scan-messages.ts';
import { applyIntelToFindings } from '../intel/intel-repo.ts';
import { apiSeverity, type ScopeRow } from './scans-fns.ts';

export type ScanRow = typeof scans.$inferSelect;
export type ExecuteSql = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;

/**
 * A transaction on one pooled client, handing out both a Drizzle handle and the raw
 * `executeSql` pg-boss needs, so a job is enqueued in the same transaction as its row.
 */
export async function withClientTransaction<T>(
  database: Database,
  fn: (db: Db, executeSql: ExecuteSql) => Promise<T>,
): Promise<T> {
  const client = await database.pool.connect();
  try {
    await client.query('begin');
    const db = drizzle(client, { schema });
    const result = await fn(db, async (text, values) => client.query(text, values));
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export async function insertScan(
  db: DbOrTx,
  row: typeof scans.$inferInsert,
  targetIds: string[],
): Promise<ScanRow> {
  const [scan] = await db.insert(scans).values(row).returning();
  if (!scan) throw new Error('scan insert returned nothing');
  await db.insert(scanTargets).values(targetIds.map((targetId) => ({ scanId: scan.id, targetId })));
  return scan;
}

export async function getScan(db: DbOrTx, userId: string, id: string): Promise<ScanRow | undefined> {
  const [row] = await db
    .select()
    .from(scans)
    .where(and(eq(scans.userId, userId), eq(scans.id, id)));
  return row;
}

export async function getScanById(db: DbOrTx, id: string): Promise<ScanRow | undefined> {
  const [row] = await db.select().from(scans).where(eq(scans.id, id));
  return row;
}

export async function scanTargetRows(db: DbOrTx, scanIds: string[]) {
  if (scanIds.length === 0) return [];
  return db
    .select({ scanId: scanTargets.scanId, target: targets })
    .from(scanTargets)
    .innerJoin(targets, eq(targets.id, scanTargets.targetId))
    .where(inArray(scanTargets.scanId, scanIds))
    .orderBy(targets.createdAt);
}

/** Moves a scan from one status to another; undefined when it was not in `from`. */
export async function transition(
  db: DbOrTx,
  where: { id: string; userId?: string; from: string[] },
  set: Partial<typeof scans.$inferInsert>,
): Promise<ScanRow | undefined> {
  const [row] = await db
    .update(scans)
    .set({ ...set, updatedAt: new Date() })
    .where(
      and(
        eq(scans.id, where.id),
        where.userId ? eq(scans.userId, where.userId) : undefined,
        inArray(scans.status, where.from),
      ),
    )
    .returning();
  return row;
}

/** Scans started (queued) since the first day of this month, UTC. */
export async function countStartedThisMonth(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(scans)
    .where(
      and(
        eq(scans.userId, userId),
        sql`${scans.queuedAt} >= date_trunc('month', now() at time zone 'utc') at time zone 'utc'`,
      ),
    );
  return row?.n ?? 0;
}

/**
 * Binds this scan to one unused paid one-time payment (try_it) of the user: the oldest, locked so two
 * concurrent scan creations can never use the same payment (the second skips it and finds none).
 * Idempotent: a scan already bound returns true. False when no unused payment is left.
 */
export async function claimOneTimePayment(db: DbOrTx, userId: string, scanId: string): Promise<boolean> {
  const bound = await db
    .select({ id: billingInvoices.id })
    .from(billingInvoices)
    .where(and(eq(billingInvoices.userId, userId), eq(billingInvoices.consumedScanId, scanId)));
  if (bound.length) return true;
  const claimed = await db.execute(sql`
    update ${billingInvoices} set consumed_scan_id = ${scanId}::uuid, consumed_at = now()
    where id = (
      select id from ${billingInvoices}
      where user_id = ${userId}::uuid and plan = 'try_it' and status = 'paid' and consumed_scan_id is null
      order by created_at, id limit 1 for update skip locked
    ) returning id`);
  return claimed.rows.length > 0;
}

/** The user's paid one-time payments, and how many of them a scan has used. */
export async function oneTimePayments(db: DbOrTx, userId: string): Promise<{ paid: number; used: number }> {
  const [row] = await db
    .select({
      paid: sql<number>`count(*)::int`,
      used: sql<number>`count(${billingInvoices.consumedScanId})::int`,
    })
    .from(billingInvoices)
    .where(
      and(
        eq(billingInvoices.userId, userId),
        eq(billingInvoices.plan, 'try_it'),
        eq(billingInvoices.status, 'paid'),
      ),
    );
  return { paid: row?.paid ?? 0, used: row?.used ?? 0 };
}

const SCAN_SORT = {
  created_at: scans.createdAt,
  started_at: scans.startedAt,
  finished_at: scans.finishedAt,
  status: scans.status,
  scan_type: scans.scanType,
} as const;

export async function listScans(
  db: DbOrTx,
  userId: string,
  q: TScansStatsQuery,
): Promise<{ rows: ScanRow[]; total: number }> {
  const conditions: (SQL | undefined)[] = [
    eq(scans.userId, userId),
    eq(scans.targetType, q.filter_target_type ?? q.targets_type),
    inArray(scans.status, q.status),
    q.custom_scan_config === undefined ? undefined : eq(scans.customScanConfig, q.custom_scan_config),
    q.filter_user_target_id
      ? sql`exists (select 1 from ${scanTargets} st where st.scan_id = ${scans.id} and st.target_id = ${q.filter_user_target_id})`
      : undefined,
  ];
  const where = and(...conditions);
  const order = q.sort_key
    ? [
        q.sort_order === 'asc'
          ? sql`${SCAN_SORT[q.sort_key]} asc nulls first`
          : sql`${SCAN_SORT[q.sort_key]} desc nulls last`,
        desc(scans.id),
      ]
    : [desc(scans.createdAt), desc(scans.id)];
  const [rows, [count]] = await Promise.all([
    db
      .select()
      .from(scans)
      .where(where)
      .orderBy(...order)
      .limit(q.limit)
      .offset(q.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(scans).where(where),
  ]);
  return { rows, total: count?.n ?? 0 };
}

/** Findings each scan saw, by severity. */
export async function severityCounts(
  db: DbOrTx,
  scanIds: string[],
): Promise<{ scanId: string; severity: string; n: number }[]> {
  if (scanIds.length === 0) return [];
  const ids = sql.join(
    scanIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const result = await db.execute<{ scan_id: string; severity: string; n: number }>(sql`
    select s.scan_id, f.severity, count(*)::int as n
    from finding_sightings s
    join (
      select id, severity from findings_exploit_scanner
      union all select id, severity from findings_exploit_db
      union all select id, severity from findings_leakcheck
    ) f on f.id = s.finding_id
    where s.scan_id in (${ids})
    group by s.scan_id, f.severity`);
  return result.rows.map((r) => ({ scanId: r.scan_id, severity: r.severity, n: r.n }));
}

export async function latestScan(
  db: DbOrTx,
  userId: string,
  filter: { targetId?: string; targetType?: string },
): Promise<ScanRow | undefined> {
  const [row] = await db
    .select()
    .from(scans)
    .where(
      and(
        eq(scans.userId, userId),
        filter.targetType ? eq(scans.targetType, filter.targetType) : undefined,
        filter.targetId
          ? sql`exists (select 1 from ${scanTargets} st where st.scan_id = ${scans.id} and st.target_id = ${filter.targetId})`
          : undefined,
      ),
    )
    .orderBy(desc(scans.createdAt), desc(scans.id))
    .limit(1);
  return row;
}

export async function databaseNow(db: DbOrTx): Promise<Date> {
  const result = await db.execute<{ now: Date | string }>(sql`select now() as now`);
  return new Date(result.rows[0]?.now ?? Date.now());
}

/** The worker's heartbeat: stamps the scan and tells whether it is still running. */
export async function heartbeat(db: DbOrTx, id: string): Promise<string | undefined> {
  const [row] = await db
    .update(scans)
    .set({ heartbeatAt: sql`case when ${scans.status} = 'running' then now() else ${scans.heartbeatAt} end` })
    .where(eq(scans.id, id))
    .returning({ status: scans.status });
  return row?.status;
}

/**
 * Claims running scans whose worker went silent (one claimer wins) and puts them back to
 * pending, so their jobs can be failed and retried elsewhere.
 */
export async function claimStaleScans(
  db: DbOrTx,
  silentSeconds: number,
): Promise<{ id: string; jobId: string | null }[]> {
  return db
    .update(scans)
    .set({
      status: 'pending',
      heartbeatAt: sql`now()`,
      message: scanMessage('worker_lost'),
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(scans.status, 'running'),
        sql`${scans.heartbeatAt} < now() - make_interval(secs => ${silentSeconds})`,
      ),
    )
    .returning({ id: scans.id, jobId: scans.jobId });
}

/**
 * Scans still pending or running whose pg-boss job has ended (failed by its lease, cancelled,
 * completed or archived) for longer than `graceSeconds`: nothing will run them any more.
 */
export async function scansWithEndedJobs(db: DbOrTx, graceSeconds: number): Promise<{ id: string }[]> {
  const result = await db.execute<{ id: string }>(sql`
    select s.id from ${scans} s
    where s.status in ('pending', 'running') and s.job_id is not null
      and s.updated_at < now() - make_interval(secs => ${graceSeconds})
      and not exists (
        select 1 from pgboss.job j
        where j.name = 'scan-run' and j.id = s.job_id::uuid and j.state < 'completed'
      )`);
  return result.rows;
}

export async function writeProgress(
  db: DbOrTx,
  id: string,
  p: Partial<
    Pick<
      ScanRow,
      | 'stage'
      | 'percent'
      | 'counts'
      | 'etaSeconds'
      | 'skippedHosts'
      | 'summary'
      | 'message'
      | 'partial'
      | 'templateSets'
    >
  >,
): Promise<void> {
  const now = new Date();
  await db
    .update(scans)
    .set({ ...p, heartbeatAt: now, updatedAt: now })
    .where(and(eq(scans.id, id), inArray(scans.status, ['running', 'canceled'])));
}

export async function saveAssets(
  db: DbOrTx,
  scanId: string,
  assets: { kind: string; key: string; data: Record<string, unknown> }[],
): Promise<void> {
  if (assets.length === 0) return;
  const unique = new Map(assets.map((a) => [`${a.kind}|${a.key}`, a]));
  await db
    .insert(scanAssets)
    .values([...unique.values()].map((a) => ({ scanId, ...a })))
    .onConflictDoUpdate({
      target: [scanAssets.scanId, scanAssets.kind, scanAssets.key],
      set: { data: sql`excluded.data` },
    });
}

export async function saveScope(db: DbOrTx, scanId: string, rows: ScopeRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(scanScope)
    .values(rows.map((r) => ({ scanId, ...r })))
    .onConflictDoUpdate({
      target: [scanScope.scanId, scanScope.name],
      set: {
        kind: sql`excluded.kind`,
        mainDomain: sql`excluded.main_domain`,
        ipAddresses: sql`excluded.ip_addresses`,
        openedPorts: sql`excluded.opened_ports`,
        services: sql`excluded.services`,
        technologies: sql`excluded.technologies`,
        emails: sql`excluded.emails`,
        cnames: sql`excluded.cnames`,
        urls: sql`excluded.urls`,
      },
    });
}

type FindingTable = typeof findingsExploitScanner | typeof findingsExploitDb | typeof findingsLeakcheck;

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
    severityOrdering: { critical: 5, high: 4, medium: 3, low: 2, informational: 1, unknown: 0 }[severity],
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

interface Upserted {
  id: string;
  status: string;
  firstScanId: string | null;
  host: string;
}

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
      .returning({ id: t.id, status: t.status, firstScanId: t.firstScanId, host: t.host });
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
      .returning({ id: t.id, status: t.status, firstScanId: t.firstScanId, host: t.host });
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
      .returning({ id: t.id, status: t.status, firstScanId: t.firstScanId, host: t.mainDomain });
    await recordSightings(db, scanId, userId, 'leakcheck', rows);
  }
}

const TABLES = {
  exploit_scanner: findingsExploitScanner,
  exploit_db: findingsExploitDb,
  leakcheck: findingsLeakcheck,
} as const;

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
    const t = TABLES[sub as keyof typeof TABLES];
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

export async function listScope(
  db: DbOrTx,
  scanId: string,
  opts: {
    nameFilter?: { value: string; contains: boolean };
    order: 'asc' | 'desc';
    sortKey: 'relevance' | 'name';
    limit: number;
    offset: number;
  },
) {
  // The highest severity this scan found on the host (same join as hostRisk).
  const risk = sql`(select max(f.severity_ordering) from finding_sightings s
    join (
      select id, severity_ordering from findings_exploit_scanner
      union all select id, severity_ordering from findings_exploit_db
      union all select id, severity_ordering from findings_leakcheck
    ) f on f.id = s.finding_id
    where s.scan_id = ${scanScope.scanId} and s.host = ${scanScope.name})`;
  const dir = opts.order === 'asc' ? sql`asc nulls first` : sql`desc nulls last`;
  const order =
    opts.sortKey === 'name'
      ? [opts.order === 'asc' ? asc(scanScope.name) : desc(scanScope.name)]
      : [
          sql`${risk} ${dir}`,
          sql`cardinality(${scanScope.openedPorts}) ${opts.order === 'asc' ? sql`asc` : sql`desc`}`,
          asc(scanScope.name),
        ];
  const pattern = opts.nameFilter
    ? opts.nameFilter.contains
      ? `%${escapeLike(opts.nameFilter.value)}%`
      : escapeLike(opts.nameFilter.value)
    : null;
  const where = and(
    eq(scanScope.scanId, scanId),
    pattern ? sql`${scanScope.name} ilike ${pattern}` : undefined,
  );
  const [rows, [count]] = await Promise.all([
    db
      .select()
      .from(scanScope)
      .where(where)
      .orderBy(...order)
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(scanScope).where(where),
  ]);
  return { rows, total: count?.n ?? 0 };
}

/** Highest severity and number of this scan's findings per host. */
export async function hostRisk(db: DbOrTx, scanId: string, hosts: string[]) {
  if (hosts.length === 0) return [];
  const list = sql.join(
    hosts.map((h) => sql`${h}`),
    sql`, `,
  );
  const result = await db.execute<{ host: string; ord: number; n: number }>(sql`
    select s.host, max(f.severity_ordering)::int as ord, count(*)::int as n
    from finding_sightings s
    join (
      select id, severity_ordering from findings_exploit_scanner
      union all select id, severity_ordering from findings_exploit_db
      union all select id, severity_ordering from findings_leakcheck
    ) f on f.id = s.finding_id
    where s.scan_id = ${scanId}::uuid and s.host in (${list})
    group by s.host`);
  return result.rows;
}

export async function scopeSummary(db: DbOrTx, scanId: string): Promise<Record<string, number>> {
  const result = await db.execute<Record<string, number>>(sql`
    select count(*)::int as hosts,
      count(*) filter (where kind = 'subdomain')::int as subdomains,
      (select count(distinct ip) from scan_scope, unnest(ip_addresses) ip where scan_id = ${scanId}::uuid)::int as ip_addresses,
      -- once per host:port — an address's names and its own row list the same open port
      (select count(distinct (coalesce(ip, name), p)) from scan_scope
        cross join lateral unnest(opened_ports) p
        left join lateral unnest(ip_addresses) ip on true
        where scan_id = ${scanId}::uuid)::int as opened_ports,
      (select count(distinct e) from scan_scope, unnest(emails) e where scan_id = ${scanId}::uuid)::int as emails,
      coalesce(sum(jsonb_array_length(technologies)), 0)::int as technologies
    from scan_scope where scan_id = ${scanId}::uuid`);
  return result.rows[0] ?? {};
}

export function escapeLike(v: string): string {
  return v.replace(/[\\%_]/g, (c) => `\\${c}`);
}
