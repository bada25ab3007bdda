import { compareVersions } from './version-compare.ts';
import type { VulnRecord } from './vuln-types.ts';

/**
 * Where vulnerability records live. The CLI and tests use the in-memory index; the server
 * implements the same interface on PostgreSQL.
 */
export interface VulnStore {
  add(records: Iterable<VulnRecord>): Promise<void>;
  /** Records with a CPE rule on one of these `vendor:product` keys (`*:product` = any vendor). */
  candidates(keys: string[]): Promise<VulnRecord[]>;
  get(id: string): Promise<VulnRecord | undefined>;
  /** The highest version the feed mentions for a product (a fixed version or a listed one). */
  latestKnownVersion(keys: string[]): Promise<string | undefined>;
  size(): Promise<number>;
}

function productKeys(record: VulnRecord): Set<string> {
  const keys = new Set<string>();
  const walk = (nodes: VulnRecord['configurations'][number]['nodes']) => {
    for (const n of nodes) {
      for (const m of n.matches) if (m.vulnerable) keys.add(`${m.vendor}:${m.product}`);
      walk(n.children);
    }
  };
  for (const c of record.configurations) walk(c.nodes);
  return keys;
}

function versionsOf(record: VulnRecord, key: string): string[] {
  const out: string[] = [];
  const [vendor, product] = key.split(':');
  const walk = (nodes: VulnRecord['configurations'][number]['nodes']) => {
    for (const n of nodes) {
      for (const m of n.matches) {
        if (m.product !== product || (vendor !== '*' && m.vendor !== vendor)) continue;
        if (m.version !== '*' && m.version !== '-')
          out.push(m.update !== '*' && m.update !== '-' ? `${m.version}${m.update}` : m.version);
        if (m.versionEndExcluding) out.push(m.versionEndExcluding);
        if (m.versionEndIncluding) out.push(m.versionEndIncluding);
      }
      walk(n.children);
    }
  };
  for (const c of record.configurations) walk(c.nodes);
  return out;
}

/** In-memory index by `vendor:product` and by product alone. Newer copies of an id replace older ones. */
export class MemoryVulnStore implements VulnStore {
  private readonly byId = new Map<string, VulnRecord>();
  private readonly byKey = new Map<string, Set<string>>();

  async add(records: Iterable<VulnRecord>): Promise<void> {
    for (const r of records) {
      const existing = this.byId.get(r.id);
      if (
        existing &&
        existing.source === r.source &&
        (r.source === 'nvd' || existing.lastModified !== r.lastModified)
      ) {
        // NVD: the newer (or the same) copy of a record replaces it — a sync fetches records again.
        if ((existing.lastModified ?? '') > (r.lastModified ?? '')) continue;
        this.index(r);
        continue;
      }
      if (existing) {
        // The same CVE from NVD and retire.js, or several retire.js ranges: keep every rule set
        // once (importing the same feed again changes nothing).
        const known = new Set(existing.configurations.map((c) => JSON.stringify(c)));
        const merged: VulnRecord = {
          ...existing,
          configurations: [
            ...existing.configurations,
            ...r.configurations.filter((c) => !known.has(JSON.stringify(c))),
          ],
          references: [...new Set([...existing.references, ...r.references])],
        };
        this.index(merged);
        continue;
      }
      this.index(r);
    }
  }

  private index(r: VulnRecord): void {
    this.byId.set(r.id, r);
    for (const key of productKeys(r)) {
      for (const k of [key, `*:${key.split(':')[1]}`]) {
        let set = this.byKey.get(k);
        if (!set) {
          set = new Set();
          this.byKey.set(k, set);
        }
        set.add(r.id);
      }
    }
  }

  async candidates(keys: string[]): Promise<VulnRecord[]> {
    const ids = new Set<string>();
    for (const k of keys) for (const id of this.byKey.get(k.toLowerCase()) ?? []) ids.add(id);
    return [...ids].map((id) => this.byId.get(id)).filter((r): r is VulnRecord => r !== undefined);
  }

  async get(id: string): Promise<VulnRecord | undefined> {
    return this.byId.get(id);
  }

  async latestKnownVersion(keys: string[]): Promise<string | undefined> {
    let best: string | undefined;
    for (const r of await this.candidates(keys)) {
      for (const k of keys) {
        for (const v of versionsOf(r, k.toLowerCase())) {
          if (!/^\d/.test(v)) continue;
          if (best === undefined || compareVersions(v, best) > 0) best = v;
        }
      }
    }
    return best;
  }

  async size(): Promise<number> {
    return this.byId.size;
  }
}
