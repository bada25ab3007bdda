import { SEVERITY_RANK, type TScansStatsQuery, type TSeverity } from '@perimeter/contracts';
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { escapeLike } from '../../db/like.ts';
import { mappedOnce, namesStatements, PreparedCache } from '../../db/prepared.ts';
import { scanAssets, scanScope, scans, scanTargets, targets } from '../../db/schema/index.ts';
import type { ScopeRow } from './scans-scope-fns.ts';

export type ScanRow = typeof scans.$inferSelect;
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

const PREPARED = new PreparedCache(4);

/**
 * Whether the scan is the user's: the check of one scan's events page, which getScan made by
 * reading and mapping the scan's whole row (~30 columns, jsonb among them) built and planned per
 * request — ~6 µs of the API's CPU per request of the bench's mix, where one request in 24 reads one
 * scan (--cpu-prof). Its id alone, the statement prepared once per handle.
 */
export async function isScanOfUser(db: DbOrTx, userId: string, id: string): Promise<boolean> {
  const statement = PREPARED.get(db, 'scan of user', () =>
    mappedOnce(
      db
        .select({ id: scans.id })
        .from(scans)
        .where(and(eq(scans.userId, sql.placeholder('user')), eq(scans.id, sql.placeholder('id'))))
        .prepare(''),
      { named: namesStatements(db) },
    ),
  );
  const rows = await statement.execute({ user: userId, id });
  return rows.length > 0;
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

/**
 * A worker takes the scan: pending or running → running, one more attempt, started now unless it
 * started before — one statement, so a worker killed right after taking it has counted its attempt.
 */
export async function claim(db: DbOrTx, id: string): Promise<ScanRow | undefined> {
  const [row] = await db
    .update(scans)
    .set({
      status: 'running',
      heartbeatAt: new Date(),
      message: null,
      attempts: sql`${scans.attempts} + 1`,
      startedAt: sql`coalesce(${scans.startedAt}, now())`,
      updatedAt: new Date(),
    })
    .where(and(eq(scans.id, id), inArray(scans.status, ['pending', 'running'])))
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

const SEVERITY_OF_RANK = Object.fromEntries(
  Object.entries(SEVERITY_RANK).map(([severity, rank]) => [rank, severity as TSeverity]),
) as Record<number, TSeverity>;

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
  // Each sighting carries its finding's severity (migration 0018): counted on the sightings alone.
  const result = await db.execute<{ scan_id: string; ord: number; n: number }>(sql`
    select scan_id, severity_ordering as ord, count(*)::int as n
    from finding_sightings
    where scan_id in (${ids}) and severity_ordering is not null
    group by scan_id, severity_ordering`);
  return result.rows.map((r) => ({
    scanId: r.scan_id,
    severity: SEVERITY_OF_RANK[r.ord] ?? 'unknown',
    n: r.n,
  }));
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
  // The highest severity this scan found on the host (as hostRisk counts it).
  const risk = sql`(select max(s.severity_ordering) from finding_sightings s
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
    select host, max(severity_ordering)::int as ord, count(*)::int as n
    from finding_sightings
    where scan_id = ${scanId}::uuid and host in (${list}) and severity_ordering is not null
    group by host`);
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
