import {
  dataEnvelope,
  ZCreateScheduleBody,
  ZDeleteScheduleQuery,
  ZOk,
  ZScanSchedule,
  ZScheduleList,
  ZScheduleOverview,
  ZScheduleOverviewQuery,
  ZUpdateScheduleBody,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import { scanBridge } from './schedules-scan-adapter.ts';
import type { ScanBridge } from './schedules-scan-port.ts';
import * as schedules from './schedules-service.ts';

const tags = ['schedules'];
const security = [{ bearer: [] }];

export async function schedulesRoutes(
  app: FastifyInstance,
  { ctx, bridge = scanBridge }: { ctx: AppContext; bridge?: ScanBridge },
) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const signedIn = { onRequest: [app.requireUser] };

  r.post('/users/create_scan_schedule', {
    ...signedIn,
    schema: {
      operationId: 'createScanSchedule',
      tags,
      security,
      body: ZCreateScheduleBody,
      response: { 201: dataEnvelope(ZScanSchedule) },
    },
    handler: async (request, reply) => {
      const data = await schedules.createSchedule(ctx, bridge, currentUser(request).userId, request.body);
      reply.status(201);
      return { data };
    },
  });

  r.get('/users/get_user_scan_schedules', {
    ...signedIn,
    schema: {
      operationId: 'getUserScanSchedules',
      tags,
      security,
      response: { 200: dataEnvelope(ZScheduleList) },
    },
    handler: async (request) => ({ data: await schedules.listSchedules(ctx, currentUser(request).userId) }),
  });

  r.patch('/users/update_scan_schedule', {
    ...signedIn,
    schema: {
      operationId: 'updateScanSchedule',
      tags,
      security,
      body: ZUpdateScheduleBody,
      response: { 200: dataEnvelope(ZScanSchedule) },
    },
    handler: async (request) => ({
      data: await schedules.updateSchedule(ctx, bridge, currentUser(request).userId, request.body),
    }),
  });

  r.delete('/users/delete_scan_schedule', {
    ...signedIn,
    schema: {
      operationId: 'deleteScanSchedule',
      tags,
      security,
      querystring: ZDeleteScheduleQuery,
      response: { 200: dataEnvelope(ZOk) },
    },
    handler: async (request) => ({
      data: await schedules.deleteSchedule(ctx, currentUser(request).userId, request.query.scan_schedule_id),
    }),
  });

  r.get('/users/get_schedule_overview', {
    ...signedIn,
    schema: {
      operationId: 'getScheduleOverview',
      tags,
      security,
      querystring: ZScheduleOverviewQuery,
      response: { 200: dataEnvelope(ZScheduleOverview) },
    },
    handler: async (request) => ({
      data: await schedules.scheduleOverview(ctx, currentUser(request).userId, request.query),
    }),
  });
}
