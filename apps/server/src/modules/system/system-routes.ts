import {
  DASHBOARD_MENU,
  dataEnvelope,
  ZDashboardMenuResponse,
  ZMaintenanceResponse,
  ZPingResponse,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type MaintenanceState, maintenanceStatus } from './system-service.ts';

export async function systemRoutes(app: FastifyInstance, { maintenance }: { maintenance: MaintenanceState }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/main/ping', {
    schema: { operationId: 'ping', tags: ['system'], response: { 200: dataEnvelope(ZPingResponse) } },
    handler: async () => ({ data: { status: 'ok' as const, time: new Date().toISOString() } }),
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
