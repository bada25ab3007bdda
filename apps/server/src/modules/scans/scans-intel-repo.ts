import {
  findingFingerprint,
  type LeakCipher,
  type LeakRecord,
  type LeakSource,
  MemoryVulnStore,
  maskPassword,
  type VulnRecord,
  type VulnStore,
} from '@perimeter/engine';
import { eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.ts';
import { findingsLeakcheck, leakRecords, vulnProducts, vulnRecords } from '../../db/schema/index.ts';
import { getSetting, putSetting } from '../system/system-repo.ts';

function productKeys(record: VulnRecord): string[] {
  const keys = new Set<string>();
  const walk = (nodes: VulnRecord['configurations'][number]['nodes']) => {
    for (const n of nodes) {
      for (const m of n.matches)
        if (m.vulnerable) {
          keys.add(`${m.vendor}:${m.product}`.toLowerCase());
          keys.add(`*:${m.product}`.toLowerCase());
        }
      walk(n.children);
    }
  };
  for (const c of record.configurations) walk(c.nodes);
  return [...keys];
}

/** The engine's CVE store on PostgreSQL (the same merge rules as the in-memory store). */
export class PgVulnStore implements VulnStore {
  constructor(private readonly db: DbOrTx) {}

  async add(records: Iterable<VulnRecord>): Promise<void> {
    const all = [...records];
    for (let i = 0; i < all.length; i += 500) await this.addBatch(all.slice(i, i + 500));
  }

  private async addBatch(batch: VulnRecord[]): Promise<void> {
    const ids = [...new Set(batch.map((r) => r.id))];
    const existing = await this.db.select().from(vulnRecords).where(inArray(vulnRecords.id, ids));
    const merged = new MemoryVulnStore();
    await merged.add(existing.map((e) => e.record as unknown as VulnRecord));
    await merged.add(batch);
    const rows: VulnRecord[] = [];
    for (const id of ids) {
      const r = await merged.get(id);
      if (r) rows.push(r);
    }
    await this.db.transaction(async (tx) => {
      await tx
        .insert(vulnRecords)
        .values(
          rows.map((r) => ({
            id: r.id,
            source: r.source,
            lastModified: r.lastModified ?? null,
            record: r as unknown as Record<string, unknown>,
          })),
        )
        .onConflictDoUpdate({
          target: vulnRecords.id,
          set: {
            source: sql`excluded.source`,
            lastModified: sql`excluded.last_modified`,
            record: sql`excluded.record`,
            updatedAt: sql`now()`,
          },
        });
      const keys = rows.flatMap((r) => productKeys(r).map((key) => ({ key, vulnId: r.id })));
      for (let i = 0; i < keys.length; i += 2000)
        await tx
          .insert(vulnProducts)
          .values(keys.slice(i, i + 2000))
          .onConflictDoNothing();
    });
  }

  async candidates(keys: string[]): Promise<VulnRecord[]> {
    if (keys.length === 0) return [];
    const rows = await this.db
      .selectDistinct({ record: vulnRecords.record })
      .from(vulnProducts)
      .innerJoin(vulnRecords, eq(vulnRecords.id, vulnProducts.vulnId))
      .where(
        inArray(
          vulnProducts.key,
          keys.map((k) => k.toLowerCase()),
        ),
      );
    return rows.map((r) => r.record as unknown as VulnRecord);
  }

  async get(id: string): Promise<VulnRecord | undefined> {
    const [row] = await this.db.select().from(vulnRecords).where(eq(vulnRecords.id, id));
    return row?.record as unknown as VulnRecord | undefined;
  }

  async latestKnownVersion(keys: string[]): Promise<string | undefined> {
    const memory = new MemoryVulnStore();
    await memory.add(await this.candidates(keys));
    return memory.latestKnownVersion(keys);
  }

  async size(): Promise<number> {
    const [row] = await this.db.select({ n: sql<number>`count(*)::int` }).from(vulnRecords);
    return row?.n ?? 0;
  }
}

export interface LeakEntry {
  email: string;
  password?: string;
  sources?: string[];
  leakDate?: string;
}

const EMAIL = /^[^\s@:,;]+@[A-Za-z0-9.-]+\.[A-Za-z0-9-]+$/;

/** Adds leak entries (passwords encrypted); the same e-mail, password and date merge their sources. */
export async function addLeaks(
  db: DbOrTx,
  cipher: LeakCipher,
  entries: LeakEntry[],
): Promise<{ imported: number; skipped: number }> {
  let skipped = 0;
  const rows = new Map<string, typeof leakRecords.$inferInsert>();
  for (const e of entries) {
    const email = e.email.trim().toLowerCase();
    if (!EMAIL.test(email)) {
      skipped++;
      continue;
    }
    const digest = e.password ? cipher.digest(e.password) : '';
    const leakDate = e.leakDate ?? '';
    const key = `${email}|${digest}|${leakDate}`;
    const prev = rows.get(key);
    const sources = [...new Set([...(prev?.sources ?? []), ...(e.sources ?? []).filter(Boolean)])];
    rows.set(key, {
      email,
      domain: email.split('@')[1] as string,
      passwordEncrypted: e.password ? cipher.encrypt(e.password) : null,
      digest,
      leakDate,
      sources,
    });
  }
  const list = [...rows.values()];
  for (let i = 0; i < list.length; i += 1000)
    await db
      .insert(leakRecords)
      .values(list.slice(i, i + 1000))
      .onConflictDoUpdate({
        target: [leakRecords.email, leakRecords.digest, leakRecords.leakDate],
        set: {
          sources: sql`(select array(select distinct unnest(${leakRecords.sources} || excluded.sources) order by 1))`,
        },
      });
  return { imported: list.length, skipped };
}

/** The local leak index on PostgreSQL as an engine leak source. */
export class PgLeakSource implements LeakSource {
  readonly name = 'local';
  constructor(
    private readonly db: DbOrTx,
    private readonly cipher: LeakCipher,
  ) {}

  async searchDomain(domain: string): Promise<LeakRecord[]> {
    const d = domain.toLowerCase().replace(/\.$/, '');
    const rows = await this.db
      .select()
      .from(leakRecords)
      .where(
        sql`${leakRecords.domain} = ${d} or ${leakRecords.domain} like ${`%.${d.replace(/[\\%_]/g, (c) => `\\${c}`)}`}`,
      )
      .orderBy(leakRecords.email, leakRecords.leakDate);
    return rows.map((r) => this.toRecord(r));
  }

  async searchEmail(email: string): Promise<LeakRecord[]> {
    const rows = await this.db.select().from(leakRecords).where(eq(leakRecords.email, email.toLowerCase()));
    return rows.map((r) => this.toRecord(r));
  }

  private toRecord(r: typeof leakRecords.$inferSelect): LeakRecord {
    const out: LeakRecord = { email: r.email, sources: [...r.sources].sort() };
    if (r.passwordEncrypted) {
      out.passwordMasked = maskPassword(this.cipher.decrypt(r.passwordEncrypted));
      out.passwordEncrypted = r.passwordEncrypted;
      out.passwordDigest = r.digest;
    }
    if (r.leakDate) out.leakDate = r.leakDate;
    return out;
  }
}

/** Parses a leak file: JSON (array of entries), CSV with a header naming email, or `email:password` lines. */
export function parseLeakFile(text: string, fileName: string): LeakEntry[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    const parsed = JSON.parse(trimmed) as unknown;
    if (!Array.isArray(parsed)) throw new Error('a JSON leak file must hold an array');
    return parsed.flatMap((x) => {
      if (typeof x !== 'object' || x === null || typeof (x as LeakEntry).email !== 'string') return [];
      const e = x as Record<string, unknown>;
      return [
        {
          email: String(e.email),
          ...(typeof e.password === 'string' ? { password: e.password } : {}),
          sources: Array.isArray(e.sources) ? e.sources.map(String) : [],
          ...(typeof e.leakDate === 'string' ? { leakDate: e.leakDate } : {}),
        },
      ];
    });
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const first = lines[0] ?? '';
  if (/email/i.test(first) && first.includes(',')) {
    const header = first.split(',').map((h) =>
      h
        .trim()
        .toLowerCase()
        .replace(/[^a-z]/g, ''),
    );
    const col = (...names: string[]) => header.findIndex((h) => names.includes(h));
    const [iEmail, iPassword, iSource, iDate] = [
      col('email', 'mail'),
      col('password', 'pass'),
      col('source', 'sources', 'breach'),
      col('leakdate', 'date'),
    ];
    return lines.slice(1).map((line) => {
      const cells = line.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
      return {
        email: cells[iEmail] ?? '',
        ...(iPassword >= 0 && cells[iPassword] ? { password: cells[iPassword] } : {}),
        sources: iSource >= 0 ? (cells[iSource] ?? '').split(/[|;]/).filter(Boolean) : [fileName],
        ...(iDate >= 0 && cells[iDate] ? { leakDate: cells[iDate] } : {}),
      };
    });
  }
  return lines.flatMap((line) => {
    const m = /^([^\s:;]+@[^\s:;]+)[:;](.*)$/.exec(line.trim());
    return m ? [{ email: m[1] as string, password: m[2] as string, sources: [fileName] }] : [];
  });
}

/**
 * Migration 0012 replaced the old unsalted digests with `legacy:<id>`; this re-keys them with the
 * deployment key (decrypting each password) so re-imports deduplicate again. A row whose new
 * digest already exists merges its sources into that row. Returns how many rows it touched.
 */
export async function rekeyLegacyLeakDigests(db: Db, cipher: LeakCipher): Promise<number> {
  let done = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(leakRecords)
      .where(sql`${leakRecords.digest} like 'legacy:%'`)
      .limit(500);
    if (rows.length === 0) return done;
    for (const row of rows) {
      await db.transaction(async (tx) => {
        // Another process starting at the same time may have re-keyed it already.
        const [still] = await tx
          .select({ id: leakRecords.id })
          .from(leakRecords)
          .where(sql`${leakRecords.id} = ${row.id} and ${leakRecords.digest} like 'legacy:%'`)
          .for('update');
        if (!still) return;
        const digest = row.passwordEncrypted ? cipher.digest(cipher.decrypt(row.passwordEncrypted)) : '';
        const [twin] = await tx
          .select({ id: leakRecords.id, sources: leakRecords.sources })
          .from(leakRecords)
          .where(
            sql`${leakRecords.id} <> ${row.id} and ${leakRecords.email} = ${row.email} and ${leakRecords.digest} = ${digest} and ${leakRecords.leakDate} = ${row.leakDate}`,
          )
          .for('update');
        if (twin) {
          await tx
            .update(leakRecords)
            .set({ sources: [...new Set([...twin.sources, ...row.sources])].sort() })
            .where(eq(leakRecords.id, twin.id));
          await tx.delete(leakRecords).where(eq(leakRecords.id, row.id));
        } else {
          await tx.update(leakRecords).set({ digest }).where(eq(leakRecords.id, row.id));
        }
      });
      done += 1;
    }
  }
}

const LEAK_FINGERPRINTS_KEY = 'leak_fingerprints_keyed';

/**
 * Leak findings with a password were keyed by the old unsalted digest, which their fingerprint
 * still hashes (a word list could be tried against it). Once per database, the fingerprints are
 * recomputed with the keyed digest — the same ones new scans compute, so re-scans keep updating
 * those findings instead of reporting them fixed and new.
 */
export async function rekeyLeakFindingFingerprints(db: Db, cipher: LeakCipher): Promise<number> {
  if (await getSetting<boolean>(db, LEAK_FINGERPRINTS_KEY)) return 0;
  const rows = await db
    .select({
      id: findingsLeakcheck.id,
      email: findingsLeakcheck.email,
      leakDate: findingsLeakcheck.leakDate,
      passwordEncrypted: findingsLeakcheck.passwordEncrypted,
      fingerprint: findingsLeakcheck.fingerprint,
    })
    .from(findingsLeakcheck)
    .where(isNotNull(findingsLeakcheck.passwordEncrypted));
  let changed = 0;
  for (const row of rows) {
    let digest: string;
    try {
      digest = cipher.digest(cipher.decrypt(row.passwordEncrypted as string));
    } catch {
      continue; // sealed with another key: left as it is
    }
    // The same parts as the engine's leakFinding: e-mail, date, password digest, no sources.
    const fingerprint = findingFingerprint('leakcheck', row.email, row.leakDate ?? undefined, digest, '');
    if (fingerprint === row.fingerprint) continue;
    await db
      .update(findingsLeakcheck)
      .set({ fingerprint })
      .where(eq(findingsLeakcheck.id, row.id))
      .catch(() => {}); // an equal finding already has it: keep both rather than fail start-up
    changed += 1;
  }
  await putSetting(db, LEAK_FINGERPRINTS_KEY, true);
  return changed;
}
