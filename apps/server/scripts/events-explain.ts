/**
 * Server-side time of the events queries: every case's statements under EXPLAIN (ANALYZE, BUFFERS),
 * PostgreSQL's own execution time (no client, network or queueing), the buffers read and the plan's
 * shape. On a loaded machine this is the figure that says what the query costs; the client p95 of
 * the bench adds the wait for a core.
 *
 * Run alone (`npx tsx apps/server/scripts/events-explain.ts`, with DATABASE_URL and BENCH_REUSE=1 to
 * keep the million findings between runs) it sweeps every sort key × filter × order
 * (test/support/events-cases.ts; BENCH_SET=bench: the bench's cases only; BENCH_CASES=text: the
 * cases whose label has it) and prints the slowest; events-bench.ts runs it for its cases.
 */
import { loadAverage, median } from '@perimeter/lab/bench';
import type pg from 'pg';
import {
  benchCases,
  type EventsCase,
  explainCase,
  planShape,
  sweepCases,
} from '../test/support/events-cases.ts';

export interface ServerTime {
  label: string;
  /** Median over the runs of the case's total execution time (all its statements), ms. */
  executionMs: number;
  /** Shared buffers of all its statements and their plan shapes (from the last run). */
  buffers: number;
  shape: string;
}

/** Each case `runs` times (after one warm-up); the median execution time and the last plan. */
export async function explainSweep(
  pool: pg.Pool,
  userId: string,
  scanId: string,
  cases: EventsCase[],
  runs = 3,
  onCase: (r: ServerTime) => void = () => {},
): Promise<ServerTime[]> {
  const out: ServerTime[] = [];
  for (const c of cases) {
    if (runs > 1) await explainCase(pool, userId, c, scanId);
    const times: number[] = [];
    let last: Awaited<ReturnType<typeof explainCase>> = [];
    for (let i = 0; i < runs; i++) {
      last = await explainCase(pool, userId, c, scanId);
      times.push(last.reduce((n, q) => n + q.executionMs, 0));
    }
    const r = {
      label: c.label,
      executionMs: median(times),
      buffers: last.reduce((n, q) => n + q.buffers, 0),
      shape: last.map((q) => planShape(q.plan)).join(' ; '),
    };
    out.push(r);
    onCase(r);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startEventsServer, benchLog } = await import('./events-setup.ts');
  const findings = Number(process.env.BENCH_FINDINGS ?? 1_000_000);
  const server = await startEventsServer(findings);
  try {
    const { userId, scanId } = await server.benchUser();
    const only = process.env.BENCH_CASES;
    const set = process.env.BENCH_SET === 'bench' ? benchCases() : sweepCases();
    const cases = set.filter((c) => !only || c.label.includes(only));
    benchLog(`EXPLAIN ANALYZE of ${cases.length} cases; load ${loadAverage()}`);
    const results = await explainSweep(
      server.pool,
      userId,
      scanId,
      cases,
      Number(process.env.BENCH_RUNS ?? 3),
      (r) =>
        console.error(
          `${r.executionMs.toFixed(2).padStart(8)} ms ${String(r.buffers).padStart(7)} buf  ${r.label}  ${r.shape}`,
        ),
    );
    const top = Number(process.env.BENCH_TOP ?? 40);
    for (const r of [...results].sort((a, b) => b.executionMs - a.executionMs).slice(0, top))
      benchLog(
        `${r.executionMs.toFixed(2).padStart(8)} ms ${String(r.buffers).padStart(7)} buf  ${r.label}\n      ${r.shape}`,
      );
    const over = results.filter((r) => r.executionMs > 30);
    benchLog(`${results.length} cases; ${over.length} over 30 ms server time; load ${loadAverage()}`);
  } finally {
    await server.close();
  }
  process.exit(0);
}
