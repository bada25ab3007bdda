/**
 * `npx tsx scripts/scale-timeline.ts <dir or run-*.json files>` — a script, not a test. Accounts
 * for the wall time of scale-out bench runs recorded with BENCH_TIMELINE=<dir>: the run's slots
 * (workers × concurrency) × its wall time, split into what the scans took (their own rows' start to
 * end), the queue's hand-over around them (job created → claimed, and the scan's end → the job's
 * completion) and what no scan used (slots idle at the start and in the tail, while the last scans
 * ran); then the scans that started first (one per slot: the processes' first scans) against the
 * rest, stage by stage, and where the list-scheduling of the same scan times would have ended.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { median as medianOf } from '@perimeter/lab/bench';

interface JobRow {
  id: string;
  started_at: string;
  finished_at: string;
  engine_start: string | null;
  engine_end: string | null;
  stages: { name: string; durationMs: number }[] | null;
  created_on: string | null;
  started_on: string | null;
  completed_on: string | null;
}

interface RunFile {
  workers: number;
  concurrency: number;
  /** The workers ran one untimed scan per fetch loop before the clock (absent in older files). */
  warm?: boolean;
  started: number;
  ended: number;
  ids: string[];
  startCalls: number[];
  jobs: JobRow[];
}

const files = process.argv.slice(2).flatMap((arg) =>
  statSync(arg).isDirectory()
    ? readdirSync(arg)
        .filter((f) => f.endsWith('.json'))
        .sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]))
        .map((f) => path.join(arg, f))
    : [arg],
);
if (!files.length) {
  console.error('usage: scale-timeline.ts <BENCH_TIMELINE dir | run-*.json ...>');
  process.exit(2);
}

/** The median of the finite values (a stage a scan did not run is NaN). */
const median = (xs: number[]) => medianOf(xs.filter(Number.isFinite));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const s1 = (ms: number) => (ms / 1000).toFixed(1);

/** When `durations`, taken in queue order, end on `slots` slots each taking the next job when free. */
function listSchedule(durations: number[], slots: number): number {
  const free = Array.from({ length: slots }, () => 0);
  for (const d of durations) {
    const k = free.indexOf(Math.min(...free));
    free[k] = (free[k] as number) + d;
  }
  return Math.max(...free);
}

for (const file of files) {
  const run = JSON.parse(readFileSync(file, 'utf8')) as RunFile;
  const at = (x: string | null) => (x ? new Date(x).getTime() - run.started : Number.NaN);
  const order = new Map(run.ids.map((id, k) => [id, k]));
  const jobs = run.jobs
    .map((j) => ({
      k: order.get(j.id) ?? -1,
      created: at(j.created_on),
      claimed: at(j.started_on),
      start: at(j.started_at),
      end: at(j.finished_at),
      completed: at(j.completed_on),
      stages: new Map((j.stages ?? []).map((s) => [s.name, s.durationMs])),
    }))
    .sort((a, b) => a.k - b.k);
  const slots = run.workers * run.concurrency;
  const wall = run.ended - run.started;
  const scans = sum(jobs.map((j) => j.end - j.start));
  const handOver = sum(jobs.map((j) => j.start - j.claimed + (j.completed - j.end)));
  const lastEnd = Math.max(...jobs.map((j) => j.completed));
  // Idle: the slots' time before their first claim (the queue filling) and after their last job.
  const byStart = [...jobs].sort((a, b) => a.claimed - b.claimed);
  const firstClaims = byStart.slice(0, slots).map((j) => j.claimed);
  const startIdle = sum(firstClaims) + (slots - firstClaims.length) * wall;
  const tailIdle = slots * wall - scans - handOver - startIdle;
  console.log(
    `${path.basename(file)}: ${run.workers} × ${run.concurrency}${run.warm ? ' (warmed)' : ''}, ${jobs.length} scans in ${s1(wall)} s (last job completed at ${s1(lastEnd)} s, the bench saw it at ${s1(wall)} s; the last start call at ${s1((run.startCalls.at(-1) ?? run.started) - run.started)} s)`,
  );
  console.log(
    `  slot time ${s1(slots * wall)} s = scans ${s1(scans)} s + queue hand-over ${s1(handOver)} s + idle before the first claims ${s1(startIdle)} s + idle in the tail and between jobs ${s1(tailIdle)} s`,
  );
  const durations = jobs.map((j) => j.end - j.start);
  console.log(
    `  the scans' own times on ${slots} slots in queue order: ${s1(listSchedule(durations, slots))} s; their sum / slots: ${s1(scans / slots)} s; waiting in the queue: median ${s1(median(jobs.map((j) => j.claimed - j.created)))} s`,
  );
  // The brute force of the first scans (cold processes, all at once) against the steady state:
  // the same schedule had each subdomain stage taken no longer than the median of the later scans.
  const sub = (j: (typeof jobs)[number]) => j.stages.get('subdomains') ?? 0;
  const steady = median(jobs.filter((j) => j.k >= 2 * slots).map(sub));
  if (Number.isFinite(steady))
    console.log(
      `  with every subdomain stage at most the median of scans ${2 * slots + 1}+ (${steady.toFixed(0)} ms): ${s1(
        listSchedule(
          durations.map((d, i) => d - Math.max(0, sub(jobs[i] as (typeof jobs)[number]) - steady)),
          slots,
        ),
      )} s`,
    );
  const first = new Set(byStart.slice(0, slots));
  const names = [...new Set(jobs.flatMap((j) => [...j.stages.keys()]))];
  const row = (label: string, js: typeof jobs) =>
    `  ${label.padEnd(24)} n=${String(js.length).padStart(2)} scan ${median(js.map((j) => j.end - j.start)).toFixed(0)} ms; ${names.map((n) => `${n} ${median(js.map((j) => j.stages.get(n) ?? Number.NaN)).toFixed(0)}`).join(', ')}`;
  console.log(row('first scan of each slot', [...first]));
  console.log(
    row(
      'the others',
      jobs.filter((j) => !first.has(j)),
    ),
  );
}
