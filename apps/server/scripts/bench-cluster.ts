/**
 * What the scale-out and soak benches share: the lab on a free loopback /24, one PostgreSQL (the
 * embedded one, or DATABASE_URL's), the API in the bench process, worker processes running the
 * production build as `start:worker` does (with its Node flags; BENCH_WORKER_NODE_ARGS adds more,
 * e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), a user with the lab's three domains verified, and
 * the scan workload.
 *
 * The default scan is what a user gets: a full scan (every class) with the product's default port
 * list (top100) and the whole built-in subdomain wordlist (2,809 names brute-forced per domain
 * against the lab's DNS). BENCH_WORDLIST (N: the first N names), BENCH_PORTS (`lab`: only the
 * lab's ports; or a port list) and BENCH_FULL=0 (template checks of the lab's web port and the leak
 * check) change it, and BENCH_HTTP_DELAY_MS=N makes every lab HTTP response wait N ms (a site a
 * network round trip away); the workload's description says which was run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAverage, startFreeLab } from '@perimeter/lab/bench';
import { loadConfig } from '../src/lib/config/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startQueue } from '../src/lib/queue.ts';
import { buildApp } from '../src/server/app.ts';
import { openRuntime } from '../src/server/runtime.ts';

export const DOMAINS = ['acme.test', 'beta.test', 'wild.test'];
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export const benchLog =
  (tag: string) =>
  (msg: string): void =>
    console.log(`[${tag} ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/**
 * The Node flags `npm run start:worker` starts the worker role with (root package.json: the
 * options between `node` and the script it runs), so the bench's workers run as deployed ones do.
 */
export function startWorkerNodeFlags(root = repoRoot): string[] {
  const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<
    string,
    string
  >;
  const [node, ...words] = (scripts['start:worker'] ?? '').trim().split(/\s+/);
  if (node !== 'node') return [];
  const flags: string[] = [];
  for (const w of words) {
    if (!w.startsWith('-')) break;
    flags.push(w);
  }
  return flags;
}

export interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  /** The worker's compile of the template sets at start-up (its `template sets compiled` line), before ready. */
  compiled: { templates?: number; ms?: number };
  /** The scans this worker took (its `scan started` lines): id and the log's time (ms). */
  took: { scanId: string; time: number }[];
}

export async function startBenchCluster(tag: string) {
  const log = benchLog(tag);
  const full = process.env.BENCH_FULL !== '0';
  const wordlist = process.env.BENCH_WORDLIST ?? 'default';
  const portsOption = process.env.BENCH_PORTS ?? 'default';
  const httpDelayMs = Number(process.env.BENCH_HTTP_DELAY_MS ?? 0);
  const lab = await startFreeLab({ httpDelayMs });
  const labPorts = [...new Set(Object.values(lab.portMap))].sort((a, b) => a - b).join(',');
  const ports = !full
    ? String(lab.portMap[80] ?? 80)
    : portsOption === 'lab'
      ? labPorts
      : portsOption === 'default'
        ? undefined
        : portsOption;
  const scanEnv: Record<string, string> = {
    PERIMETER_ALLOW_PRIVATE_TARGETS: 'true',
    PERIMETER_DNS_SERVERS: `${lab.dns.host}:${lab.dns.port}`,
    PERIMETER_SCAN_ALLOW: `${lab.subnet}.0/24`,
    PERIMETER_CT_URL: lab.ctUrl,
    ...(ports ? { PERIMETER_SCAN_PORTS: ports } : {}),
    ...(wordlist !== 'default' ? { PERIMETER_SCAN_WORDLIST_LIMIT: wordlist } : {}),
  };
  const scans = full
    ? `full scans (every class) of ${DOMAINS.join(', ')}; ports: ${ports ? (portsOption === 'lab' ? `only the lab's (${labPorts})` : ports) : 'the product default (top100)'}; subdomain wordlist: ${wordlist === 'default' ? 'the whole built-in list (2,809 names, the product default)' : `the first ${wordlist} names`}`
    : "light scans: template checks of the lab's web port and the leak check";
  const rate = process.env.PERIMETER_TEMPLATE_RATE_LIMIT;
  const ratePer = process.env.PERIMETER_TEMPLATE_RATE_LIMIT_PER ?? 'host';
  // The template rate the workers inherit from this environment: the product default unless set.
  const politeness =
    rate === undefined && ratePer === 'host'
      ? 'template requests at the product default (150/s per host)'
      : `template requests at ${rate === '0' ? 'no rate limit' : `${rate ?? 150}/s per ${ratePer}`} (set in the environment: not the product default)`;
  const workload = `${scans}; ${politeness}${httpDelayMs > 0 ? `; every lab HTTP response delayed ${httpDelayMs} ms (a network round trip)` : ''}`;
  // The workers run the production build, as `npm run start:worker` does (built here once when stale).
  const { builtServerEntry } = (await import(
    pathToFileURL(path.join(repoRoot, 'scripts/build.mjs')).href
  )) as {
    builtServerEntry(entry: string): Promise<string>;
  };
  const workerEntry = await builtServerEntry('main-worker');
  // start:worker's Node flags, then BENCH_WORKER_NODE_ARGS: more for the workers only (e.g.
  // `--cpu-prof --cpu-prof-dir=/tmp/p`).
  const workerNodeArgs = [
    ...startWorkerNodeFlags(),
    ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  ];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `perimeter-${tag}-`));
  const config = loadConfig({
    ...process.env,
    ...scanEnv,
    NODE_ENV: 'production',
    PERIMETER_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // Every bench client comes from one loopback address.
    RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '10000',
  });
  log(
    `lab on ${lab.subnet}.0/24 (DNS ${lab.dns.host}:${lab.dns.port}); ${config.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'}; load ${loadAverage()}`,
  );
  const runtime = await openRuntime(config, createLogger('silent'));
  // As `start:api` does: pg-boss's schema, so the API can enqueue (the workers are separate processes).
  const boss = await startQueue(runtime.databaseUrl, createLogger('silent'));
  const app = await buildApp({ ctx: runtime.ctx, maintenance: runtime.maintenance });
  const pool = runtime.ctx.database.pool;

  async function call<T>(
    method: 'GET' | 'POST',
    url: string,
    token: string | undefined,
    payload?: object,
  ): Promise<T> {
    const res = await app.inject({
      method,
      url: `/api${url}`,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(payload ? { payload } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return (res.json() as { data: T }).data;
  }

  /** A worker process; `entry`: another build's `main-worker.mjs` (an A/B of two builds on one database). */
  function startWorker(concurrency: number, entry = workerEntry): Worker {
    const child = spawn(process.execPath, [...workerNodeArgs, entry], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...scanEnv,
        DATABASE_URL: runtime.databaseUrl,
        PERIMETER_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        WORKER_CONCURRENCY: String(concurrency),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const compiled: Worker['compiled'] = {};
    const took: Worker['took'] = [];
    const ready = new Promise<void>((resolve, reject) => {
      child.once('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal})`)));
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        if (line.includes('"template sets compiled"')) {
          const { templates, ms } = JSON.parse(line) as { templates?: number; ms?: number };
          Object.assign(compiled, { templates, ms });
        }
        if (line.includes('"worker role ready"')) resolve();
        if (line.includes('"scan started"')) {
          const { scanId, time } = JSON.parse(line) as { scanId: string; time: number };
          took.push({ scanId, time });
        }
      });
    });
    ready.catch(() => undefined);
    return { child, ready, compiled, took };
  }

  const stopWorkers = (children: ChildProcess[]) =>
    Promise.all(
      children.map((c) => {
        if (c.exitCode !== null || c.signalCode !== null) return null;
        c.kill('SIGTERM');
        return new Promise((r) => c.once('exit', r));
      }),
    );

  /** A user on the enterprise plan with the lab's domains added and verified. */
  async function labUser(): Promise<{ token: string; targetIds: string[] }> {
    const email = `${tag}-${Date.now()}@example.com`;
    const password = 'correct horse battery staple';
    await call('POST', '/users/auth/registration/', undefined, {
      first_name: 'Bench',
      last_name: 'User',
      company: 'Perf',
      email,
      password1: password,
      password2: password,
    });
    await pool.query(`update users set plan = 'enterprise', email_verified = true where email = $1`, [email]);
    const { access: token } = await call<{ access: string }>('POST', '/users/auth/login/', undefined, {
      email,
      password,
    });
    const targetIds: string[] = [];
    for (const domain of DOMAINS) {
      const added = await call<{ added: { user_target_id: string }[] }>(
        'POST',
        '/main/user_target/add_targets',
        token,
        { targets: [domain] },
      );
      const ref = { target_type: 'domain', user_target_id: added.added[0]?.user_target_id as string };
      const txt = await call<{ value: string }>('POST', '/main/user_target/get_verification_txt', token, ref);
      lab.setTxt(`_perimeter.${domain}`, [txt.value]);
      // Unverified, every start of its scans would be refused (403) later on, far from the cause
      // (a TXT lookup of the lab timed out on a loaded machine): stop here and say so.
      const check = await call<{ verified: boolean }>(
        'POST',
        '/main/user_target/check_verification',
        token,
        ref,
      );
      if (!check.verified) throw new Error(`${domain} did not verify against the lab's TXT record`);
      targetIds.push(ref.user_target_id);
    }
    return { token, targetIds };
  }

  /** Creates `count` scans of the workload (round-robin over the targets); returns their ids. */
  async function createScans(token: string, targetIds: string[], count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let k = 0; k < count; k++) {
      const scan = await call<{ id: string }>('POST', '/main/create_abstract_scan', token, {
        targets: [{ target_type: 'domain', user_target_id: targetIds[k % targetIds.length] }],
        ...(full
          ? { scan_type: 'full' }
          : {
              scan_type: 'custom',
              custom_scan_config: { classes: [], subclasses: ['exploit_scanner', 'leakcheck'] },
            }),
      });
      ids.push(scan.id);
    }
    return ids;
  }

  /** Resolves once every scan of `ids` reached a final state. */
  async function waitEnded(ids: string[], onTick?: () => Promise<void>): Promise<void> {
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        `select count(*)::int as n from scans where id = any($1) and status in ('done', 'canceled', 'failed')`,
        [ids],
      );
      if (rows[0]?.n === ids.length) return;
      await onTick?.();
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** "30 done" or "28 done, 2 canceled (reason)". */
  async function endStates(ids: string[]): Promise<string> {
    const { rows } = await pool.query<{ status: string; message: string | null; n: number }>(
      `select status, min(coalesce(failure_reason, message)) as message, count(*)::int as n from scans where id = any($1) group by 1 order by 1`,
      [ids],
    );
    return rows
      .map((r) => `${r.n} ${r.status}${r.status === 'done' ? '' : ` (${r.message ?? 'no message'})`}`)
      .join(', ');
  }

  async function close(): Promise<void> {
    await app.close();
    await boss.stop({ graceful: false, wait: true, timeout: 5000 });
    await runtime.close();
    await lab.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  return {
    lab,
    app,
    pool,
    workload,
    call,
    startWorker,
    stopWorkers,
    labUser,
    createScans,
    waitEnded,
    endStates,
    close,
  };
}
