import { asc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { templateSets } from '../../db/schema/index.ts';

export type TemplateSetRow = typeof templateSets.$inferSelect;
/** A set without its archive (status listings, the worker's choice of sets). */
export type TemplateSetInfo = Omit<TemplateSetRow, 'archive'>;

const { archive: _archive, ...infoColumns } = getTableColumns(templateSets);

/**
 * Inserts a set, or — the same content imported again — makes the existing one active and
 * returns it. `created` says which.
 */
export async function saveTemplateSet(
  db: DbOrTx,
  values: typeof templateSets.$inferInsert,
): Promise<{ set: TemplateSetInfo; created: boolean }> {
  const [inserted] = await db
    .insert(templateSets)
    .values(values)
    .onConflictDoNothing({ target: templateSets.contentHash })
    .returning(infoColumns);
  if (inserted) return { set: inserted, created: true };
  const [existing] = await db
    .update(templateSets)
    .set({ active: true, ...(values.sourceVersion ? { sourceVersion: values.sourceVersion } : {}) })
    .where(eq(templateSets.contentHash, values.contentHash))
    .returning(infoColumns);
  return { set: existing as TemplateSetInfo, created: false };
}

export async function listTemplateSets(db: DbOrTx, onlyActive = false): Promise<TemplateSetInfo[]> {
  return db
    .select(infoColumns)
    .from(templateSets)
    .where(onlyActive ? eq(templateSets.active, true) : undefined)
    .orderBy(asc(templateSets.importedAt));
}

export async function templateSetArchive(db: DbOrTx, contentHash: string): Promise<Buffer | undefined> {
  const [row] = await db
    .select({ archive: templateSets.archive })
    .from(templateSets)
    .where(eq(templateSets.contentHash, contentHash));
  return row?.archive;
}

/** Turns sets whose hash starts with `prefix` (or whose name is `prefix`) on or off. */
export async function setTemplateSetActive(db: DbOrTx, prefix: string, active: boolean): Promise<string[]> {
  const hex = /^[0-9a-f]{6,64}$/i.test(prefix) ? prefix.toLowerCase() : null;
  const rows = await db
    .update(templateSets)
    .set({ active })
    .where(
      hex
        ? sql`${templateSets.name} = ${prefix} or ${templateSets.contentHash} like ${`${hex}%`}`
        : eq(templateSets.name, prefix),
    )
    .returning({ name: templateSets.name, hash: templateSets.contentHash });
  return rows.map((r) => `${r.name} ${r.hash.slice(0, 12)}`);
}
