import {
  DASHBOARD_MENU,
  dataEnvelope,
  ZDashboardMenuResponse,
  ZHealthResponse,
  ZMaintenanceResponse,
  ZPingResponse,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { type MaintenanceState, maintenanceStatus, readiness } from './system-service.ts';

export async function systemRoutes(
  app: FastifyInstance,
  { maintenance, ctx, queue }: { maintenance: MaintenanceState; ctx: AppContext; queue: boolean },
) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/main/ping', {
    schema: { operationId: 'ping', tags: ['system'], response: { 200: dataEnvelope(ZPingResponse) } },
    handler: async () => ({ data: { status: 'ok' as const, time: new Date().toISOString() } }),
  });

  // Not rate-limited: a load balancer polls these from one address.
  r.get('/main/health/live', {
    config: { rateLimit: false },
    schema: {
      operationId: 'healthLive',
      tags: ['system'],
      response: { 200: dataEnvelope(ZHealthResponse.pick({ status: true })) },
    },
    handler: async () => ({ data: { status: 'ok' as const } }),
  });

  r.get('/main/health/ready', {
    config: { rateLimit: false },
    schema: {
      operationId: 'healthReady',
      tags: ['system'],
      response: { 200: dataEnvelope(ZHealthResponse) },
    },
    handler: async () => {
      const { ready, checks } = await readiness(ctx.database.pool, { queue });
      if (!ready) {
        const down = Object.entries(checks)
          .filter(([, v]) => v === 'down')
          .map(([k]) => k);
        throw new AppError(503, 'not_ready', `Not ready: ${down.join(' and ')} not reachable.`);
      }
      return { data: { status: 'ok' as const, checks } };
    },
  });

  r.get('/main/message/maintenance_mode/', {
    schema: {
      operationId: 'getMaintenanceMode',
      tags: ['system'],
      response: { 200: dataEnvelope(ZMaintenanceResponse) },
    },
    handler: async () => ({ data: await maintenanceStatus(maintenance) }),
  });

  r.get('/menu/dashboard', {
    onRequest: [app.requireUser],
    schema: {
      operationId: 'getDashboardMenu',
      tags: ['system'],
      security: [{ bearer: [] }],
      response: { 200: dataEnvelope(ZDashboardMenuResponse) },
    },
    handler: async () => ({ data: { dashboard: DASHBOARD_MENU } }),
  });
}
