import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { intelSources, leakRecords, vulnEpss, vulnKev, vulnRecords } from '../../db/schema/index.ts';
import type { EpssRow, KevRow } from './intel-fns.ts';

export type SourceRow = typeof intelSources.$inferSelect;

export async function sourceRows(db: DbOrTx): Promise<SourceRow[]> {
  return db.select().from(intelSources).orderBy(asc(intelSources.source));
}

export async function sourceRow(db: DbOrTx, source: string): Promise<SourceRow | undefined> {
  const [row] = await db.select().from(intelSources).where(eq(intelSources.source, source));
  return row;
}

/**
 * Takes the source's lease (one run at a time across workers and the CLI). A lease left by a
 * crashed run expires, and the next run resumes from the stored cursor.
 */
export async function claimLease(
  db: DbOrTx,
  source: string,
  owner: string,
  seconds: number,
): Promise<boolean> {
  const rows = await db
    .insert(intelSources)
    .values({ source, leaseOwner: owner, leaseUntil: sql`now() + make_interval(secs => ${seconds})` })
    .onConflictDoUpdate({
      target: intelSources.source,
      set: {
        leaseOwner: sql`excluded.lease_owner`,
        leaseUntil: sql`excluded.lease_until`,
        lastRunAt: sql`now()`,
        updatedAt: sql`now()`,
      },
      setWhere: sql`${intelSources.leaseUntil} is null or ${intelSources.leaseUntil} < now() or ${intelSources.leaseOwner} = ${owner}`,
    })
    .returning({ source: intelSources.source });
  return rows.length === 1;
}

/** Saves the cursor after each page and extends the lease. */
export async function saveCursor(
  db: DbOrTx,
  source: string,
  owner: string,
  cursor: Record<string, unknown>,
  seconds: number,
): Promise<void> {
  await db
    .update(intelSources)
    .set({ cursor, leaseUntil: sql`now() + make_interval(secs => ${seconds})`, updatedAt: sql`now()` })
    .where(and(eq(intelSources.source, source), eq(intelSources.leaseOwner, owner)));
}

export async function finishRun(
  db: DbOrTx,
  source: string,
  owner: string,
  outcome: { ok: true; records: number } | { ok: false; error: string; records: number },
): Promise<void> {
  await db
    .update(intelSources)
    .set({
      leaseOwner: null,
      leaseUntil: null,
      records: outcome.records,
      updatedAt: sql`now()`,
      ...(outcome.ok
        ? { lastSuccessAt: sql`now()`, lastError: null, lastErrorAt: null }
        : { lastError: outcome.error.slice(0, 2000), lastErrorAt: sql`now()` }),
    })
    .where(and(eq(intelSources.source, source), eq(intelSources.leaseOwner, owner)));
}

/** `cve import` and snapshot imports count as a successful load of that source. */
export async function markImported(
  db: DbOrTx,
  source: string,
  records: number,
  at: Date,
  cursor?: Record<string, unknown>,
): Promise<void> {
  await db
    .insert(intelSources)
    .values({ source, records, lastSuccessAt: at, ...(cursor ? { cursor } : {}) })
    .onConflictDoUpdate({
      target: intelSources.source,
      set: {
        records,
        lastSuccessAt: sql`greatest(${intelSources.lastSuccessAt}, ${at})`,
        ...(cursor ? { cursor } : {}),
        updatedAt: sql`now()`,
      },
    });
}

export async function countVulnRecords(db: DbOrTx, source?: 'nvd' | 'retirejs'): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(vulnRecords)
    .where(source ? eq(vulnRecords.source, source) : undefined);
  return row?.n ?? 0;
}

export async function countRows(db: DbOrTx, table: 'kev' | 'epss'): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(table === 'kev' ? vulnKev : vulnEpss);
  return row?.n ?? 0;
}

/** Replaces the KEV catalogue in one transaction: a failure keeps the previous one. */
export async function replaceKev(db: DbOrTx, rows: KevRow[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(vulnKev);
    for (let i = 0; i < rows.length; i += 2000) await tx.insert(vulnKev).values(rows.slice(i, i + 2000));
  });
}

/** Replaces the EPSS scores in one transaction. */
export async function replaceEpss(db: DbOrTx, rows: EpssRow[], scoreDate: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(vulnEpss);
    for (let i = 0; i < rows.length; i += 5000)
      await tx.insert(vulnEpss).values(rows.slice(i, i + 5000).map((r) => ({ ...r, scoreDate })));
  });
}

/**
 * Copies KEV and EPSS onto CVE findings (all of them after a sync, or those just written by a
 * scan): denormalised so the events API filters and sorts on indexed columns.
 */
export async function applyIntelToFindings(db: DbOrTx, findingIds?: string[]): Promise<number> {
  if (findingIds && findingIds.length === 0) return 0;
  const only = findingIds ? sql`and f2.id in ${findingIds}` : sql``;
  const res = await db.execute(sql`
    update findings_exploit_db f set
      kev = x.kev, kev_date_added = x.date_added, kev_due_date = x.due_date,
      kev_ransomware = x.ransomware, epss_score = x.score, epss_percentile = x.percentile
    from (
      select f2.id, k.cve_id is not null as kev, k.date_added, k.due_date,
        coalesce(k.known_ransomware, false) as ransomware, e.score, e.percentile
      from findings_exploit_db f2
      left join vuln_kev k on k.cve_id = f2.cve
      left join vuln_epss e on e.cve_id = f2.cve
      where true ${only}
    ) x
    where f.id = x.id and (
      f.kev is distinct from x.kev or f.kev_date_added is distinct from x.date_added
      or f.kev_due_date is distinct from x.due_date or f.kev_ransomware is distinct from x.ransomware
      or f.epss_score is distinct from x.score or f.epss_percentile is distinct from x.percentile)`);
  return res.rowCount ?? 0;
}

/** KEV and EPSS of some CVEs (the scan detail and reports read them from the findings). */
export async function intelOfCves(db: DbOrTx, cves: string[]) {
  if (cves.length === 0) return { kev: [], epss: [] };
  const [kev, epss] = await Promise.all([
    db.select().from(vulnKev).where(inArray(vulnKev.cveId, cves)),
    db.select().from(vulnEpss).where(inArray(vulnEpss.cveId, cves)),
  ]);
  return { kev, epss };
}

/** Pages of records by id, for the snapshot export. */
export async function vulnRecordsAfter(db: DbOrTx, afterId: string, limit: number) {
  return db
    .select({ id: vulnRecords.id, record: vulnRecords.record })
    .from(vulnRecords)
    .where(gt(vulnRecords.id, afterId))
    .orderBy(asc(vulnRecords.id))
    .limit(limit);
}

export async function allKev(db: DbOrTx) {
  return db.select().from(vulnKev).orderBy(asc(vulnKev.cveId));
}

export async function epssAfter(db: DbOrTx, afterId: string, limit: number) {
  return db
    .select()
    .from(vulnEpss)
    .where(gt(vulnEpss.cveId, afterId))
    .orderBy(asc(vulnEpss.cveId))
    .limit(limit);
}

export async function countLeakRecords(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(leakRecords);
  return row?.n ?? 0;
}
