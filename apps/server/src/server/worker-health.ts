import http from 'node:http';
import type { Pool } from 'pg';
import type { Logger } from '../lib/logger.ts';
import { readiness } from '../modules/system/system-service.ts';

/**
 * A worker process started without the API answers `GET /live` and `GET /ready` on its own port
 * (WORKER_HEALTH_PORT), with the API's envelopes: `{ data }` or `{ detail, code }` with 503.
 */
export async function startWorkerHealth(
  pool: Pick<Pool, 'query'>,
  { host, port, logger }: { host: string; port: number; logger: Logger },
): Promise<{ close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET')
      return send(405, { detail: 'Only GET is served here.', code: 'method_not_allowed' });
    if (path === '/live') return send(200, { data: { status: 'ok' } });
    if (path !== '/ready') return send(404, { detail: 'Not found.', code: 'not_found' });
    readiness(pool, { queue: true }).then(({ ready, checks }) => {
      if (ready) return send(200, { data: { status: 'ok', checks } });
      const down = Object.entries(checks)
        .filter(([, v]) => v === 'down')
        .map(([k]) => k);
      send(503, { detail: `Not ready: ${down.join(' and ')} not reachable.`, code: 'not_ready' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  logger.info({ host, port }, 'worker health endpoints ready (/live, /ready)');
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
