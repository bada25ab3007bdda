import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScanEvent } from '../pipeline/events.ts';
import { Inventory } from '../pipeline/inventory.ts';
import type { StageContext } from '../pipeline/stage.ts';
import { ScanCoverage, StageReport } from '../pipeline/stage-report.ts';
import {
  BUILTIN_TEMPLATES_DIR,
  createTemplateStage,
  loadTemplateSets,
  preloadStageTemplates,
} from './template-stage.ts';

const template = (id: string, word: string) =>
  `id: ${id}\ninfo:\n  name: ${id}\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: word\n        words: ["${word}"]\n`;

function folder(name: string, files: Record<string, string>): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'tplsets-')), name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

function stageContext(): StageContext {
  return {
    targets: [],
    inventory: new Inventory(),
    resolver: { servers: [] },
    signal: new AbortController().signal,
    isInTarget: () => false,
    report: new StageReport('templates', new ScanCoverage()),
  } as unknown as StageContext;
}

describe('same id in the built-in pack and an operator folder', () => {
  it("runs the operator's copy and names the id and both files", async () => {
    const builtin = folder('builtin', {
      'a.yaml': template('shared-id', 'builtin'),
      'b.yaml': template('only-builtin', 'b'),
    });
    const operator = folder('operator', { 'a.yaml': template('shared-id', 'operator') });
    const loaded = await loadTemplateSets([builtin, operator], { builtinDirs: [builtin] });
    const shared = loaded.templates.filter((t) => t.id === 'shared-id');
    expect(shared.map((t) => t.file)).toEqual([path.join(operator, 'a.yaml')]);
    expect(loaded.templates.map((t) => t.id).sort()).toEqual(['only-builtin', 'shared-id']);
    expect(loaded.overrides).toEqual([
      { id: 'shared-id', kept: path.join(operator, 'a.yaml'), replaced: path.join(builtin, 'a.yaml') },
    ]);
  });

  it('between two operator folders the first one given wins, and that is listed too', async () => {
    const first = folder('first', { 'x.yaml': template('dup', 'one') });
    const second = folder('second', { 'x.yaml': template('dup', 'two') });
    const loaded = await loadTemplateSets([first, second]);
    expect(loaded.templates.map((t) => t.file)).toEqual([path.join(first, 'x.yaml')]);
    expect(loaded.overrides).toEqual([
      { id: 'dup', kept: path.join(first, 'x.yaml'), replaced: path.join(second, 'x.yaml') },
    ]);
  });
});

describe('the template stage', () => {
  it('logs one line naming the id and both files when --templates overrides a built-in', async () => {
    const builtinId = 'aws-dangling-cname'; // packages/engine/templates/dns/aws-dangling-cname.yaml
    const operator = folder('operator', { 'mine.yaml': template(builtinId, 'mine') });
    const ctx = stageContext();
    const events: ScanEvent[] = [];
    for await (const e of createTemplateStage({ dirs: [operator], rateLimit: 0 }).run(ctx)) events.push(e);
    const overrides = events.filter((e) => e.type === 'log' && e.code === 'template_override');
    expect(overrides).toHaveLength(1);
    expect(overrides[0]).toMatchObject({
      message: `template ${builtinId}: using ${path.join(operator, 'mine.yaml')} instead of ${path.join(BUILTIN_TEMPLATES_DIR, 'dns', `${builtinId}.yaml`)}`,
    });
  });

  it('runs what a preload with the same cache key compiled, without loading the folders again', async () => {
    const builtinId = 'aws-dangling-cname';
    const operator = folder('operator', { 'mine.yaml': template(builtinId, 'mine') });
    const config = { dirs: [operator], cacheKey: `preload-${Date.now()}` };
    // The built-in pack and the operator's file: one more than the built-in pack alone.
    const builtinOnly = (await loadTemplateSets([BUILTIN_TEMPLATES_DIR])).templates.length;
    expect(await preloadStageTemplates(config)).toBe(builtinOnly);
    // Gone from the disk: only the compiled copy can still name it.
    rmSync(path.join(operator, 'mine.yaml'));
    const events: ScanEvent[] = [];
    for await (const e of createTemplateStage({ ...config, rateLimit: 0 }).run(stageContext()))
      events.push(e);
    const overrides = events.filter((e) => e.type === 'log' && e.code === 'template_override');
    expect(overrides).toHaveLength(1);
    expect(overrides[0]).toMatchObject({
      message: expect.stringContaining(path.join(operator, 'mine.yaml')),
    });
  });
});
