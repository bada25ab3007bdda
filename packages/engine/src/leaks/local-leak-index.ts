import { readFile } from 'node:fs/promises';
import { LeakCipher, maskPassword } from './leak-crypto.ts';
import type { LeakRecord, LeakSource } from './leak-types.ts';

interface StoredLeak {
  email: string;
  passwordEncrypted?: string;
  digest?: string;
  sources: string[];
  leakDate?: string;
}

export interface ImportReport {
  imported: number;
  skipped: number;
  /** First problems, with line numbers. */
  errors: string[];
}

const EMAIL = /^[^\s@:,;]+@[A-Za-z0-9.-]+\.[A-Za-z0-9-]+$/;

function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim());
}

/**
 * The embedded leak source: an index of leaked credentials imported from combo lists
 * (`email:password`) or CSV (email, password, source, leak date). Passwords are kept only
 * encrypted (AES-256-GCM with the key passed in) and leave the index masked.
 */
export class LocalLeakIndex implements LeakSource {
  readonly name = 'local';
  private readonly byDomain = new Map<string, StoredLeak[]>();
  private readonly cipher: LeakCipher;

  constructor(key: Buffer | string | LeakCipher) {
    this.cipher = key instanceof LeakCipher ? key : new LeakCipher(key);
  }

  get size(): number {
    let n = 0;
    for (const list of this.byDomain.values()) n += list.length;
    return n;
  }

  add(entry: { email: string; password?: string; sources?: string[]; leakDate?: string }): boolean {
    const email = entry.email.trim().toLowerCase();
    if (!EMAIL.test(email)) return false;
    const domain = email.split('@')[1] as string;
    const list = this.byDomain.get(domain) ?? [];
    const digest = entry.password ? this.cipher.digest(entry.password) : undefined;
    const sources = (entry.sources ?? []).filter(Boolean);
    const existing = list.find(
      (l) => l.email === email && l.digest === digest && (l.leakDate ?? '') === (entry.leakDate ?? ''),
    );
    if (existing) {
      for (const s of sources) if (!existing.sources.includes(s)) existing.sources.push(s);
      return true;
    }
    const stored: StoredLeak = { email, sources };
    if (entry.password) {
      stored.passwordEncrypted = this.cipher.encrypt(entry.password);
      stored.digest = digest as string;
    }
    if (entry.leakDate) stored.leakDate = entry.leakDate;
    list.push(stored);
    this.byDomain.set(domain, list);
    return true;
  }

  /** `email:password` lines (also `email;password`); `source` names the list. */
  importCombo(text: string, source: string, leakDate?: string): ImportReport {
    const report: ImportReport = { imported: 0, skipped: 0, errors: [] };
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const m = /^([^\s:;]+@[^\s:;]+)[:;](.*)$/.exec(line);
      if (
        !m ||
        !this.add({
          email: m[1] as string,
          password: m[2] as string,
          sources: [source],
          ...(leakDate ? { leakDate } : {}),
        })
      ) {
        report.skipped++;
        if (report.errors.length < 20) report.errors.push(`line ${i + 1}: not email:password`);
        return;
      }
      report.imported++;
    });
    return report;
  }

  /** CSV with a header naming email, password, source(s) and leak date (any order). */
  importCsv(text: string): ImportReport {
    const report: ImportReport = { imported: 0, skipped: 0, errors: [] };
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
    const header = splitCsvLine(lines[0] ?? '').map((h) => h.toLowerCase().replace(/[^a-z]/g, ''));
    const col = (...names: string[]) => header.findIndex((h) => names.includes(h));
    const iEmail = col('email', 'mail', 'emailaddress');
    const iPassword = col('password', 'pass', 'pwd');
    const iSource = col('source', 'sources', 'breach', 'leak', 'database');
    const iDate = col('leakdate', 'date', 'breachdate');
    if (iEmail < 0) {
      report.errors.push('header has no email column');
      report.skipped = Math.max(0, lines.length - 1);
      return report;
    }
    lines.slice(1).forEach((line, i) => {
      const cells = splitCsvLine(line);
      const email = cells[iEmail] ?? '';
      const sources =
        iSource >= 0
          ? (cells[iSource] ?? '')
              .split(/[|;]/)
              .map((s) => s.trim())
              .filter(Boolean)
          : [];
      const ok = this.add({
        email,
        ...(iPassword >= 0 && cells[iPassword] ? { password: cells[iPassword] } : {}),
        sources,
        ...(iDate >= 0 && cells[iDate] ? { leakDate: cells[iDate] } : {}),
      });
      if (ok) report.imported++;
      else {
        report.skipped++;
        if (report.errors.length < 20) report.errors.push(`line ${i + 2}: invalid e-mail '${email}'`);
      }
    });
    return report;
  }

  async importFile(file: string, source?: string): Promise<ImportReport> {
    const text = await readFile(file, 'utf8');
    const first = text.split(/\r?\n/, 1)[0] ?? '';
    if (/email/i.test(first) && first.includes(',')) return this.importCsv(text);
    return this.importCombo(text, source ?? file.split('/').pop() ?? 'combo');
  }

  private toRecord(l: StoredLeak): LeakRecord {
    const r: LeakRecord = { email: l.email, sources: [...l.sources] };
    if (l.passwordEncrypted) {
      r.passwordMasked = maskPassword(this.cipher.decrypt(l.passwordEncrypted));
      r.passwordEncrypted = l.passwordEncrypted;
      if (l.digest) r.passwordDigest = l.digest;
    }
    if (l.leakDate) r.leakDate = l.leakDate;
    return r;
  }

  async searchDomain(domain: string): Promise<LeakRecord[]> {
    const d = domain.toLowerCase().replace(/\.$/, '');
    const out: LeakRecord[] = [];
    for (const [key, list] of this.byDomain)
      if (key === d || key.endsWith(`.${d}`)) out.push(...list.map((l) => this.toRecord(l)));
    return out.sort(
      (a, b) => a.email.localeCompare(b.email) || (a.leakDate ?? '').localeCompare(b.leakDate ?? ''),
    );
  }

  async searchEmail(email: string): Promise<LeakRecord[]> {
    const e = email.toLowerCase();
    const domain = e.split('@')[1] ?? '';
    return (this.byDomain.get(domain) ?? []).filter((l) => l.email === e).map((l) => this.toRecord(l));
  }
}
