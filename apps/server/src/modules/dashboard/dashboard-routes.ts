import { dataEnvelope, ZDashboardInfo, ZTargetMetrics, ZTargetMetricsQuery } from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import * as dashboard from './dashboard-service.ts';

const tags = ['dashboard'];
const security = [{ bearer: [] }];

export async function dashboardRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/main/get_dashboard_info', {
    onRequest: [app.requireUser],
    schema: {
      operationId: 'getDashboardInfo',
      tags,
      security,
      response: { 200: dataEnvelope(ZDashboardInfo) },
    },
    handler: async (request) => ({ data: await dashboard.dashboardInfo(ctx, currentUser(request).userId) }),
  });

  r.get('/main/get_target_metrics', {
    onRequest: [app.requireUser],
    schema: {
      operationId: 'getTargetMetrics',
      tags,
      security,
      querystring: ZTargetMetricsQuery,
      response: { 200: dataEnvelope(ZTargetMetrics) },
    },
    handler: async (request) => ({
      data: await dashboard.targetMetrics(ctx, currentUser(request).userId, request.query),
    }),
  });
}
