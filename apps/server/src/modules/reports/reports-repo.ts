import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  findingSightings,
  findingsExploitDb,
  findingsExploitScanner,
  findingsLeakcheck,
  reportFiles,
  scanScope,
  scans,
  scanTargets,
  targets,
  users,
} from '../../db/schema/index.ts';

export type ScanRow = typeof scans.$inferSelect;
export type EsRow = typeof findingsExploitScanner.$inferSelect;
export type EdRow = typeof findingsExploitDb.$inferSelect;
export type LcRow = typeof findingsLeakcheck.$inferSelect;
export type ScopeRow = typeof scanScope.$inferSelect;
export type TargetRow = typeof targets.$inferSelect;

export async function findUserScan(db: DbOrTx, userId: string, scanId: string): Promise<ScanRow | undefined> {
  const [row] = await db
    .select()
    .from(scans)
    .where(and(eq(scans.id, scanId), eq(scans.userId, userId)));
  return row;
}

export async function reportUser(db: DbOrTx, userId: string) {
  const [row] = await db
    .select({ plan: users.plan, language: users.language, email: users.email, tz: users.tz })
    .from(users)
    .where(eq(users.id, userId));
  return row;
}

export async function scanTargetList(db: DbOrTx, scanId: string): Promise<TargetRow[]> {
  const rows = await db
    .select({ target: targets })
    .from(scanTargets)
    .innerJoin(targets, eq(targets.id, scanTargets.targetId))
    .where(eq(scanTargets.scanId, scanId))
    .orderBy(asc(targets.createdAt));
  return rows.map((r) => r.target);
}

/** The user's latest finished scan before this one that covered one of the same targets. */
export async function previousScanId(db: DbOrTx, scan: ScanRow, targetIds: string[]): Promise<string | null> {
  if (targetIds.length === 0) return null;
  const [row] = await db
    .select({ id: scans.id })
    .from(scans)
    .innerJoin(scanTargets, eq(scanTargets.scanId, scans.id))
    .where(
      and(
        eq(scans.userId, scan.userId),
        eq(scans.status, 'done'),
        lt(scans.createdAt, scan.createdAt),
        inArray(scanTargets.targetId, targetIds),
      ),
    )
    .orderBy(desc(scans.createdAt))
    .limit(1);
  return row?.id ?? null;
}

export interface Seen<R> {
  row: R;
  change: string;
}

/** Findings this scan saw, with how it saw them (new | seen | regressed). */
export async function seenFindings(db: DbOrTx, scanId: string) {
  const sighting = (subclass: string) =>
    and(eq(findingSightings.scanId, scanId), eq(findingSightings.subclass, subclass));
  const [es, ed, lc] = await Promise.all([
    db
      .select({ row: findingsExploitScanner, change: findingSightings.change })
      .from(findingSightings)
      .innerJoin(findingsExploitScanner, eq(findingsExploitScanner.id, findingSightings.findingId))
      .where(sighting('exploit_scanner')),
    db
      .select({ row: findingsExploitDb, change: findingSightings.change })
      .from(findingSightings)
      .innerJoin(findingsExploitDb, eq(findingsExploitDb.id, findingSightings.findingId))
      .where(sighting('exploit_db')),
    db
      .select({ row: findingsLeakcheck, change: findingSightings.change })
      .from(findingSightings)
      .innerJoin(findingsLeakcheck, eq(findingsLeakcheck.id, findingSightings.findingId))
      .where(sighting('leakcheck')),
  ]);
  return {
    exploit_scanner: es as Seen<EsRow>[],
    exploit_db: ed as Seen<EdRow>[],
    leakcheck: lc as Seen<LcRow>[],
  };
}

/** Findings this scan found gone. */
export async function fixedByScan(db: DbOrTx, userId: string, scanId: string) {
  const [es, ed, lc] = await Promise.all([
    db
      .select()
      .from(findingsExploitScanner)
      .where(and(eq(findingsExploitScanner.userId, userId), eq(findingsExploitScanner.fixedScanId, scanId))),
    db
      .select()
      .from(findingsExploitDb)
      .where(and(eq(findingsExploitDb.userId, userId), eq(findingsExploitDb.fixedScanId, scanId))),
    db
      .select()
      .from(findingsLeakcheck)
      .where(and(eq(findingsLeakcheck.userId, userId), eq(findingsLeakcheck.fixedScanId, scanId))),
  ]);
  return { exploit_scanner: es, exploit_db: ed, leakcheck: lc };
}

export async function scopeOf(db: DbOrTx, scanId: string): Promise<ScopeRow[]> {
  return db.select().from(scanScope).where(eq(scanScope.scanId, scanId)).orderBy(asc(scanScope.name));
}

/** A record of each generated file (who, which scan, format, size, time taken). */
export async function recordReportFile(
  db: DbOrTx,
  row: { userId: string; scanId: string; format: string; options: unknown; filename: string; bytes: number },
) {
  await db.insert(reportFiles).values({
    ...row,
    options: row.options ?? {},
    status: 'done',
    finishedAt: sql`now()`,
  });
}
