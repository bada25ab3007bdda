/**
 * `npm run bench:intel -w apps/server` — a script, not a test. A full NVD load from a local mirror
 * (a child process on a free loopback /24 chosen at run time, serving BENCH_NVD_RECORDS generated records in the NVD CVE API
 * 2.0 format, 2,000 per page) into a fresh database (embedded PostgreSQL, or DATABASE_URL's), then
 * an incremental day (1,500 records modified in the last 24 hours). Prints the time, the peak RSS
 * of this process (the sync; the mirror and PostgreSQL are other processes) and the load average.
 * Goals (issue #15): full load ≤ 10 min and ≤ 500 MB RSS; incremental day ≤ 10 s. One run (a full
 * load takes minutes), said so in the figures; results in bench-results/, `--record` appends them
 * to docs/benchmarks.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchReport, freeLoopbackSubnet, loadAverage } from '@perimeter/lab/bench';
import { generatedRecord, IntelMirror } from '../test/support/intel-mirror.ts';

const RECORDS = Number(process.env.BENCH_NVD_RECORDS ?? 250_000);
const DAY_RECORDS = 1500;
const DAY = 86_400_000;

/** Record i: most modified about a month ago, the last DAY_RECORDS within the last day. */
function lastModifiedOf(i: number, now: number): Date {
  return i >= RECORDS - DAY_RECORDS
    ? new Date(now - ((i % 1440) + 1) * 60_000)
    : new Date(now - 30 * DAY - (i % 10_000) * 60_000);
}

if (process.argv.includes('--mirror')) {
  const now = Number(process.env.BENCH_NOW);
  const mirror = await IntelMirror.start(process.env.BENCH_MIRROR_HOST ?? '127.0.2.10');
  mirror.nvd = { count: RECORDS, record: (i) => generatedRecord(i, lastModifiedOf(i, now)) };
  console.log(`MIRROR ${mirror.url}`);
  process.on('SIGTERM', () => void mirror.stop().then(() => process.exit(0)));
} else {
  await main();
}

async function startMirror(now: number): Promise<{ url: string; child: ChildProcess }> {
  const tsx = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../node_modules/.bin/tsx');
  const child = spawn(tsx, [fileURLToPath(import.meta.url), '--mirror'], {
    env: { ...process.env, BENCH_NOW: String(now), BENCH_MIRROR_HOST: `${await freeLoopbackSubnet()}.10` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      const m = /MIRROR (\S+)/.exec(b.toString());
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`mirror exited with ${code}`)));
  });
  return { url, child };
}

async function main() {
  const { loadConfig } = await import('../src/lib/config/index.ts');
  const { createLogger } = await import('../src/lib/logger.ts');
  const { openRuntime } = await import('../src/server/runtime.ts');
  const { syncSource } = await import('../src/modules/intel/intel-sync.ts');
  const { saveCursor } = await import('../src/modules/intel/intel-repo.ts');
  const log = (msg: string) => console.log(`[intel-bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
  const load = loadAverage;

  const now = Date.now();
  const { url, child } = await startMirror(now);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-intel-bench-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    PERIMETER_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    INTEL_NVD_URL: `${url}/nvd`,
    INTEL_NVD_REQUESTS_PER_30S: '100000',
  });
  const runtime = await openRuntime(config, createLogger('silent'));
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 200);
  try {
    log(`mirror ${url}: ${RECORDS} records; load average ${load()}`);
    const t0 = performance.now();
    let pages = 0;
    const full = await syncSource(runtime.ctx, 'nvd', {
      owner: 'bench',
      now: () => new Date(now),
      onProgress: (line) => {
        if (++pages % 25 === 0) log(`${line} (rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB)`);
      },
    });
    const fullSeconds = (performance.now() - t0) / 1000;
    if (full.status !== 'ok') throw new Error(`full load failed: ${JSON.stringify(full)}`);
    const fullPeak = peak;
    log(
      `full load: ${full.records} records in ${fullSeconds.toFixed(1)} s (${(full.records / fullSeconds).toFixed(0)} records/s), peak RSS ${(fullPeak / 2 ** 20).toFixed(0)} MB; load average ${load()}`,
    );

    // An incremental day: the cursor as a run 24 hours ago left it.
    await runtime.ctx.db.execute(
      (await import('drizzle-orm')).sql`update intel_sources set lease_owner = 'bench' where source = 'nvd'`,
    );
    await saveCursor(
      runtime.ctx.db,
      'nvd',
      'bench',
      { mode: 'incremental', since: new Date(now - DAY).toISOString(), startIndex: 0 },
      60,
    );
    await runtime.ctx.db.execute(
      (await import('drizzle-orm'))
        .sql`update intel_sources set lease_owner = null, lease_until = null where source = 'nvd'`,
    );
    peak = 0;
    const t1 = performance.now();
    const day = await syncSource(runtime.ctx, 'nvd', { owner: 'bench', now: () => new Date(now) });
    const daySeconds = (performance.now() - t1) / 1000;
    if (day.status !== 'ok') throw new Error(`incremental day failed: ${JSON.stringify(day)}`);
    log(
      `incremental day: ${day.status === 'ok' ? day.detail : ''} in ${daySeconds.toFixed(2)} s, peak RSS ${(peak / 2 ** 20).toFixed(0)} MB; load average ${load()}`,
    );
    const report = new BenchReport('intel', 'Vulnerability intelligence: NVD sync (issue 15)');
    report.say(
      `\`npm run bench:intel -w apps/server\`, one run (not a median): full ${RECORDS} records: ${fullSeconds.toFixed(1)} s (goal ≤ 600), peak RSS ${(fullPeak / 2 ** 20).toFixed(0)} MB (goal ≤ 500); incremental day: ${daySeconds.toFixed(2)} s (goal ≤ 10); load average ${load()} on ${os.cpus().length} CPUs`,
    );
    report.figure('nvd', { records: RECORDS, fullSeconds, fullPeakRss: fullPeak, daySeconds });
    report.finish();
  } finally {
    clearInterval(sampler);
    child.kill('SIGTERM');
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
