#!/usr/bin/env node
// The dependency boundaries of docs (ARCHITECTURE: web -> contracts, server -> contracts and engine,
// engine, contracts and lab -> nothing of ours), checked on the import lines of every source file:
//  1. a workspace imports another (`@perimeter/x`, or a relative path into it) only when its
//     package.json declares it;
//  2. the shipped source (`src/`, tests aside) of web, engine, contracts and lab imports only the
//     workspaces the architecture allows it;
//  3. a web feature reaches another feature only through its public entry (`features/<f>/index.ts`).
// Usage: node scripts/check-boundaries.mjs [--root DIR]. Exit 1 on a violation.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Which workspaces the shipped source of a workspace may import (unlisted workspaces: any declared). */
export const ALLOWED = {
  '@perimeter/web': ['@perimeter/contracts'],
  '@perimeter/engine': [],
  '@perimeter/contracts': [],
  '@perimeter/lab': [],
};
const SOURCE = /\.(?:ts|tsx|mts|mjs|js|jsx)$/;
const TEST = /\.test\.[a-z]+$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'data', '.tmp', 'coverage']);
const IMPORT = /\bfrom\s*['"]([^'"\n]+)['"]|\bimport\s*\(?\s*['"]([^'"\n]+)['"]/g;
const FEATURES = 'apps/web/src/features';

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(path.join(dir, entry.name), out);
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path.join(dir, entry.name));
  }
  return out;
}

/** Each import specifier of a source text, with its line number. */
export function importsOf(text) {
  const out = [];
  for (const m of text.matchAll(IMPORT)) {
    const line = text.slice(0, m.index).split('\n').length;
    out.push({ spec: m[1] ?? m[2], line });
  }
  return out;
}

function loadWorkspaces(root) {
  const rootPkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return (rootPkg.workspaces ?? []).map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
    const declared = new Set(
      Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies }),
    );
    return { dir: dir.replace(/\/$/, ''), name: pkg.name, declared };
  });
}

/** The cross-feature part of a web import, `features/<from> -> features/<to>/<rest>`, or null. */
function crossFeature(relFile, target) {
  if (!relFile.startsWith(`${FEATURES}/`) || !target.startsWith(`${FEATURES}/`)) return null;
  const from = relFile.slice(FEATURES.length + 1).split('/')[0];
  const [to, ...rest] = target.slice(FEATURES.length + 1).split('/');
  if (from === to) return null;
  const entry = rest.join('/');
  if (entry === '' || /^index(\.tsx?)?$/.test(entry)) return null;
  return `${from} -> ${to}/${entry}`;
}

export function checkBoundaries(root) {
  const workspaces = loadWorkspaces(root);
  const byName = new Map(workspaces.map((w) => [w.name, w]));
  const ownerOf = (rel) => workspaces.find((w) => rel === w.dir || rel.startsWith(`${w.dir}/`));
  const violations = [];
  for (const ws of workspaces) {
    const dir = path.join(root, ws.dir);
    if (!existsSync(dir)) continue;
    for (const file of walk(dir)) {
      const rel = path.relative(root, file).split(path.sep).join('/');
      const shipped = rel.startsWith(`${ws.dir}/src/`) && !TEST.test(rel);
      for (const { spec, line } of importsOf(readFileSync(file, 'utf8'))) {
        const at = `${rel}:${line}`;
        let other;
        let target;
        if (spec.startsWith('@perimeter/')) other = byName.get(spec.split('/').slice(0, 2).join('/'));
        else if (spec.startsWith('.')) {
          target = path
            .relative(root, path.resolve(path.dirname(file), spec))
            .split(path.sep)
            .join('/');
          const owner = ownerOf(target);
          if (owner && owner !== ws) other = owner;
        }
        if (other) {
          if (!ws.declared.has(other.name))
            violations.push(
              `${at}: ${ws.name} imports ${other.name} (${spec}) without declaring it in package.json`,
            );
          const allowed = ALLOWED[ws.name];
          if (shipped && allowed && !allowed.includes(other.name))
            violations.push(`${at}: ${ws.name} may not depend on ${other.name} (${spec})`);
        }
        const crossing = target && crossFeature(rel, target);
        if (crossing)
          violations.push(
            `${at}: web feature import ${crossing} bypasses the feature's public entry (features/<f>/index.ts)`,
          );
      }
    }
  }
  return violations;
}

export function main(argv, log = console.log) {
  const rootArg = argv.indexOf('--root');
  const root = path.resolve(
    rootArg >= 0 ? argv[rootArg + 1] : path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
  );
  const violations = checkBoundaries(root);
  for (const v of violations) log(v);
  log(violations.length ? `boundaries: ${violations.length} violation(s)` : 'boundaries: ok');
  return violations.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exit(main(process.argv.slice(2)));
