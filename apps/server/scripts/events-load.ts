/**
 * The load generator of the events bench (apps/server/scripts/events-bench.ts), a separate
 * process: everything it measures crosses real HTTP to the server's own process. Reads its plan as
 * JSON from argv[2], prints one JSON line of results.
 *
 *  - latency: every case (sort key or filter, both orders) BENCH_SAMPLES times over one keep-alive
 *    connection, in `rounds` interleaved rounds (case order forwards, then backwards);
 *  - concurrent: `rounds` rounds of `clients` clients (one connection each, one request at a time,
 *    cycling through the cases) for `seconds` seconds; latency of every request, errors counted.
 *    Back to back by default (a closed loop: each client sends as soon as it has its answer, so the
 *    p99 is about clients ÷ throughput); with `thinkMs` each client waits a random 0.5–1.5 × thinkMs
 *    after each answer, as a person reading a page does.
 */
import { interleaveOrder, loadAverage, openingAndSteady, percentile } from '@perimeter/lab/bench';
import { Pool } from 'undici';

export interface LoadCase {
  label: string;
  path: string;
  /** POST with this JSON body; without one, GET. */
  body?: Record<string, unknown>;
}
export interface LoadPlan {
  origin: string;
  token: string;
  cases: LoadCase[];
  samples: number;
  rounds: number;
  clients: number;
  seconds: number;
  /** Mean pause of a client after each answer, ms; 0 = back to back. */
  thinkMs?: number;
}
export interface LatencyResult {
  label: string;
  p50: number;
  p95: number;
  max: number;
  total: number;
  status: number;
}
export interface ConcurrentRound {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  /**
   * The p99 of the requests sent over a connection already open (each client's first left out),
   * and the p50 and slowest of those first ones: they wait for the server to accept their
   * connection, one per turn of its event loop (openingAndSteady in @perimeter/lab/bench).
   */
  steadyP99: number;
  openingP50: number;
  openingMax: number;
  rate: number;
  load: string;
  /** CPU seconds the load generator itself used in the round. */
  cpuSeconds: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as LoadPlan;
const headers = { authorization: `Bearer ${plan.token}`, 'content-type': 'application/json' };

/**
 * One request, timed until its whole body has arrived. `readTotal` also decodes and parses the page
 * for its total (the latency phase checks it); the concurrent phase reads the bytes and counts
 * statuses, so the load generator does not spend the shared cores on decoding and parsing pages a
 * real client handles on its own machine.
 */
async function call(
  pool: Pool,
  c: LoadCase,
  readTotal = true,
): Promise<{ ms: number; status: number; total: number }> {
  const t0 = performance.now();
  const res = c.body
    ? await pool.request({ method: 'POST', path: c.path, headers, body: JSON.stringify(c.body) })
    : await pool.request({ method: 'GET', path: c.path, headers: { authorization: headers.authorization } });
  // Every byte is read either way (the time ends when the whole body has arrived); only the
  // latency phase decodes it, for its total.
  const text = readTotal ? await res.body.text() : await res.body.dump({ limit: 64 * 1024 * 1024 });
  const ms = performance.now() - t0;
  let total = -1;
  if (typeof text === 'string' && res.statusCode === 200)
    total = (JSON.parse(text) as { data?: { total?: number } }).data?.total ?? -1;
  return { ms, status: res.statusCode, total };
}

async function latency(): Promise<LatencyResult[]> {
  const pool = new Pool(plan.origin, { connections: 1, pipelining: 1 });
  const times = plan.cases.map(() => [] as number[]);
  const last = plan.cases.map(() => ({ status: 0, total: -1 }));
  for (const c of plan.cases) await call(pool, c); // one warm-up each (plans, caches, JIT)
  const perRound = Math.max(1, Math.ceil(plan.samples / plan.rounds));
  for (const order of interleaveOrder(plan.cases.length, plan.rounds))
    for (const i of order)
      for (let k = 0; k < perRound; k++) {
        const r = await call(pool, plan.cases[i] as LoadCase);
        times[i]?.push(r.ms);
        last[i] = { status: r.status, total: r.total };
      }
  await pool.close();
  return plan.cases.map((c, i) => {
    const t = times[i] ?? [];
    return {
      label: c.label,
      p50: percentile(t, 50),
      p95: percentile(t, 95),
      max: Math.max(...t),
      total: last[i]?.total ?? -1,
      status: last[i]?.status ?? 0,
    };
  });
}

async function concurrent(): Promise<ConcurrentRound[]> {
  const rounds: ConcurrentRound[] = [];
  for (let round = 0; round < plan.rounds; round++) {
    const load = loadAverage();
    const pool = new Pool(plan.origin, { connections: plan.clients, pipelining: 1 });
    const times: number[] = [];
    const byClient = Array.from({ length: plan.clients }, () => [] as number[]);
    const statuses: Record<string, number> = {};
    let errors = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const end = started + plan.seconds * 1000;
    await Promise.all(
      Array.from({ length: plan.clients }, async (_v, client) => {
        for (let n = client; performance.now() < end; n++) {
          const c = plan.cases[n % plan.cases.length] as LoadCase;
          try {
            const r = await call(pool, c, false);
            times.push(r.ms);
            byClient[client]?.push(r.ms);
            statuses[r.status] = (statuses[r.status] ?? 0) + 1;
            if (r.status !== 200) errors++;
          } catch (err) {
            errors++;
            const key = (err as { code?: string }).code ?? 'exception';
            statuses[key] = (statuses[key] ?? 0) + 1;
          }
          if (plan.thinkMs) await new Promise((r) => setTimeout(r, plan.thinkMs! * (0.5 + Math.random())));
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    await pool.close();
    const { opening, steady } = openingAndSteady(byClient);
    rounds.push({
      requests: times.length,
      errors,
      statuses,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      steadyP99: percentile(steady, 99),
      openingP50: percentile(opening, 50),
      openingMax: Math.max(...opening),
      rate: times.length / elapsed,
      load,
      cpuSeconds: (used.user + used.system) / 1e6,
    });
  }
  return rounds;
}

const mode = process.argv[3] ?? 'both';
const out: { latency?: LatencyResult[]; concurrent?: ConcurrentRound[] } = {};
if (mode !== 'concurrent') out.latency = await latency();
if (mode !== 'latency') out.concurrent = await concurrent();
process.stdout.write(`${JSON.stringify(out)}\n`);
