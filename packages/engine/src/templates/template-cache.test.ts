import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tpl } from '../../test/template-helpers.ts';
import { TemplateYamlCache } from './template-cache.ts';
import { loadTemplates } from './template-loader.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'perimeter-cache-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const body = (word: string) =>
  `http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/x"\n    matchers:\n      - type: word\n        words: ["${word}"]\n`;

describe('parsed-YAML cache of a template set', () => {
  it('loads a set the same from the cache, and parses again what changed', async () => {
    const set = path.join(root, 'set');
    const cacheDir = path.join(root, 'cache');
    const files = Array.from({ length: 210 }, (_, i) =>
      path.join(set, `t${String(i).padStart(3, '0')}.yaml`),
    );
    mkdirSync(set);
    for (const [i, f] of files.entries()) {
      writeFileSync(f, tpl(`t${i}`, body(`word-${i}`)), { flag: 'w' });
    }
    const cold = await loadTemplates(set, { cacheDir });
    expect(cold.templates).toHaveLength(210);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);

    // Warm: every document from the cache, the same compiled result.
    const names = files.map((f) => path.relative(set, f));
    const probe = await TemplateYamlCache.open(cacheDir, names);
    const warm = await loadTemplates(set, { cacheDir });
    const words = (l: typeof cold) =>
      l.templates.map((t) => {
        const r = t.requests[0];
        return `${t.id}:${r?.protocol === 'http' ? r.specs.map((s) => (s.kind === 'path' ? s.path : '')).join() : ''}:${r?.operators.matchers.length}`;
      });
    expect(words(warm)).toEqual(words(cold));
    // (The probe shows the cache file holds every template's document.)
    for (const f of files.slice(0, 3)) {
      expect(probe.get(readFileSync(f, 'utf8'))).toBeDefined();
    }

    // A template whose text changed is parsed again: the change is what loads.
    writeFileSync(
      files[5] as string,
      tpl('t5', body('changed-word')).replace('severity: medium', 'severity: high'),
    );
    const changed = await loadTemplates(set, { cacheDir });
    const t5 = changed.templates.find((t) => t.id === 't5');
    expect(t5?.info.severity).toBe('high');
    expect(changed.templates.find((t) => t.id === 't4')?.info.severity).toBe('medium');
  });

  it('parses a document on each call, so two files with the same text get their own copy', async () => {
    const cacheDir = path.join(root, 'cache2');
    const a = await TemplateYamlCache.open(cacheDir, ['a']);
    a.set('text', { id: 'x' });
    await a.save();
    const b = await TemplateYamlCache.open(cacheDir, ['a']);
    const first = b.get('text');
    expect(first).toEqual({ id: 'x' });
    const second = b.get('text');
    expect(second).toEqual({ id: 'x' });
    expect(second).not.toBe(first);
    // Documents JSON cannot keep exactly are not cached.
    b.set('inf', { n: Number.POSITIVE_INFINITY });
    await b.save();
    const c = await TemplateYamlCache.open(cacheDir, ['a']);
    expect(c.get('inf')).toBeUndefined();
    expect(c.get('text')).toEqual({ id: 'x' });
    // An entry that is no template document (another format) is a miss, never a document.
    c.set('scalar', 'not a mapping');
    await c.save();
    const d = await TemplateYamlCache.open(cacheDir, ['a']);
    expect(d.get('scalar')).toBeUndefined();
  });
});
