import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  importTemplateSet,
  scanTemplateSets,
  templateStatusLines,
} from '../src/modules/templates/templates-service.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { datasetPath } from './support/scan-lab.ts';

/**
 * The community corpus as an operator installs it (`templates import <.tar.gz>`): its own
 * version from the archive name, the content hash, the loader's counts with reasons, and its
 * default ignore list. Runs when ../shared/datasets has the corpus (required in CI).
 */
const corpus = datasetPath('nuclei-templates-corpus', 'nuclei-templates-a64f60e.tar.gz');

let t: TestApp;
beforeAll(async () => {
  if (corpus) t = await createTestApp();
});
afterAll(async () => t?.close());

describe.skipIf(!corpus)('the nuclei-templates corpus as a template set', () => {
  it('imports with its version, counts and ignore list, and a worker unpacks the same bytes', {
    timeout: 300_000,
  }, async () => {
    const { set, created } = await importTemplateSet(t.runtime.ctx, corpus as string);
    expect(created).toBe(true);
    expect(set.sourceVersion).toBe('a64f60e');
    expect(set.files).toBeGreaterThan(12_000);
    expect(set.loaded + set.skipped + set.invalid).toBeGreaterThan(12_000);
    // Most of the corpus loads; what does not is listed with its reason.
    expect(set.loaded).toBeGreaterThan(8_000);
    const listed = set.reasons.reduce((n, r) => n + r.count, 0);
    expect(listed).toBe(set.skipped + set.invalid);
    expect(set.excludedTags).toEqual(
      expect.arrayContaining(['dos', 'fuzz', 'local', 'bruteforce', 'txt-service']),
    );
    expect(set.excludedFiles).toContain('dns/soa-detect.yaml');
    const status = (await templateStatusLines(t.runtime.ctx)).join('\n');
    expect(status).toContain(`a64f60e  ${set.contentHash.slice(0, 12)}  active`);
    console.log(status);
    const sets = await scanTemplateSets(t.runtime.ctx);
    expect(sets.sets.map((s) => s.hash)).toContain(set.contentHash);
  });
});
