import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = import.meta.dirname;
const languages = readdirSync(dir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

function keysOf(value: unknown, prefix = ''): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keysOf(v, prefix ? `${prefix}.${k}` : k));
}

function load(lng: string, file: string): unknown {
  return JSON.parse(readFileSync(path.join(dir, lng, file), 'utf8'));
}

describe('locale files', () => {
  it('exist for English and Russian', () => {
    expect(languages.sort()).toEqual(['en', 'ru']);
  });

  const files = readdirSync(path.join(dir, 'en')).filter((f) => f.endsWith('.json'));
  it.each(files)('%s has exactly the same keys in every language', (file) => {
    const reference = new Set(keysOf(load('en', file)));
    for (const lng of languages) {
      const keys = new Set(keysOf(load(lng, file)));
      const missing = [...reference].filter((k) => !keys.has(k));
      const extra = [...keys].filter((k) => !reference.has(k));
      expect({ lng, missing, extra }).toEqual({ lng, missing: [], extra: [] });
    }
  });

  it('no two files of a language share a top-level key (they merge into one namespace)', () => {
    const owners = new Map<string, string>();
    for (const file of files) {
      for (const key of Object.keys(load('en', file) as object)) {
        expect(owners.get(key), `${key} in ${file}`).toBeUndefined();
        owners.set(key, file);
      }
    }
  });

  it.each(files)('%s has no empty strings and keeps {{placeholders}} across languages', (file) => {
    const en = load('en', file);
    for (const lng of languages) {
      const other = load(lng, file);
      for (const key of keysOf(en)) {
        const get = (obj: unknown) =>
          key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
        const a = String(get(en));
        const b = String(get(other));
        expect(b.trim(), `${lng}:${key}`).not.toBe('');
        const vars = (s: string) => (s.match(/{{\s*\w+\s*}}/g) ?? []).sort();
        expect(vars(b), `${lng}:${key}`).toEqual(vars(a));
      }
    }
  });

  it('every translation key used in the source exists in English', () => {
    const en = new Set(files.flatMap((file) => keysOf(load('en', file))));
    const srcDir = path.resolve(dir, '..');
    const used = new Set<string>();
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.tsx?$/.test(e.name) && !e.name.includes('.test.')) {
          for (const m of readFileSync(full, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z]+(?:\.[a-zA-Z0-9_]+)+)'/g)) {
            used.add(m[1]!);
          }
        }
      }
    };
    walk(srcDir);
    expect([...used].filter((k) => !en.has(k))).toEqual([]);
  });
});
