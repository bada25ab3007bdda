import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from './check-boundaries.mjs';

const dirs = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A small monorepo: web, server, engine and contracts, with the files given (path → source). */
function repo(files, declared = {}) {
  const root = mkdtempSync(path.join(tmpdir(), 'boundaries-'));
  dirs.push(root);
  const write = (rel, text) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  const workspaces = {
    'apps/web': ['@perimeter/web', { '@perimeter/contracts': '0.1.0' }],
    'apps/server': ['@perimeter/server', { '@perimeter/contracts': '0.1.0', '@perimeter/engine': '0.1.0' }],
    'packages/engine': ['@perimeter/engine', {}],
    'packages/contracts': ['@perimeter/contracts', {}],
  };
  write('package.json', JSON.stringify({ workspaces: Object.keys(workspaces) }));
  for (const [dir, [name, deps]] of Object.entries(workspaces))
    write(`${dir}/package.json`, JSON.stringify({ name, dependencies: { ...deps, ...declared[dir] } }));
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  return root;
}

function run(root) {
  const lines = [];
  const code = main(['--root', root], (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}

const fine = {
  'apps/web/src/features/scans/api/list.ts': "import { ZScan } from '@perimeter/contracts';\n",
  'apps/web/src/features/targets/index.ts': "export { TargetsPage } from './components/targets-page.tsx';\n",
  'apps/web/src/features/scans/components/page.tsx':
    "import { TargetsPage } from '../../targets/index.ts';\n",
  'apps/server/src/app.ts':
    "import { scan } from '@perimeter/engine';\nimport { ZScan } from '@perimeter/contracts';\n",
  'packages/engine/src/scan.ts': "import { z } from 'zod';\nimport { x } from './x.ts';\n",
};

describe('the boundary check', () => {
  it('passes a tree that keeps the boundaries', () => {
    expect(run(repo(fine))).toMatchObject({ code: 0 });
  });

  it.each([
    [
      'web → server',
      'apps/web/src/lib/x.ts',
      "import { app } from '../../../server/src/app.ts';",
      'may not depend on @perimeter/server',
    ],
    [
      'web → engine',
      'apps/web/src/lib/x.ts',
      "import { scan } from '@perimeter/engine';",
      'may not depend on @perimeter/engine',
    ],
    [
      'engine → contracts',
      'packages/engine/src/y.ts',
      "import type { TScan } from '@perimeter/contracts';",
      'may not depend on @perimeter/contracts',
    ],
    [
      'engine → server, dynamically',
      'packages/engine/src/y.ts',
      "await import('../../../apps/server/src/app.ts');",
      'may not depend on @perimeter/server',
    ],
    [
      'a web feature into another feature’s inside',
      'apps/web/src/features/scans/components/chip.tsx',
      "import { useTargets } from '../../targets/hooks/use-targets.ts';",
      'scans -> targets/hooks/use-targets.ts bypasses',
    ],
  ])('fails on a deliberate bad import: %s', (_what, file, source, message) => {
    const { code, out } = run(repo({ ...fine, [file]: `${source}\n` }));
    expect(code).toBe(1);
    expect(out).toContain(`${file}:1: `);
    expect(out).toContain(message);
  });

  it('fails on a workspace import its package.json does not declare', () => {
    const root = repo({ ...fine, 'apps/server/src/lab.ts': "import { startLab } from '@perimeter/lab';\n" });
    writeFileSync(
      path.join(root, 'package.json'),
      JSON.stringify({ workspaces: ['apps/server', 'packages/lab'] }),
    );
    mkdirSync(path.join(root, 'packages/lab'), { recursive: true });
    writeFileSync(path.join(root, 'packages/lab/package.json'), JSON.stringify({ name: '@perimeter/lab' }));
    const { code, out } = run(root);
    expect(code).toBe(1);
    expect(out).toContain('@perimeter/server imports @perimeter/lab (@perimeter/lab) without declaring it');
  });

  it('lets tests and scripts of the engine use a declared workspace (the lab), not its shipped source', () => {
    const declared = { 'packages/engine': { '@perimeter/contracts': '0.1.0' } };
    const bad = "import { ZScan } from '@perimeter/contracts';\n";
    expect(run(repo({ ...fine, 'packages/engine/src/a.test.ts': bad }, declared)).code).toBe(0);
    expect(run(repo({ ...fine, 'packages/engine/scripts/bench.ts': bad }, declared)).code).toBe(0);
    expect(run(repo({ ...fine, 'packages/engine/src/a.ts': bad }, declared)).code).toBe(1);
  });

  it('passes this repository', () => {
    expect(run(path.resolve(import.meta.dirname, '..'))).toMatchObject({ code: 0 });
  });
});
